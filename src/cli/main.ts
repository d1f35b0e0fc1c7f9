import { Command } from 'commander';
import { KgraphError } from '../diag/diagnostic.ts';
import { explainClusterError } from './clusterErrors.ts';
import { registerCommands } from './commands/index.ts';

/** Builds the kgraph command tree. Each command lives in its own module under ./commands. */
export function buildProgram(): Command {
  const program = new Command('kgraph')
    .description('Kubernetes resource graphs: compile, render and reconcile kro Graphs and RGDs')
    .version('0.1.0')
    .showHelpAfterError();
  registerCommands(program);
  return program;
}

export async function main(argv: string[]): Promise<void> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
  } catch (err) {
    const cluster = explainClusterError(err);
    const message = cluster?.message ?? (err instanceof Error ? err.message : String(err));
    // A KgraphError carries a diagnostic code (DEVELOPERS.md): print it, as the diagnostics do.
    const code = cluster ? `${cluster.code}: ` : err instanceof KgraphError ? `${err.code}: ` : '';
    process.stderr.write(`kgraph: ${code}${message}\n`);
    process.exitCode = process.exitCode && process.exitCode !== 0 ? process.exitCode : 1;
  }
}
