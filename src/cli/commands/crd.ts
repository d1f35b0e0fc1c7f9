/**
 * `kgraph crd <rgd.yaml>`: prints the CRD generated for each ResourceGraphDefinition in the file
 * (kro or krop). Status field types come from a full compile (the CEL result types of the status
 * expressions, against CRD files and the offline bundle); when the compile is not available, from the
 * literal structure of `spec.schema.status` (templates are strings, standalone expressions untyped).
 */
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: output text quotes kgraph ${…} syntax
import type { Command } from 'commander';
import type { Diagnostic, SourceLocation } from '../../diag/diagnostic.ts';
import { isRecord } from '../../diag/record.ts';
import { formatDiagnostic } from '../../graph/format.ts';
import { KRO_API_VERSION } from '../../graph/kroApi.ts';
import { statusFieldTypes } from '../../graph/typecheck.ts';
import { validatePaths } from '../../graph/validate.ts';
import { parseYamlFile, type SourceFile, toJson, type YNode } from '../../graph/yamlTree.ts';
import { generateCrd } from '../../schema/crd/generate.ts';
import { parseStatusPath, type StatusFieldType } from '../../schema/crd/statusSchema.ts';
import { writeYaml } from '../../yaml/writeYaml.ts';
import { inputFiles, readInput, STDIN_NAME } from '../inputs.ts';

const RGD_API_VERSIONS = new Set([KRO_API_VERSION, 'krop.opendefense.cloud/v1alpha1']);

export function registerCrdCommand(program: Command): void {
  program
    .command('crd')
    .description('print the CustomResourceDefinition generated for each ResourceGraphDefinition in a file')
    .argument('[file]', 'YAML file with one or more ResourceGraphDefinitions; - reads standard input')
    .option('-f, --filename <file>', 'the file, as kubectl names it; - for standard input')
    .option('-o, --output <format>', 'yaml or json', 'yaml')
    .option('--crd <file>', 'CRD file for a kind the RGD uses, to type its status (repeatable)', collect, [])
    .option(
      '--no-compile',
      'type status fields from their literal structure only (and do not fail on the resources)',
    )
    .action(
      (
        arg: string | undefined,
        opts: { output: string; crd: string[]; compile: boolean; filename?: string },
      ) => {
        if (opts.output !== 'yaml' && opts.output !== 'json')
          throw new Error(`unknown output format '${opts.output}'`);
        const inputs = inputFiles(arg ? [arg] : [], opts.filename ? [opts.filename] : []);
        if (inputs.length > 1) throw new Error('crd takes one file (a positional file or -f, not both)');
        const text = readInput(inputs[0]!);
        const file = inputs[0] === '-' ? STDIN_NAME : inputs[0]!;
        const compiled = opts.compile ? compileStatusTypes(file, opts.crd, text) : undefined;
        const result = renderCrds(file, text, opts.output, compiled);
        process.stdout.write(result.stdout);
        process.stderr.write(result.stderr);
        process.exitCode = result.exitCode;
      },
    );
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** Status types of one RGD from a compile, and how many errors that compile had. */
export interface CompiledStatus {
  fields: StatusFieldType[];
  errors: number;
  /** The compile's errors outside spec.schema (those of the schema, generateCrd reports itself). */
  diagnostics: Diagnostic[];
}

/** Compiles the file (offline sources plus `crdFiles`) and returns the status types per RGD name. */
export function compileStatusTypes(
  file: string,
  crdFiles: readonly string[] = [],
  text?: string,
): Map<string, CompiledStatus> {
  const out = new Map<string, CompiledStatus>();
  const result = validatePaths([file], {
    crdFiles,
    ...(text !== undefined ? { inline: new Map([[file, text]]) } : {}),
  });
  for (const r of result.results) {
    if (!r.graph?.rgd) continue;
    const fields = statusFieldTypes(r.graph);
    const errors = r.diagnostics.filter((d) => d.severity === 'error');
    out.set(r.object.name, {
      fields,
      errors: errors.length,
      diagnostics: errors.filter((d) => !d.path?.startsWith('spec.schema.')),
    });
  }
  return out;
}

/** Locates a field path (`spec.schema.spec.name`) in a positioned YAML tree. */
function locator(root: YNode | undefined, source: SourceFile) {
  return (path: string): SourceLocation | undefined => {
    let node = root;
    let offset: number | undefined = node?.pos.offset;
    let length = node?.pos.length ?? 0;
    for (const seg of parseStatusPath(path)) {
      if (node?.t === 'map' && typeof seg === 'string') {
        const e = node.entries.find((x) => x.key === seg);
        if (!e) break;
        node = e.value;
        offset = e.keyPos.offset;
        length = e.keyPos.length;
      } else if (node?.t === 'seq' && typeof seg === 'number' && node.items[seg]) {
        node = node.items[seg];
        offset = node.pos.offset;
        length = node.pos.length;
      } else break;
    }
    return offset === undefined ? undefined : source.location(offset, length);
  };
}

export interface CrdOutput {
  stdout: string;
  stderr: string;
  /** 0 when every RGD produced a CRD, 1 otherwise. */
  exitCode: number;
}

export function renderCrds(
  file: string,
  text: string,
  format: 'yaml' | 'json' = 'yaml',
  compiled?: ReadonlyMap<string, CompiledStatus>,
): CrdOutput {
  const parsed = parseYamlFile(file, text);
  let stderr = '';
  let failed = false;
  for (const d of parsed.diagnostics) {
    stderr += `${formatDiagnostic(d, parsed.documents[0]?.source)}\n`;
    if (d.severity === 'error') failed = true;
  }
  const crds: unknown[] = [];
  const chunks: string[] = [];
  for (const doc of parsed.documents) {
    if (!doc.root) continue;
    const value = toJson(doc.root);
    if (!isRecord(value) || value.kind !== 'ResourceGraphDefinition') continue;
    if (typeof value.apiVersion !== 'string' || !RGD_API_VERSIONS.has(value.apiVersion)) continue;
    const name = isRecord(value.metadata) ? String(value.metadata.name ?? '') : '';
    const status = compiled?.get(name);
    const result = generateCrd(value, {
      locate: locator(doc.root, doc.source),
      ...(status ? { statusTypes: status.fields } : {}),
    });
    for (const d of result.diagnostics) stderr += `${formatDiagnostic(d, doc.source)}\n`;
    if (!result.crd) {
      failed = true;
      continue;
    }
    if (status && status.errors > 0) {
      // kro refuses an RGD that does not compile: so does `crd` (the CRD is still printed, with the
      // failing status fields untyped; --no-compile types from the literal structure and passes).
      for (const d of status.diagnostics) stderr += `${formatDiagnostic(d, doc.source)}\n`;
      stderr += `${file} - error: ${name} does not compile (${status.errors} error${status.errors === 1 ? '' : 's'}); status fields whose expressions fail are untyped\n`;
      failed = true;
    }
    crds.push(result.crd);
    const origin = !status
      ? '# Status field types: from the literal structure only (string templates are strings,\n' +
        '# standalone ${…} expressions are untyped); a full compile infers them from CEL.\n'
      : '# Status field types: the CEL result types of the status expressions (untyped where the\n' +
        `# type is dyn or an object${status.errors > 0 ? ', or where the expression does not compile' : ''}).\n`;
    chunks.push(
      `# Generated by kgraph from ResourceGraphDefinition ${name || '(unnamed)'}.\n` +
        origin +
        writeYaml(result.crd),
    );
  }
  if (crds.length === 0 && !failed) {
    return { stdout: '', stderr: `${stderr}${file}: no ResourceGraphDefinition found\n`, exitCode: 1 };
  }
  const stdout =
    format === 'json'
      ? `${JSON.stringify(crds.length === 1 ? crds[0] : crds, null, 2)}\n`
      : chunks.join('---\n');
  return { stdout, stderr, exitCode: failed ? 1 : 0 };
}
