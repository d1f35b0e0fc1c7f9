import type { Command } from 'commander';
import { VERSION } from '../version.ts';

/** `kgraph version`, as `kubectl version --client`: the CLI's version and the Node.js it runs on. */
export function registerVersionCommand(program: Command): void {
  program
    .command('version')
    .description('print the kgraph version')
    .option('-o, --output <format>', 'text or json', 'text')
    .action((opts: { output: string }) => {
      if (opts.output === 'json') {
        process.stdout.write(`${JSON.stringify({ kgraph: VERSION, node: process.versions.node })}\n`);
      } else if (opts.output === 'text') {
        process.stdout.write(`kgraph ${VERSION} (node ${process.versions.node})\n`);
      } else throw new Error(`unknown output format "${opts.output}" (use text or json)`);
    });
}
