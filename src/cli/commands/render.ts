/**
 * `kgraph render <file> [--instance FILE] [--state FILE]... [--crd FILE]... [--until-converged]
 *  [--name NAME] [-o yaml|json]`: simulates a reconcile offline. Compiles the Graph / RGD, evaluates it
 * against the objects of the state files, and prints
 * `{"nodes":[{"id","kind","state","reason","objects":[…]}],"status":{…}}` (plus `passes` with
 * --until-converged). Exit code 1 when the object is not accepted or a node ends in `error`.
 */
import type { Command } from 'commander';
import { parseAllDocuments } from 'yaml';
import type { OpenApiSchema } from '../../cel/types/openapi.ts';
import { type Diagnostic, KgraphError } from '../../diag/diagnostic.ts';
import { isRecord } from '../../diag/record.ts';
import { builtinKindResolver } from '../../graph/builtinKinds.ts';
import { formatDiagnostic } from '../../graph/format.ts';
import { chainResolvers } from '../../graph/kinds.ts';
import type { CompiledGraph } from '../../graph/model.ts';
import { validatePaths } from '../../graph/validate.ts';
import type { SourceFile } from '../../graph/yamlTree.ts';
import { applyDefaults } from '../../runtime/defaults.ts';
import { celHost } from '../../runtime/host.ts';
import type { KubeObject, TypeInfo } from '../../runtime/observed.ts';
import { type RenderOutput, simulate } from '../../runtime/simulate.ts';
import type { EvaluationResult } from '../../runtime/types.ts';
import { type PlainValue, stringifyLossless } from '../../runtime/values.ts';
import { generateCrdFromSchemaSection } from '../../schema/crd/generate.ts';
import { createSchemaResolver, toKindLookup } from '../../schema/sources/resolver.ts';
import { writeYaml } from '../../yaml/writeYaml.ts';
import { inputFiles, readInput, withStdin } from '../inputs.ts';

export interface RenderOptions {
  instance?: string;
  state: string[];
  crd: string[];
  untilConverged?: boolean;
  name?: string;
  output: string;
  /** `-f/--filename`: the file, as kubectl names it (`-` is standard input). */
  filename?: string;
}

const collect = (v: string, prev: string[]): string[] => [...prev, v];

/** Every object of a YAML/JSON file: documents, and the items of `kind: List` documents. */
export function readObjects(file: string, option?: string): KubeObject[] {
  const text = readInput(file, option);
  const out: KubeObject[] = [];
  let index = 0;
  // Duplicate keys: the last value wins, as kubectl reads them (the compiler warns, KG2009).
  for (const doc of parseAllDocuments(text, { uniqueKeys: false })) {
    index++;
    if (doc.errors.length > 0) throw badInput(`${file}: ${doc.errors[0]!.message}`, option);
    const value: unknown = doc.toJS();
    if (value === null || value === undefined) continue;
    if (!isRecord(value)) throw badInput(`${file}: every document must be an object`, option);
    if (typeof value.kind === 'string' && value.kind.endsWith('List') && Array.isArray(value.items)) {
      for (const item of value.items) if (isRecord(item)) out.push(checkIdentity(item, file, index, option));
    } else {
      out.push(checkIdentity(value, file, index, option));
    }
  }
  return out;
}

/** An object without apiVersion, kind or metadata.name (a typo such as `kidn:`) is refused, not ignored. */
function checkIdentity(
  obj: Record<string, unknown>,
  file: string,
  doc: number,
  option: string | undefined,
): KubeObject {
  const name = isRecord(obj.metadata) ? obj.metadata.name : undefined;
  const missing = [
    typeof obj.apiVersion === 'string' && obj.apiVersion !== '' ? undefined : 'apiVersion',
    typeof obj.kind === 'string' && obj.kind !== '' ? undefined : 'kind',
    typeof name === 'string' && name !== '' ? undefined : 'metadata.name',
  ].filter((m): m is string => m !== undefined);
  if (missing.length > 0) {
    throw badInput(`${file}: document ${doc}: the object has no ${missing.join(', ')}`, option);
  }
  return obj;
}

/** KG6087: an input file (--instance, --state) that is YAML but not objects kgraph can use. */
function badInput(message: string, option: string | undefined): KgraphError {
  return new KgraphError('KG6087', `${option ? `${option} ` : ''}${message}`);
}

interface SpecSchema {
  type?: string;
  properties?: Record<string, SpecSchema>;
  required?: string[];
  default?: unknown;
}

/** `spec.…` paths that the schema requires and that have no default: an empty instance lacks them. */
export function requiredWithoutDefaults(schema: SpecSchema | undefined, path = 'spec'): string[] {
  if (!schema?.properties) return [];
  const out: string[] = [];
  for (const [name, prop] of Object.entries(schema.properties)) {
    const here = `${path}.${name}`;
    const required = schema.required?.includes(name) ?? false;
    if (required && prop.default === undefined) out.push(here);
    // Fields inside an object that exists (required, or defaulted) are required too.
    else if (required || prop.default !== undefined) out.push(...requiredWithoutDefaults(prop, here));
  }
  return out;
}

/** The instance an RGD is rendered for: the file's, or a minimal one; spec defaults applied. */
function prepareInstance(
  graph: CompiledGraph,
  file: string | undefined,
  warn: (text: string) => void = () => {},
): KubeObject {
  const rgd = graph.rgd!;
  let instance: KubeObject;
  if (file !== undefined) {
    const objects = readObjects(file, '--instance');
    if (objects.length !== 1)
      throw new Error(`--instance ${file}: expected exactly one object, found ${objects.length}`);
    instance = objects[0]!;
    const expected = `${rgd.group}/${rgd.apiVersion}`;
    if (instance.apiVersion !== expected || instance.kind !== rgd.kind) {
      throw new Error(
        `--instance ${file}: expected a ${expected} ${rgd.kind} (the RGD's schema), found ${String(instance.apiVersion)} ${String(instance.kind)}`,
      );
    }
  } else {
    instance = {
      apiVersion: `${rgd.group}/${rgd.apiVersion}`,
      kind: rgd.kind,
      metadata: rgd.scope === 'Cluster' ? { name: graph.name } : { name: graph.name, namespace: 'default' },
      spec: {},
    };
  }
  const generated = generateCrdFromSchemaSection(rgd.raw);
  if (file === undefined) {
    const missing = requiredWithoutDefaults(generated.specSchema as SpecSchema);
    if (missing.length > 0) {
      warn(
        `kgraph: rendering ${rgd.kind} with an empty spec, which lacks the required field(s) without a default: ${missing.join(', ')}; pass --instance FILE\n`,
      );
    }
  }
  const metadata = isRecord(instance.metadata) ? { ...instance.metadata } : {};
  if (rgd.scope === 'Namespaced' && typeof metadata.namespace !== 'string') metadata.namespace = 'default';
  return {
    ...instance,
    metadata,
    spec: applyDefaults(isRecord(instance.spec) ? instance.spec : {}, generated.specSchema),
  };
}

/**
 * What the simulated cluster knows about kinds besides the state: the kinds the compiler resolves
 * (--crd files, the offline bundle of built-in kinds, kgraph's own kinds) — which types are served,
 * and their schemas, so observed objects are converted by schema.
 */
function clusterKinds(crdFiles: readonly string[], graph: CompiledGraph) {
  const setup = createSchemaResolver({ crdFiles });
  const kinds = chainResolvers([toKindLookup(setup.resolver), builtinKindResolver()]);
  // An RGD's own instance kind is converted by its generated spec schema (floats stay doubles).
  const rgd = graph.rgd;
  const instanceSchema = rgd
    ? { type: 'object' as const, properties: { spec: generateCrdFromSchemaSection(rgd.raw).specSchema } }
    : undefined;
  const isInstance = (apiVersion: string, kind: string): boolean =>
    rgd !== undefined && kind === rgd.kind && apiVersion === `${rgd.group}/${rgd.apiVersion}`;
  const servedType = (apiVersion: string, kind: string): TypeInfo | undefined => {
    const info = kinds.lookup(apiVersion, kind);
    return info ? { apiVersion, kind, namespaced: info.scope === 'Namespaced' } : undefined;
  };
  const host = celHost({
    schemaFor: (apiVersion, kind) =>
      (isInstance(apiVersion, kind) ? instanceSchema : kinds.lookup(apiVersion, kind)?.schema) as
        | OpenApiSchema
        | undefined,
  });
  return { servedType, host };
}

export interface RenderRun {
  stdout: string;
  stderr: string;
  exitCode: number;
  /** Absent when nothing could be rendered (the reason is in `stderr`). */
  output?: RenderOutput;
  /** What was compiled and evaluated (for `kgraph ui --render`); absent when no object was picked. */
  details?: RenderDetails;
}

export interface RenderDetails {
  object: { apiVersion: string; kind: string; name: string; file: string };
  /** Present even when the object is not accepted, for drawing. */
  graph?: CompiledGraph;
  diagnostics: Diagnostic[];
  source?: SourceFile;
  /** The last evaluation; absent when the object is not accepted. */
  result?: EvaluationResult;
  /** The observed objects of the --state files. */
  state: KubeObject[];
}

/** The whole command as a function (tests call it in-process); throws for unusable input. */
export function runRender(arg: string | undefined, opts: RenderOptions): RenderRun {
  const inputs = inputFiles(arg ? [arg] : [], opts.filename ? [opts.filename] : []);
  if (inputs.length > 1) throw new Error('render takes one file (a positional file or -f, not both)');
  const { paths, inline } = withStdin(inputs);
  const file = paths[0]!;
  let stderr = '';
  const err = (text: string): void => {
    stderr += text;
  };
  const fail = (message: string): RenderRun => ({
    stdout: '',
    stderr: `${stderr}kgraph: ${message}\n`,
    exitCode: 1,
  });
  if (opts.output !== 'yaml' && opts.output !== 'json' && opts.output !== 'manifests') {
    throw new Error(`unknown output format "${opts.output}" (use yaml, json or manifests)`);
  }
  const validated = validatePaths([file], { crdFiles: opts.crd, inline });
  for (const d of validated.fileDiagnostics) {
    err(formatDiagnostic(d, validated.sources.get(d.location?.file ?? file)));
  }
  let picked = validated.results.map((r, i) => ({ r, o: validated.objects[i]! }));
  if (opts.name !== undefined) picked = picked.filter((p) => p.o.name === opts.name);
  if (picked.length === 0) {
    // An unreadable file was said above (KG2007): nothing more to add.
    if (validated.fileDiagnostics.some((d) => d.severity === 'error' && d.location?.file === file))
      return { stdout: '', stderr, exitCode: 1 };
    return fail(`no Graph or ResourceGraphDefinition${opts.name ? ` named ${opts.name}` : ''} in ${file}`);
  }
  if (picked.length > 1) {
    return fail(
      `${file} holds ${picked.length} objects (${picked.map((p) => p.o.name).join(', ')}); choose one with --name`,
    );
  }
  const { r, o } = picked[0]!;
  for (const d of o.diagnostics) err(formatDiagnostic(d, validated.sources.get(o.file)));
  const source = validated.sources.get(o.file);
  const details: RenderDetails = {
    object: { apiVersion: o.apiVersion, kind: o.kind, name: o.name, file: o.file },
    diagnostics: [...validated.fileDiagnostics, ...o.diagnostics],
    state: [],
    ...(r.graph ? { graph: r.graph } : {}),
    ...(source ? { source } : {}),
  };
  if (!o.accepted || r.graph === undefined) {
    return { ...fail(`${o.kind} ${o.name} is not accepted; nothing to render`), details };
  }
  const graph = r.graph;
  if (opts.instance !== undefined && graph.rgd === undefined) {
    err(`kgraph: --instance ignored: ${o.name} is a Graph, not a ResourceGraphDefinition\n`);
  }
  const state = opts.state.flatMap((f) => readObjects(f, '--state'));
  details.state = state;
  const simulated = simulate(graph, {
    state,
    ...clusterKinds(opts.crd, graph),
    untilConverged: opts.untilConverged === true,
    ...(graph.rgd !== undefined ? { instance: prepareInstance(graph, opts.instance, err) } : {}),
  });
  // lineWidth 0: no folding of long reasons and values at 80 columns.
  const text =
    opts.output === 'json'
      ? `${stringifyLossless(simulated.output as unknown as PlainValue)}\n`
      : opts.output === 'manifests'
        ? manifestsStream(simulated.output, err)
        : writeYaml(simulated.output);
  for (const e of simulated.result.statusErrors) {
    err(`kgraph: status field ${e.field}: ${e.message}\n`);
  }
  if (!simulated.converged) {
    err(`kgraph: render did not converge after ${simulated.passes} passes\n`);
  }
  const failed =
    simulated.result.nodes.some((n) => n.state === 'error') || simulated.result.statusErrors.length > 0;
  details.result = simulated.result;
  return {
    stdout: text,
    stderr,
    exitCode: failed || !simulated.converged ? 1 : 0,
    output: simulated.output,
    details,
  };
}

/**
 * `-o manifests`: the desired objects alone, as a YAML stream `kubectl apply -f -` takes (as
 * `helm template` prints); nodes that rendered nothing are named on stderr.
 */
function manifestsStream(output: RenderOutput, err: (text: string) => void): string {
  let out = '';
  for (const n of output.nodes) {
    if (n.objects.length === 0 && n.state !== 'excluded') {
      err(`kgraph: node ${n.id} rendered no object (${n.state}${n.reason ? `: ${n.reason}` : ''})\n`);
    }
    for (const o of n.objects) {
      out += `---\n# node ${n.id}\n${writeYaml(o)}`;
    }
  }
  return out;
}

export function registerRenderCommand(program: Command): void {
  program
    .command('render')
    .description('simulate a reconcile offline: desired objects, node states and instance status')
    .argument('[file]', 'YAML file with a Graph or ResourceGraphDefinition; - reads standard input')
    .option('-f, --filename <file>', 'the file, as kubectl names it; - for standard input')
    .option('--instance <file>', 'RGD: the instance to render (default: one with the spec defaults)')
    .option('--state <file>', 'observed objects, e.g. a Deployment with its status (repeatable)', collect, [])
    .option('--crd <file>', 'CRD file used as a schema source and as served types (repeatable)', collect, [])
    .option('--until-converged', 'repeat passes, echoing rendered objects as observed, until nothing changes')
    .option('--name <name>', 'the object to render when the file holds several')
    .option(
      '-o, --output <format>',
      'yaml or json (the whole simulation), or manifests (the desired objects)',
      'yaml',
    )
    .action((file: string | undefined, opts: RenderOptions) => {
      const run = runRender(file, opts);
      process.stdout.write(run.stdout);
      process.stderr.write(run.stderr);
      process.exitCode = run.exitCode;
    });
}
