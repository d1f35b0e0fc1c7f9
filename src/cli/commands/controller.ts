/**
 * `kgraph controller`: the Graph controller, the RGD controller and (--planes) the planes controller in
 * one process. Each is imported only when it runs (`--no-graphs` loads none of the Graph
 * controller's modules, `--no-rgds` none of the RGD side's, the planes only with --planes), so a
 * process holds the code of what it serves and nothing else.
 */
import { hostname } from 'node:os';
import type { Command } from 'commander';
import { controllerClient } from '../../controller/core/writeDefaults.ts';
import type { LeaderElector } from '../../controller/host/leaderElection.ts';
import { exposition } from '../../controller/host/metricsEndpoint.ts';
import { serve } from '../../controller/host/probes.ts';
import type { SweepAuthority } from '../../controller/planes/sweeper.ts';
import { connect } from '../../kube/connect.ts';
import { parseDuration } from '../duration.ts';
import { commandLogger, type LogFormat, parseLogFormat } from '../logger.ts';

interface ControllerCliOptions {
  kubeconfig?: string;
  context?: string;
  namespace?: string[];
  concurrency: string;
  metricsAddr: string;
  healthAddr: string;
  leaderElect?: boolean;
  leaderElectionNamespace?: string;
  leaseDuration: string;
  installCrd: boolean;
  logLevel: string;
  logFormat: LogFormat;
  graphs: boolean;
  rgds: boolean;
  rgdSelector?: string;
  rgdConcurrency: string;
  deleteRgdCrds?: boolean;
  planes?: boolean;
  planesKcp?: boolean;
  hostKubeconfig?: string;
  planesNamespace: string;
  singleReplica?: boolean;
}

export function registerControllerCommand(program: Command): void {
  program
    .command('controller')
    .description(
      'run the controller: reconcile kro.run/v1alpha1 Graphs and ResourceGraphDefinitions (and their instances)',
    )
    .option('--kubeconfig <path>', 'kubeconfig (default: KUBECONFIG, ~/.kube/config, in-cluster)')
    .option('--context <name>', 'kubeconfig context')
    .option('--namespace <ns...>', 'reconcile only Graphs of these namespaces (default: all)')
    .option('--concurrency <n>', 'Graphs reconciled in parallel', '1')
    .option('--metrics-addr <addr>', 'Prometheus /metrics address ("0" disables)', ':8080')
    .option('--health-addr <addr>', '/healthz and /readyz address ("0" disables)', ':8081')
    .option('--leader-elect', 'elect a leader on a Lease before reconciling')
    .option('--leader-election-namespace <ns>', 'namespace of the Lease (default: POD_NAMESPACE or default)')
    .option(
      '--lease-duration <duration>',
      'leader Lease duration (e.g. 15s; bare numbers are seconds); renewals every duration/7.5',
      '15s',
    )
    .option('--no-install-crd', 'do not apply the Graph and RGD CRDs on start')
    .option('--no-graphs', 'do not reconcile Graphs')
    .option('--no-rgds', 'do not reconcile ResourceGraphDefinitions and their instances')
    .option('--rgd-selector <labels>', 'serve only RGDs with these labels (k=v,k2=v2)')
    .option('--rgd-concurrency <n>', 'RGD instances reconciled in parallel', '1')
    .option(
      '--delete-rgd-crds',
      "delete an RGD's generated CRD (and so its instances) when the RGD is deleted",
    )
    .option(
      '--planes',
      'also serve krop multi-plane blueprints to registered consumer clusters (docs/planes.md)',
    )
    .option(
      '--planes-kcp',
      'with --planes: the kubeconfig points at a kcp provider workspace; publish APIExports and serve the consumers bound to them (docs/kcp.md)',
    )
    .option(
      '--host-kubeconfig <path>',
      'with --planes: the host cluster (absent: host-target nodes fail closed)',
    )
    .option(
      '--planes-namespace <ns>',
      'with --planes: namespace of ConsumerCluster Secrets and liveness records',
      'kgraph-system',
    )
    .option(
      '--single-replica',
      'with --planes and without --leader-elect: declare this the only replica, so the liveness sweeper may run',
    )
    .option('--log-level <level>', 'pino log level', 'info')
    .option(
      '--log-format <format>',
      'auto (readable lines on a terminal, JSON otherwise), text or json',
      parseLogFormat,
      'auto' as LogFormat,
    )
    .action(async (opts: ControllerCliOptions) => {
      // The one duration syntax of every option (duration.ts); bare numbers stay seconds. Checked
      // before connecting, as every other option.
      const leaseSeconds = parseDuration(opts.leaseDuration, '--lease-duration') / 1000;
      if (!(leaseSeconds > 0)) throw new Error('--lease-duration must be positive');
      if (opts.planesKcp && !opts.planes) throw new Error('--planes-kcp needs --planes');
      if (!opts.planes && opts.hostKubeconfig) throw new Error('--host-kubeconfig needs --planes');
      if (opts.singleReplica && !opts.planes) throw new Error('--single-replica needs --planes');
      if (opts.singleReplica && opts.leaderElect)
        throw new Error(
          '--single-replica and --leader-elect exclude each other: the Lease decides who sweeps',
        );
      const log = await commandLogger('kgraph-controller', opts.logLevel, opts.logFormat);
      // The controllers' writes skip the server's strict decoding (writeDefaults.ts).
      const client = controllerClient(
        connect(opts.kubeconfig, opts.context ? { context: opts.context } : {}),
      );
      const concurrency = Number(opts.concurrency);
      if (!Number.isInteger(concurrency) || concurrency < 1)
        throw new Error('--concurrency must be a positive integer');
      const rgdConcurrency = Number(opts.rgdConcurrency);
      if (!Number.isInteger(rgdConcurrency) || rgdConcurrency < 1)
        throw new Error('--rgd-concurrency must be a positive integer');
      if (!opts.graphs && !opts.rgds && !opts.planes)
        throw new Error('--no-graphs and --no-rgds leave nothing to do');
      // Both sides check reads as ServiceAccounts: one cache and one RBAC watch serve them, so an
      // answer is asked once and RBAC events are decoded once (the Graph side starts the watch).
      const sharedReads =
        opts.graphs && opts.rgds
          ? (await import('../../controller/core/rbacChanges.ts')).sharedReadAccess(client, { log })
          : undefined;
      const graphs = opts.graphs
        ? new (await import('../../controller/graph/controller.ts')).GraphController({
            client,
            ...(sharedReads ? { sharedReads } : {}),
            ...(opts.namespace ? { namespaces: opts.namespace } : {}),
            concurrency,
            installCrd: opts.installCrd,
            log,
          })
        : undefined;
      const rgds = opts.rgds
        ? new (await import('../../controller/rgd/controller.ts')).RgdController({
            client,
            ...(sharedReads ? { sharedReads } : {}),
            ...(opts.namespace ? { namespaces: opts.namespace } : {}),
            ...(opts.rgdSelector ? { rgdSelector: opts.rgdSelector } : {}),
            concurrency: rgdConcurrency,
            deleteCrds: opts.deleteRgdCrds === true,
            installCrd: opts.installCrd,
            log,
          })
        : undefined;
      let leader: LeaderElector | undefined;
      // design/planes.md §13.4: the sweeper runs on the leader only; without leader election only when the operator
      // declares a single replica (otherwise it refuses and says so in the log).
      const sweepAuthority: SweepAuthority = opts.leaderElect
        ? { isLeader: () => leader?.isLeader === true }
        : opts.singleReplica
          ? { singleReplica: true }
          : { none: true };
      const planes = opts.planesKcp
        ? new (await import('../../controller/planes/kcp/controller.ts')).KcpPlanesController({
            provider: client,
            ...(opts.hostKubeconfig ? { host: connect(opts.hostKubeconfig) } : {}),
            namespace: opts.planesNamespace,
            installCrds: opts.installCrd,
            log,
            sweepAuthority,
          })
        : opts.planes
          ? new (await import('../../controller/planes/controller.ts')).PlanesController({
              // A management-cluster client of its own, so the planes requests are counted apart
              // (kgraph_planes_api_requests_total{plane="provider"}) from the Graph and RGD controllers'.
              client:
                opts.graphs || opts.rgds
                  ? controllerClient(connect(opts.kubeconfig, opts.context ? { context: opts.context } : {}))
                  : client,
              ...(opts.hostKubeconfig ? { host: connect(opts.hostKubeconfig) } : {}),
              namespace: opts.planesNamespace,
              installCrds: opts.installCrd,
              log,
              sweepAuthority,
            })
          : undefined;
      // One process, one client: the request counters are process-wide, so one metrics object renders them.
      const controller = {
        metrics: graphs?.metrics ?? rgds?.metrics,
        ready: () => (graphs?.ready() ?? true) && (rgds?.ready() ?? true) && (planes?.ready() ?? true),
        start: async () => {
          await graphs?.start();
          await rgds?.start();
          await planes?.start();
        },
        stop: async () => {
          await graphs?.stop();
          await rgds?.stop();
          await sharedReads?.watch.stop();
          await planes?.stop();
        },
      };
      const servers: import('node:http').Server[] = [];
      if (opts.metricsAddr !== '0') {
        const same = opts.metricsAddr === opts.healthAddr;
        servers.push(
          await serve(opts.metricsAddr, {
            // prom-client: the controllers' registries (the planes series included) plus the process
            // and runtime metrics.
            metrics: exposition([
              ...(controller.metrics ? [controller.metrics.registry] : []),
              ...(planes && 'metrics' in planes ? [planes.metrics.registry] : []),
            ]),
            ...(same
              ? {
                  healthy: () => true,
                  ready: () => controller.ready() || (leader !== undefined && !leader.isLeader),
                }
              : {}),
          }),
        );
      }
      if (opts.healthAddr !== '0' && opts.healthAddr !== opts.metricsAddr) {
        // A standby replica (not leader) is ready: it is healthy and waiting for the Lease.
        servers.push(
          await serve(opts.healthAddr, {
            healthy: () => true,
            ready: () => controller.ready() || (leader !== undefined && !leader.isLeader),
          }),
        );
      }
      const shutdown = async (): Promise<void> => {
        leader?.stop();
        await controller.stop();
        for (const s of servers) s.close();
        client.close();
        process.exit(0);
      };
      process.once('SIGINT', () => void shutdown());
      process.once('SIGTERM', () => void shutdown());
      if (opts.leaderElect) {
        const identity = `${hostname()}_${process.pid}`;
        const { LeaderElector } = await import('../../controller/host/leaderElection.ts');
        leader = new LeaderElector({
          client,
          namespace: opts.leaderElectionNamespace ?? process.env.POD_NAMESPACE ?? 'default',
          name: 'kgraph-controller',
          identity,
          leaseDurationSeconds: Math.ceil(leaseSeconds),
          renewDeadlineMs: (leaseSeconds * 1000 * 2) / 3,
          retryPeriodMs: (leaseSeconds * 1000) / 7.5,
          onStartedLeading: async () => {
            log.info({ identity }, 'acquired leadership');
            await controller.start();
          },
          onStoppedLeading: () => {
            log.error({ identity }, 'lost leadership; exiting');
            process.exit(1);
          },
        });
        leader.start();
      } else {
        await controller.start();
      }
    });
}
