/**
 * Diagnostic output: a TypeScript-compiler-style text format that shows the offending YAML line with
 * a caret, and the JSON report of `kgraph validate -o json`.
 */
import { createColors } from 'colorette';
import type { Diagnostic } from '../diag/diagnostic.ts';
import { kubectlName } from '../diag/objectName.ts';
import type { SourceFile } from './yamlTree.ts';

/** One validated object (a document of a file), as reported by `kgraph validate`. */
export interface ObjectReport {
  file: string;
  apiVersion: string;
  kind: string;
  name: string;
  accepted: boolean;
  diagnostics: Diagnostic[];
}

export interface JsonDiagnostic {
  severity: string;
  code: string;
  message: string;
  node: string | null;
  path: string | null;
  line: number | null;
  column: number | null;
}

/**
 * The JSON report of `kgraph validate -o json` (schema: docs/cli/validate.md). Diagnostics that belong
 * to a file rather than to one of its documents (unreadable file, YAML syntax, a `--crd` file that is
 * no CRD, the flow-expression leniency) are in `files`, so every entry of `objects` is a real document
 * and counting accepted objects counts documents.
 */
export interface JsonReport {
  /** One entry per file with file-level diagnostics, in the order of their first diagnostic. */
  files: {
    file: string;
    /** False when one of its file-level diagnostics is an error: its documents were not validated. */
    accepted: boolean;
    diagnostics: JsonDiagnostic[];
  }[];
  objects: {
    file: string;
    apiVersion: string;
    kind: string;
    name: string;
    accepted: boolean;
    diagnostics: JsonDiagnostic[];
  }[];
}

export function toJsonReport(
  objects: readonly ObjectReport[],
  fileDiagnostics: readonly Diagnostic[] = [],
): JsonReport {
  const byFile = new Map<string, Diagnostic[]>();
  for (const d of fileDiagnostics) {
    const file = d.location?.file ?? '';
    byFile.set(file, [...(byFile.get(file) ?? []), d]);
  }
  return {
    files: [...byFile].map(([file, ds]) => ({
      file,
      accepted: ds.every((d) => d.severity !== 'error'),
      diagnostics: ds.map(toJsonDiagnostic),
    })),
    objects: objects.map((o) => ({
      file: o.file,
      apiVersion: o.apiVersion,
      kind: o.kind,
      name: o.name,
      accepted: o.accepted,
      diagnostics: o.diagnostics.map(toJsonDiagnostic),
    })),
  };
}

function toJsonDiagnostic(d: Diagnostic): JsonDiagnostic {
  return {
    severity: d.severity,
    code: d.code,
    message: d.message,
    node: d.node ?? null,
    path: d.path ?? null,
    line: d.location?.line ?? null,
    column: d.location?.column ?? null,
  };
}

export interface TextOptions {
  /** ANSI colours. */
  color?: boolean;
}

/**
 * Formats one diagnostic:
 *
 *   graph.yaml:7:13 - error KG2013: id is reserved: "each" cannot be used as a node id
 *     node each · spec.nodes[0].id
 *
 *   7     - id: each
 *                ~~~~
 */
export function formatDiagnostic(
  d: Diagnostic,
  source: SourceFile | undefined,
  opts: TextOptions = {},
): string {
  const c = colors(opts.color === true);
  const loc = d.location;
  const where = loc?.file
    ? `${c.cyan(loc.file)}${loc.line ? `:${c.yellow(String(loc.line))}:${c.yellow(String(loc.column ?? 1))}` : ''} - `
    : '';
  const sev =
    d.severity === 'error' ? c.red('error') : d.severity === 'warning' ? c.yellow('warning') : c.blue('info');
  let out = `${where}${sev} ${c.gray(d.code)}: ${d.message}\n`;
  const ctx = [d.node ? `node ${d.node}` : '', d.path ?? ''].filter((s) => s !== '').join(' · ');
  if (ctx) out += `  ${c.gray(ctx)}\n`;
  if (source && loc?.line) {
    const text = source.line(loc.line).replace(/\t/g, ' ');
    const num = String(loc.line);
    const col = Math.max(1, loc.column ?? 1);
    const avail = Math.max(1, text.length - (col - 1));
    const len = Math.max(1, Math.min(loc.length ?? 1, avail));
    out += `\n${c.inverse(num)} ${text}\n${' '.repeat(num.length)} ${' '.repeat(col - 1)}${c.red('~'.repeat(len))}\n`;
  }
  if (d.hint) out += `  ${c.gray(`hint: ${d.hint}`)}\n`;
  return out;
}

/** Formats a whole report; `sources` gives the text of each file for the caret lines. */
export function formatTextReport(
  objects: readonly ObjectReport[],
  fileDiagnostics: readonly Diagnostic[],
  sources: ReadonlyMap<string, SourceFile>,
  opts: TextOptions = {},
): string {
  const c = colors(opts.color === true);
  let out = '';
  for (const d of fileDiagnostics)
    out += `${formatDiagnostic(d, sources.get(d.location?.file ?? ''), opts)}\n`;
  let errors = 0;
  let warnings = 0;
  for (const o of objects) {
    for (const d of o.diagnostics) {
      out += `${formatDiagnostic(d, sources.get(d.location?.file ?? o.file), opts)}\n`;
      if (d.severity === 'error') errors++;
      if (d.severity === 'warning') warnings++;
    }
  }
  for (const d of fileDiagnostics) {
    if (d.severity === 'error') errors++;
    if (d.severity === 'warning') warnings++;
  }
  for (const o of objects) {
    // kubectl's name for the object (`graph.kro.run/shop`); a document without a kind or apiVersion
    // (rejected for it) is named as well as it can be.
    const label = o.kind
      ? kubectlName({ apiVersion: o.apiVersion ?? '', kind: o.kind, name: o.name || '?' })
      : `object/${o.name || '?'}`;
    out += `${o.accepted ? c.green('✓ accepted') : c.red('✗ rejected')} ${label} (${o.file})\n`;
  }
  // A file that could not be read or parsed (or a --crd file that is no CRD) is rejected as a file:
  // what it holds was not validated, so it is neither an accepted nor a rejected object, and a file
  // holding only a YAML syntax error would otherwise sum up as `0/0 accepted`.
  const files = rejectedFiles(fileDiagnostics);
  for (const file of files) out += `${c.red('✗ rejected')} file ${file}\n`;
  const parts = [
    ...(objects.length > 0 || files.length === 0
      ? [`${objects.filter((o) => o.accepted).length}/${objects.length} accepted`]
      : []),
    ...(files.length > 0 ? [`${files.length} ${files.length === 1 ? 'file' : 'files'} rejected`] : []),
    `${errors} error(s)`,
    `${warnings} warning(s)`,
  ];
  out += `\n${parts.join(', ')}\n`;
  return out;
}

/** The files named by file-level errors, in the order of their first error. */
function rejectedFiles(fileDiagnostics: readonly Diagnostic[]): string[] {
  const files = new Set<string>();
  for (const d of fileDiagnostics) if (d.severity === 'error' && d.location?.file) files.add(d.location.file);
  return [...files];
}

/** The report's colours, from colorette (the library listr2's colours come from), switched by `on`. */
function colors(on: boolean) {
  const c = createColors({ useColor: on });
  return {
    red: c.red,
    green: c.green,
    yellow: c.yellow,
    blue: c.blue,
    cyan: c.cyan,
    gray: c.gray,
    inverse: c.inverse,
  };
}
