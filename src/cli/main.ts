import { relative } from 'node:path';
import { Command } from 'commander';
import { KgraphError } from '../diag/diagnostic.ts';
import { registerCommands } from './commands/index.ts';
import { fileSystemError, isFileSystemError } from './inputs.ts';
import { VERSION } from './version.ts';

/**
 * Builds the kgraph command tree for `argv`. Each command lives in its own module under ./commands,
 * imported only when `argv` needs it (commands/index.ts).
 */
export async function buildProgram(argv: readonly string[]): Promise<Command> {
  const program = new Command('kgraph')
    .description('Kubernetes resource graphs: compile, render and reconcile kro Graphs and RGDs')
    .version(VERSION, '-V, --version')
    .option('--no-color', 'no colours in any output (also: the NO_COLOR environment variable)')
    .showHelpAfterError();
  await registerCommands(program, argv);
  return program;
}

/**
 * `--no-color` anywhere on the line means NO_COLOR (https://no-color.org), which every
 * colour decision reads: colorette (listr2's colours), the validate and graph reports.
 */
export function applyNoColor(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): void {
  if (argv.includes('--no-color')) env.NO_COLOR = '1';
}

export async function main(argv: string[]): Promise<void> {
  applyNoColor(argv);
  try {
    const program = await buildProgram(argv);
    await program.parseAsync(argv);
  } catch (caught) {
    // Imported here: it reads the kube client's state, which `--version` or `validate` never loads.
    const { explainClusterError } = await import('./clusterErrors.ts');
    const cluster = explainClusterError(caught);
    // A file system error that no command turned into a diagnostic: KG6085 and the path, never
    // Node's `ENOENT: …, open 'x'`.
    const err = !cluster && isFileSystemError(caught) ? fileSystemError(caught) : caught;
    const message = cluster?.message ?? (err instanceof Error ? err.message : String(err));
    // A KgraphError carries a diagnostic code (DEVELOPERS.md): print it, as the diagnostics do.
    const code = cluster ? `${cluster.code}: ` : err instanceof KgraphError ? `${err.code}: ` : '';
    // Located (an SDK error raised while the user's package built an object): `file:line:col - error`,
    // the format of every located diagnostic.
    const at = !cluster && err instanceof KgraphError ? err.diagnostics[0]?.location : undefined;
    // A file without a line (one that cannot be read): `file - error …`.
    if (at?.file) {
      const rel = relative(process.cwd(), at.file);
      const file = rel && !rel.startsWith('..') ? rel : at.file;
      const where = at.line !== undefined ? `${file}:${at.line}:${at.column ?? 1}` : file;
      process.stderr.write(`${where} - error ${code}${message}\n`);
    } else process.stderr.write(`kgraph: ${code}${message}\n`);
    process.exitCode = process.exitCode && process.exitCode !== 0 ? process.exitCode : 1;
  }
}
