import { extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Command } from 'commander';
import YAML from 'yaml';
import { writeOutDir } from '../../deploy/outDir.ts';
import type { Diagnostic } from '../../diag/diagnostic.ts';
import { KgraphError } from '../../diag/diagnostic.ts';
import { binaryChartRenderer } from '../../helm/renderChart.ts';
import {
  type ClusterDef,
  type InstanceDef,
  isPackage,
  type Manifest,
  type Package,
  SdkCode,
  SdkError,
  synth,
  toKroGraph,
} from '../../sdk/index.ts';
import { writeYaml } from '../../yaml/writeYaml.ts';
import { diagnosticLine, readInput, requireInput } from '../inputs.ts';
import { enableTypeScriptImports } from '../typeScriptImports.ts';

export interface SynthCommandOptions {
  cluster?: string;
  /** Write one file per object here (see deploy/outDir.ts); otherwise only `documents`. */
  outDir?: string;
  /** yaml (a YAML stream) or json (a v1 List) on stdout. */
  output?: string;
  as?: 'yaml' | 'graph';
  strict?: boolean;
  graphName?: string;
}

export interface SynthCommandResult {
  /** YAML documents, in apply order (one document for `--as graph`). */
  readonly documents: string[];
  /** The same objects as values. */
  readonly bodies: unknown[];
  readonly files: string[];
  /** Files an earlier synth wrote into `outDir` that this one no longer writes, removed. */
  readonly removed: string[];
  readonly diagnostics: Diagnostic[];
  /** The release name the input declares: its one instance's name (the package name by default), else the cluster's name. */
  readonly releaseName?: string;
}

type InstanceFile = Omit<InstanceDef, 'package'> & { package?: Package };
type ClusterFile = Omit<ClusterDef, 'instances'> & { instances?: Record<string, InstanceFile> };

/**
 * A CommonJS module compiled by tsc (`exports.default = definePackage(…)`, `__esModule` set) comes
 * out of `import()` as `{ default: module.exports }`: its ES exports are the properties of that.
 */
function commonJsExports(mod: Record<string, unknown>): Record<string, unknown> {
  const inner = mod.default;
  if (typeof inner === 'object' && inner !== null && (inner as { __esModule?: unknown }).__esModule === true)
    return inner as Record<string, unknown>;
  return mod;
}

async function importModule(file: string): Promise<Record<string, unknown>> {
  requireInput(file);
  try {
    if (/\.[cm]?ts$/.test(file)) await enableTypeScriptImports();
    return commonJsExports((await import(pathToFileURL(resolve(file)).href)) as Record<string, unknown>);
  } catch (err) {
    if (err instanceof SdkError) throw err;
    throw new SdkError(
      SdkCode.packageLoad,
      `cannot load ${file}: ${err instanceof Error ? err.message : String(err)}`,
      { location: { file } },
    );
  }
}

async function loadClusterFile(file: string): Promise<ClusterFile> {
  const ext = extname(file);
  if (ext === '.ts' || ext === '.js' || ext === '.mts' || ext === '.mjs') {
    const mod = await importModule(file);
    return (mod.default ?? mod.cluster) as ClusterFile;
  }
  const parsed = YAML.parse(readInput(file, '--cluster')) as unknown;
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new SdkError(SdkCode.clusterDefinition, `${file}: a cluster definition must be a mapping`);
  }
  return parsed as ClusterFile;
}

/** Loads the package module and the optional cluster file, synthesizes, renders YAML. */
export async function runSynth(
  packageFile: string,
  opts: SynthCommandOptions = {},
): Promise<SynthCommandResult> {
  const mod = await importModule(packageFile);
  const exported = mod.default ?? mod.package ?? mod.cluster;
  const fromFile: ClusterFile = opts.cluster ? await loadClusterFile(opts.cluster) : {};
  let def: ClusterDef;
  if (isPackage(exported)) {
    const pkg = exported;
    const declared = fromFile.instances ?? { [pkg.name]: { namespace: pkg.name } };
    const instances: Record<string, InstanceDef> = {};
    for (const [name, inst] of Object.entries(declared))
      instances[name] = { ...inst, package: inst.package ?? pkg };
    def = { ...fromFile, instances };
  } else if (typeof exported === 'object' && exported !== null && 'instances' in exported) {
    const base = exported as ClusterDef;
    def = {
      ...base,
      ...fromFile,
      instances: {
        ...(base.instances ?? {}),
        ...((fromFile.instances ?? {}) as Record<string, InstanceDef>),
      },
    };
  } else {
    throw new SdkError(
      SdkCode.packageLoad,
      `${packageFile}: the default export must be a package (definePackage) or a cluster definition (defineCluster)`,
    );
  }
  for (const [name, inst] of Object.entries(def.instances ?? {})) {
    if (!isPackage(inst.package))
      throw new SdkError(SdkCode.clusterDefinition, `instance ${name} has no package`);
  }
  const result = synth(def, {
    tokens: opts.strict ? 'strict' : 'marker',
    chartRenderer: binaryChartRenderer(),
  });
  const docs: { name: string; body: unknown }[] =
    opts.as === 'graph'
      ? [{ name: 'graph.yaml', body: toKroGraph(result.build, opts.graphName ?? graphName(def)) }]
      : result.manifests.map((m: Manifest, i) => ({ name: fileName(i, m), body: m }));
  const documents = docs.map((d) => writeYaml(d.body));
  // Synth decodes every context marker; one left here would be a bug, never silently written.
  if (documents.some((d) => /[\uEA00-\uEA1F]/.test(d))) {
    throw new SdkError(SdkCode.markerCorrupted, 'internal: a context marker reached the output');
  }
  const { written: files, removed } = opts.outDir
    ? writeOutDir(
        opts.outDir,
        docs.map((d, i) => ({ name: d.name, text: documents[i]! })),
      )
    : { written: [], removed: [] };
  const instanceNames = Object.keys(def.instances ?? {});
  const releaseName = instanceNames.length === 1 ? instanceNames[0] : def.name;
  return {
    documents,
    bodies: docs.map((d) => d.body),
    files,
    removed,
    diagnostics: result.diagnostics,
    ...(releaseName ? { releaseName } : {}),
  };
}

function graphName(def: ClusterDef): string {
  const names = Object.keys(def.instances ?? {});
  return names.length === 1 ? names[0]! : (def.name ?? 'cluster');
}

function fileName(i: number, m: Manifest): string {
  const safe = (s: string) => s.toLowerCase().replace(/[^a-z0-9.-]+/g, '-');
  return `${String(i + 1).padStart(3, '0')}-${safe(m.kind)}-${m.metadata.namespace ? `${safe(m.metadata.namespace)}-` : ''}${safe(m.metadata.name)}.yaml`;
}

export function registerSynthCommand(program: Command): void {
  program
    .command('synth')
    .description('synthesize a kgraph SDK package (TypeScript) into manifests with kix.run/* annotations')
    .argument('<package>', 'a .ts module whose default export is a package or a cluster definition')
    .option('--cluster <file>', 'cluster definition (YAML/JSON, or a .ts module exporting one)')
    .option(
      '--out-dir <dir>',
      'write one file per object into DIR (removing what an earlier synth wrote there)',
    )
    .option('-o, --output <format>', 'yaml (a YAML stream) or json (a v1 List), on stdout', 'yaml')
    .option('--as <format>', 'yaml (manifests) or graph (a kro Graph)', 'yaml')
    .option('--graph-name <name>', 'metadata.name of the Graph for --as graph')
    .option('--strict', 'context strings may not be coerced (plain template literals throw)')
    .action(async (pkg: string, opts: SynthCommandOptions) => {
      if (opts.as !== 'yaml' && opts.as !== 'graph') throw new Error('--as must be yaml or graph');
      // `-` was the old "stdout" value of -o: stdout is what -o always means now.
      if (opts.output === '-') opts.output = 'yaml';
      if (opts.output !== 'yaml' && opts.output !== 'json') {
        throw new KgraphError(
          'KG7108',
          `-o is an output format (yaml or json), not "${opts.output}"; write files with --out-dir ${opts.output}`,
        );
      }
      const r = await runSynth(pkg, opts);
      for (const d of r.diagnostics) {
        process.stderr.write(diagnosticLine(d));
      }
      if (opts.outDir) {
        for (const f of r.removed) process.stderr.write(`removed ${f} (written by an earlier synth)\n`);
        process.stderr.write(`wrote ${r.files.length} file(s) to ${opts.outDir}\n`);
      } else if (opts.output === 'json') {
        process.stdout.write(
          `${JSON.stringify({ apiVersion: 'v1', kind: 'List', items: r.bodies }, null, 2)}\n`,
        );
      } else process.stdout.write(r.documents.map((d) => `---\n${d}`).join(''));
    });
}
