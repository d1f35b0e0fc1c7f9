import { dirname, join, resolve } from 'node:path';
import { type Command, Option } from 'commander';
import { defaultDevDataDir, devClusterDown } from '../../localplane/devCluster.ts';
import { repoRoot } from '../../localplane/localControlPlane.ts';
import { parseDuration } from '../duration.ts';
import { stopController } from '../up/controllerProcess.ts';
import type { UpCliOptions } from '../up/options.ts';
import { runUp } from '../up/run.ts';
import { stopUi } from '../up/ui.ts';
import { DEFAULT_UI_ADDR } from './ui.ts';

export function registerUpCommands(program: Command): void {
  program
    .command('up')
    .description(
      'start the local control plane and the Graph controller, apply the examples, wait until they converge',
    )
    .option('--data-dir <dir>', 'control-plane state directory', defaultDevDataDir())
    .option('--examples <dir>', 'Graphs (and RGDs) to apply', join(repoRoot, 'examples', 'graphs'))
    .option('--rgds <dir>', 'ResourceGraphDefinitions to apply', join(repoRoot, 'examples', 'rgd'))
    .option(
      '--instances <dir>',
      'instances of those RGDs, applied once their kinds are served',
      join(repoRoot, 'examples', 'instances'),
    )
    .option(
      '--objects <dir>',
      'plain objects the examples need (namespaces, RBAC, data), applied first',
      join(repoRoot, 'examples', 'cluster'),
    )
    .option('--timeout <duration>', 'how long to wait for the Graphs to become Ready', '2m')
    .option('--no-controller', 'do not run the controller (apply only)')
    .option('--foreground', 'keep the controller in this process until Ctrl-C instead of returning')
    // The old opt-in for what is now the default; still accepted.
    .addOption(new Option('--detach').hideHelp())
    .option('--no-ui', 'do not serve the `kgraph ui` page beside the controller')
    .option('--ui-addr <host:port>', 'address of the `kgraph ui` page', DEFAULT_UI_ADDR)
    .option(
      '--planes',
      'multi-plane blueprints instead: management, host and consumer planes (docs/planes.md)',
    )
    .option('--consumers <n>', 'with --planes: consumer clusters', '2')
    .action(async (opts: UpCliOptions & { planes?: boolean; consumers: string }) => {
      if (opts.planes) {
        const { runUpPlanes } = await import('../up/planes.ts');
        const dataDir =
          opts.dataDir === defaultDevDataDir() ? join(dirname(opts.dataDir), 'planes') : opts.dataDir;
        const code = await runUpPlanes(
          {
            consumers: Number(opts.consumers),
            dataDir,
            timeoutMs: Math.max(parseDuration(opts.timeout, '--timeout'), 180_000),
          },
          (l) => process.stdout.write(`${l}\n`),
        );
        process.exit(code);
      }
      const code = await runUp(opts);
      // Nothing may keep a finished `up` alive (renderer timers, keep-alive sockets); stdout to a
      // terminal or a pipe is written synchronously on Linux, so exiting here loses no output.
      process.exit(code);
    });

  program
    .command('down')
    .description('stop what `kgraph up` started: the Graph controller and the local control plane')
    .option('--data-dir <dir>', 'control-plane state directory', defaultDevDataDir())
    .action(async (opts: { dataDir: string }) => {
      const dataDir = resolve(opts.dataDir);
      const stopped = await stopController(dataDir);
      process.stdout.write(
        stopped ? `controller stopped (pid ${stopped.pid}, ${stopped.mode})\n` : 'no controller running\n',
      );
      const page = await stopUi(dataDir);
      if (page) process.stdout.write(`ui stopped (pid ${page.pid}, ${page.url})\n`);
      const down = await devClusterDown(dataDir);
      process.stdout.write(
        down ? 'control plane stopped (its data is kept)\n' : 'no control plane running\n',
      );
    });
}
