/**
 * `kgraph controller`: the Graph controller, the RGD controller and (--planes) the planes controller in
 * one process, run by the manager (controller/host/manager.ts). This module turns options into the
 * manager's options and handles signals; the manager imports each controller only when it runs.
 */
import { hostname } from 'node:os';
import type { Command } from 'commander';
import { controllerClient } from '../../controller/core/writeDefaults.ts';
import { Manager } from '../../controller/host/manager.ts';
import { connect } from '../../kube/connect.ts';
import { startTracing, stopTracing } from '../../kube/tracing/tracing.ts';
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
  replicasMode: string;
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
  rgdMaxGraphRevisions: string;
  planes?: boolean;
  planesKcp?: boolean;
  hostKubeconfig?: string;
  planesNamespace: string;
  singleReplica?: boolean;
  events: boolean;
  instanceConditionEvents?: boolean;
  historySize: string;
  tracingEndpoint?: string;
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
    .option(
      '--leader-elect',
      'elect a leader on a Lease before reconciling (= --replicas-mode active-passive)',
    )
    .option(
      '--replicas-mode <mode>',
      'single (this process does everything), active-passive (one leader reconciles, others wait) or sharded (replicas share the buckets through Leases; docs/operations.md)',
      'single',
    )
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
    .option('--rgd-max-graph-revisions <n>', 'GraphRevisions kept per RGD, newest first (0 keeps all)', '5')
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
    .option('--no-events', 'write no Kubernetes Events (docs/observability.md)')
    .option(
      '--instance-condition-events',
      "kro's InstanceConditionEvents: an Event on every instance condition transition",
    )
    .option('--history-size <n>', 'reconcile passes remembered per object for --history (0: none)', '20')
    .option(
      '--tracing-endpoint <url>',
      'export OpenTelemetry traces over OTLP/gRPC (default: off unless OTEL_EXPORTER_OTLP_ENDPOINT is set)',
    )
    .option('--log-level <level>', 'pino log level', 'info')
    .option(
      '--log-format <format>',
      'auto (readable lines on a terminal, JSON otherwise), text or json',
      parseLogFormat,
      'auto' as LogFormat,
    )
    .action(async (opts: ControllerCliOptions) => {
      // Before anything sends a request; the SDK is imported only when tracing is on.
      await startTracing(opts.tracingEndpoint ? { endpoint: opts.tracingEndpoint } : {});
      const manager = await managerFromOptions(opts);
      const shutdown = async (): Promise<void> => {
        await manager.stop();
        await stopTracing();
        process.exit(0);
      };
      process.once('SIGINT', () => void shutdown());
      process.once('SIGTERM', () => void shutdown());
      await manager.start();
    });
}

/** Checks the options (before connecting) and builds the manager they describe. */
async function managerFromOptions(opts: ControllerCliOptions): Promise<Manager> {
  // The one duration syntax of every option (duration.ts); bare numbers stay seconds.
  const leaseMs = parseDuration(opts.leaseDuration, '--lease-duration');
  if (!(leaseMs > 0)) throw new Error('--lease-duration must be positive');
  if (opts.planesKcp && !opts.planes) throw new Error('--planes-kcp needs --planes');
  if (!opts.planes && opts.hostKubeconfig) throw new Error('--host-kubeconfig needs --planes');
  if (opts.singleReplica && !opts.planes) throw new Error('--single-replica needs --planes');
  if (opts.singleReplica && opts.leaderElect)
    throw new Error('--single-replica and --leader-elect exclude each other: the Lease decides who sweeps');
  const mode = opts.leaderElect ? 'active-passive' : opts.replicasMode;
  if (!['single', 'active-passive', 'sharded'].includes(mode))
    throw new Error('--replicas-mode must be single, active-passive or sharded');
  if (opts.leaderElect && opts.replicasMode === 'sharded')
    throw new Error('--leader-elect and --replicas-mode sharded exclude each other');
  if (mode === 'sharded' && opts.planesKcp)
    throw new Error('--replicas-mode sharded does not run --planes-kcp (the planes on kcp run unsharded)');
  if (mode === 'sharded' && opts.singleReplica)
    throw new Error(
      '--single-replica and --replicas-mode sharded exclude each other: the coordinator sweeps',
    );
  const concurrency = positiveInteger(opts.concurrency, '--concurrency');
  const rgdConcurrency = positiveInteger(opts.rgdConcurrency, '--rgd-concurrency');
  const maxGraphRevisions = Number(opts.rgdMaxGraphRevisions);
  if (!Number.isInteger(maxGraphRevisions) || maxGraphRevisions < 0)
    throw new Error('--rgd-max-graph-revisions must be a non-negative integer');
  const historyPerObject = Number(opts.historySize);
  if (!Number.isInteger(historyPerObject) || historyPerObject < 0)
    throw new Error('--history-size must be a non-negative integer');
  if (!opts.graphs && !opts.rgds && !opts.planes)
    throw new Error('--no-graphs and --no-rgds leave nothing to do');
  const log = await commandLogger('kgraph-controller', opts.logLevel, opts.logFormat);
  // The controllers' writes skip the server's strict decoding (core/writeDefaults.ts).
  const identity = `${hostname()}_${process.pid}`;
  // Sharded, each replica's requests carry its identity (the API server's audit log tells them apart).
  const userAgent = mode === 'sharded' ? { userAgent: `kgraph/0.1 replica/${identity}` } : {};
  const management = (): ReturnType<typeof controllerClient> =>
    controllerClient(
      connect(opts.kubeconfig, { ...(opts.context ? { context: opts.context } : {}), ...userAgent }),
    );
  const client = management();
  return Manager.create({
    client,
    log,
    ...(opts.graphs ? { graphs: { concurrency } } : {}),
    ...(opts.rgds
      ? {
          rgds: {
            concurrency: rgdConcurrency,
            deleteCrds: opts.deleteRgdCrds === true,
            maxGraphRevisions,
            ...(opts.rgdSelector ? { selector: opts.rgdSelector } : {}),
          },
        }
      : {}),
    ...(opts.planes
      ? {
          planes: {
            kcp: opts.planesKcp === true,
            namespace: opts.planesNamespace,
            singleReplica: opts.singleReplica === true,
            ...(opts.hostKubeconfig ? { host: connect(opts.hostKubeconfig) } : {}),
            // A client of the planes' own beside the Graph and RGD controllers, so their requests
            // are counted apart.
            ...(opts.graphs || opts.rgds ? { client: management() } : {}),
          },
        }
      : {}),
    ...(opts.namespace ? { namespaces: opts.namespace } : {}),
    installCrds: opts.installCrd,
    ...(mode === 'sharded'
      ? {
          sharding: {
            namespace: opts.leaderElectionNamespace ?? process.env.POD_NAMESPACE ?? 'default',
            identity,
            leaseDurationMs: leaseMs,
          },
        }
      : {}),
    ...(mode === 'active-passive'
      ? {
          leaderElection: {
            namespace: opts.leaderElectionNamespace ?? process.env.POD_NAMESPACE ?? 'default',
            identity: `${hostname()}_${process.pid}`,
            leaseDurationMs: leaseMs,
          },
        }
      : {}),
    metricsAddr: opts.metricsAddr,
    healthAddr: opts.healthAddr,
    observe: {
      events: opts.events,
      conditionEvents: opts.instanceConditionEvents === true,
      historyPerObject,
    },
    onLostLeadership: () => {
      log.error(mode === 'sharded' ? 'exiting: membership or coordination lost' : 'exiting: leadership lost');
      process.exit(1);
    },
  });
}

function positiveInteger(value: string, option: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${option} must be a positive integer`);
  return n;
}
