/**
 * Input files of the commands: `-` reads standard input (kubectl's `-f -`), and a file that is
 * missing or unreadable is one coded error (KG6085) naming the option and the path, never a bare
 * `ENOENT … open 'x'` or a stack trace through our sources.
 */
import { readFileSync, statSync } from 'node:fs';
import { relative } from 'node:path';
import { type Diagnostic, KgraphError } from '../diag/diagnostic.ts';
import { fileErrorReason } from '../diag/fileError.ts';

/** How standard input is named in diagnostics (`<stdin>:3:5 - error …`). */
export const STDIN_NAME = '<stdin>';

export const UNREADABLE_INPUT = 'KG6085';

let stdinText: string | undefined;

/** Standard input, read once (several `-` on one line share it). */
export function readStdin(): string {
  stdinText ??= readFileSync(0, 'utf8');
  return stdinText;
}

/** A Node.js file system error (it carries `code` and `path`), which main.ts turns into KG6085. */
export function isFileSystemError(err: unknown): err is NodeJS.ErrnoException & { path: string } {
  return (
    err instanceof Error &&
    typeof (err as NodeJS.ErrnoException).code === 'string' &&
    typeof (err as NodeJS.ErrnoException).path === 'string' &&
    typeof (err as NodeJS.ErrnoException).syscall === 'string'
  );
}

/** A file system error thrown where no option is known: KG6085 with its path. */
export function fileSystemError(err: NodeJS.ErrnoException & { path: string }): KgraphError {
  return unreadable(err.path, err);
}

function unreadable(file: string, err: unknown, option?: string): KgraphError {
  // Located at the file, so main.ts prints it as every diagnostic: `file - error KG6085: …`.
  const message = `${option ? `${option}: ` : ''}cannot read: ${fileErrorReason(err)}`;
  return new KgraphError(UNREADABLE_INPUT, message, [
    { severity: 'error', code: UNREADABLE_INPUT, message, location: { file } },
  ]);
}

/** Throws KG6085 unless `file` exists (a file, or a directory when `directory` allows it). */
export function requireInput(file: string, option?: string, directory = false): void {
  if (file === '-') return;
  let isDirectory: boolean;
  try {
    isDirectory = statSync(file).isDirectory();
  } catch (err) {
    throw unreadable(file, err, option);
  }
  if (isDirectory && !directory)
    throw unreadable(file, Object.assign(new Error(), { code: 'EISDIR' }), option);
}

/** The text of an input file, or of standard input for `-`. */
export function readInput(file: string, option?: string): string {
  if (file === '-') return readStdin();
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw unreadable(file, err, option);
  }
}

/**
 * The positional file(s) and `-f/--filename` together: the inputs of validate, render and crd.
 * Absent both, the command names what it needs.
 */
export function inputFiles(
  positional: readonly string[],
  filenames: readonly string[] | undefined,
): string[] {
  const all = [...positional, ...(filenames ?? [])];
  if (all.length === 0) {
    throw new KgraphError('KG6086', 'no input: name a file or directory, or `-f -` to read standard input');
  }
  return all;
}

/**
 * Inputs for the compiler (graph/validate.ts): `-` becomes `<stdin>`, given by its text, so
 * diagnostics say `<stdin>:3:5`.
 */
export function withStdin(files: readonly string[]): { paths: string[]; inline: Map<string, string> } {
  const inline = new Map<string, string>();
  const paths = files.map((f) => {
    if (f !== '-') return f;
    inline.set(STDIN_NAME, readStdin());
    return STDIN_NAME;
  });
  return { paths, inline };
}

/**
 * A diagnostic outside a validate report (synth's and deploy's SDK warnings) in the one format of
 * every command: `file:line:col - severity CODE: message`, the file relative to the working
 * directory when it is under it.
 */
export function diagnosticLine(d: Diagnostic): string {
  const at = d.location;
  let where = '';
  if (at?.file) {
    const rel = relative(process.cwd(), at.file);
    const file = rel && !rel.startsWith('..') ? rel : at.file;
    where = `${at.line !== undefined ? `${file}:${at.line}:${at.column ?? 1}` : file} - `;
  }
  const context = [d.node ? `node ${d.node}` : '', d.path ?? ''].filter((x) => x !== '').join(' · ');
  return `${where}${d.severity} ${d.code}: ${d.message}\n${context ? `  ${context}\n` : ''}`;
}
