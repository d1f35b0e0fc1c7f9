import { join } from 'node:path';
import { type Command, InvalidArgumentError, Option } from 'commander';
import {
  defaultDevDataDir,
  devClusterDown,
  devClusterStatus,
  devClusterUp,
} from '../../localplane/devCluster.ts';
import {
  createWorkspace,
  kcpBinary,
  kcpStatus,
  startKcp,
  stopKcp,
} from '../../localplane/kcpControlPlane.ts';

/** kcp's data dir beside the plain control plane's (`.dev/cluster` → `.dev/kcp`). */
const kcpDir = (dataDir: string): string => join(dataDir, '..', 'kcp');

async function kcpUp(dataDir: string, workspaces: string[]): Promise<void> {
  const log = (line: string) => process.stderr.write(`${line}\n`);
  let ready = kcpStatus(dataDir);
  const reused = ready !== undefined;
  if (!ready) {
    const binary = kcpBinary({ build: true, log });
    log('starting kcp (about 40 s)…');
    ready = await startKcp({ dataDir, detached: true, binary });
  }
  const made: string[] = [];
  for (const name of workspaces) {
    const ws = await createWorkspace({ ...ready, dataDir }, name);
    made.push(`workspace ${ws.path} (logical cluster ${ws.cluster}): KUBECONFIG=${ws.kubeconfigPath}\n`);
  }
  process.stdout.write(
    `${reused ? 'kcp already running' : 'kcp started'} at ${ready.server} (pid ${ready.pid})\n` +
      `data: ${dataDir}\n` +
      made.join('') +
      `\n  export KUBECONFIG=${ready.kubeconfig}\n  kubectl get workspaces\n\n` +
      'stop it with: npx kgraph cluster down --kcp\n',
  );
}

const intAtLeast =
  (min: number) =>
  (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min) throw new InvalidArgumentError(`expected a whole number >= ${min}`);
    return n;
  };

export function registerClusterCommands(program: Command): void {
  const cluster = program
    .command('cluster')
    .description('a persistent local Kubernetes control plane for development');

  cluster
    .command('up')
    .description('start (or reuse) the local control plane; its data survives restarts')
    .addOption(dataDirOption('state directory (etcd, PKI, kubeconfig)'))
    .option(
      '--no-workloads',
      'API server and garbage-collector/namespace controllers only: no scheduler, workload controllers or simulated nodes',
    )
    .option('--nodes <n>', 'simulated nodes (KWOK; no container runs)', intAtLeast(0), 3)
    .option('--zones <n>', 'zones the simulated nodes spread over', intAtLeast(1), 2)
    .option(
      '--kcp',
      'start a local kcp instead (built from Go modules on first use; data beside --data-dir, in ../kcp)',
    )
    .option('--workspaces <names>', 'with --kcp: workspaces to create under root, comma-separated', '')
    .action(
      async (opts: {
        dataDir: string;
        workloads: boolean;
        nodes: number;
        zones: number;
        kcp?: boolean;
        workspaces: string;
      }) => {
        if (opts.kcp) {
          await kcpUp(
            kcpDir(opts.dataDir),
            opts.workspaces.split(',').filter((w) => w !== ''),
          );
          return;
        }
        const log = (line: string) => process.stderr.write(`${line}\n`);
        const { ready, reused } = await devClusterUp(opts.dataDir, log, {
          workloads: opts.workloads,
          nodes: opts.nodes,
          zones: opts.zones,
        });
        const nodes = ready.nodes ?? [];
        process.stdout.write(
          `${reused ? 'control plane already running' : 'control plane started'} at ${ready.server} (pid ${ready.pid})\n` +
            `data: ${opts.dataDir}\n` +
            (ready.withWorkloads
              ? `workloads: scheduler, workload controllers, ${nodes.length} simulated node(s) ${nodes.join(', ')} (pods report Running; no container runs)\n`
              : 'workloads: off (pods stay Pending)\n') +
            '\n' +
            `  export KUBECONFIG=${ready.kubeconfig}\n  kubectl get ns\n\n` +
            `stop it with: npx kgraph cluster down${opts.dataDir === defaultDevDataDir() ? '' : ` --data-dir ${opts.dataDir}`}\n`,
        );
      },
    );

  cluster
    .command('down')
    .description('stop the local control plane (its data is kept)')
    .addOption(dataDirOption('state directory'))
    .option('--kcp', 'stop the local kcp instead')
    .action(async (opts: { dataDir: string; kcp?: boolean }) => {
      if (opts.kcp) {
        const stopped = await stopKcp(kcpDir(opts.dataDir));
        process.stdout.write(stopped ? 'kcp stopped\n' : 'no kcp running\n');
        return;
      }
      const stopped = await devClusterDown(opts.dataDir);
      process.stdout.write(stopped ? 'control plane stopped\n' : 'no control plane running\n');
    });

  cluster
    .command('status')
    .description('print whether the local control plane runs, and its kubeconfig')
    .addOption(dataDirOption('state directory'))
    .action((opts: { dataDir: string }) => {
      const s = devClusterStatus(opts.dataDir);
      if (s.running && s.ready)
        process.stdout.write(`running at ${s.ready.server}\nexport KUBECONFIG=${s.ready.kubeconfig}\n`);
      else {
        process.stdout.write('not running\n');
        process.exitCode = 1;
      }
    });
}

/**
 * `--data-dir`, defaulting to .dev/cluster under the current directory. Help shows the default as that
 * relative path, not the absolute one: the help text (and docs/cli/cluster.md, captured from it) would
 * otherwise depend on where the checkout is, and wrap differently.
 */
function dataDirOption(description: string): Option {
  return new Option('--data-dir <dir>', description).default(defaultDevDataDir(), './.dev/cluster');
}
