import { type Command, InvalidArgumentError } from 'commander';
import { defaultDevDataDir, devClusterDown, devClusterStatus, devClusterUp } from '../../kube/devCluster.ts';

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
    .option('--data-dir <dir>', 'state directory (etcd, PKI, kubeconfig)', defaultDevDataDir())
    .option(
      '--no-workloads',
      'API server and garbage-collector/namespace controllers only: no scheduler, workload controllers or simulated nodes',
    )
    .option('--nodes <n>', 'simulated nodes (KWOK; no container runs)', intAtLeast(0), 3)
    .option('--zones <n>', 'zones the simulated nodes spread over', intAtLeast(1), 2)
    .action(async (opts: { dataDir: string; workloads: boolean; nodes: number; zones: number }) => {
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
          `stop it with: kgraph cluster down${opts.dataDir === defaultDevDataDir() ? '' : ` --data-dir ${opts.dataDir}`}\n`,
      );
    });

  cluster
    .command('down')
    .description('stop the local control plane (its data is kept)')
    .option('--data-dir <dir>', 'state directory', defaultDevDataDir())
    .action(async (opts: { dataDir: string }) => {
      const stopped = await devClusterDown(opts.dataDir);
      process.stdout.write(stopped ? 'control plane stopped\n' : 'no control plane running\n');
    });

  cluster
    .command('status')
    .description('print whether the local control plane runs, and its kubeconfig')
    .option('--data-dir <dir>', 'state directory', defaultDevDataDir())
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
