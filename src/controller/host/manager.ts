/**
 * The manager: one place that builds, starts and stops every controller a process runs (Graphs, RGDs
 * and their instances, planes on plain clusters or kcp), with what they share — one read-access cache
 * and RBAC watch for the Graph and RGD sides, one `/metrics` exposition, the `/healthz` `/readyz`
 * endpoints and the leader Lease. `kgraph controller` and `kgraph up` both run their controllers
 * through it, so they cannot drift apart.
 *
 * Each controller's module is imported only when that controller runs: `--no-graphs` loads none of the
 * Graph controller's code, `--no-rgds` none of the RGD side's, the planes only when asked for.
 */
import type http from 'node:http';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { RestClient } from '../../kube/index.ts';
import type { Observability } from '../core/observability.ts';
import type { SharedReadAccess } from '../core/rbacChanges.ts';
import { standardMetricsRegistry } from '../core/standardMetrics.ts';
import type { SweepAuthority } from '../planes/sweeper.ts';
import { LeaderElector } from './leaderElection.ts';
import { exposition } from './metricsEndpoint.ts';
import { buildObservability, historyAnswer, type ObserveOptions } from './observe.ts';
import { serve } from './probes.ts';
import type { Assignment, ShardedHost, ShardingOptions } from './shardedHost.ts';

/** One controller as the manager drives it. */
export interface Runnable {
  readonly name: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Informers synced and workers running. */
  ready(): boolean;
  /** Nothing queued or being processed (delayed retries excluded); absent where not tracked (planes). */
  idle?(): boolean;
  /** The controller's Prometheus registry, when it has one of its own. */
  readonly registry: Registry | undefined;
  /** Series only this controller has (rendered even when its `registry` is not: the RGD's revisions). */
  readonly ownSeries?: Registry;
  /** Objects in its caches. */
  cachedObjects?(): number;
}

export interface GraphsOptions {
  /** Graphs reconciled in parallel. @default 1 */
  concurrency?: number;
}

export interface RgdsOptions {
  /** Serve only RGDs with these labels (`k=v,k2=v2`). @default all RGDs */
  selector?: string;
  /** Instances reconciled in parallel. @default 1 */
  concurrency?: number;
  /** Delete an RGD's generated CRD (and so its instances) when the RGD is deleted. @default false */
  deleteCrds?: boolean;
  /** GraphRevisions kept per RGD, newest first; 0 keeps all. @default 5 */
  maxGraphRevisions?: number;
}

export interface PlanesOptions {
  /** The kubeconfig is a kcp provider workspace: publish APIExports instead of CRDs. @default false */
  kcp?: boolean;
  /** The host cluster; absent, host-target nodes fail closed. */
  host?: RestClient;
  /** Namespace of ConsumerCluster Secrets and liveness records. @default 'kgraph-system' */
  namespace?: string;
  /** Without leader election: this is the only replica, so the liveness sweeper may run. @default false */
  singleReplica?: boolean;
  /**
   * A management-cluster client of the planes' own, so their requests are counted apart
   * (`kgraph_planes_api_requests_total{plane="provider"}`). Absent: the manager's client.
   */
  client?: RestClient;
}

export interface ManagerLeaseOptions {
  /** Namespace of the Lease. */
  namespace: string;
  /** Name of the Lease. @default 'kgraph-controller' */
  name?: string;
  /** This replica's identity (host name and pid). */
  identity: string;
  /** Lease duration; renewals every duration/7.5, the renew deadline at 2/3 of it. @default 15 s */
  leaseDurationMs?: number;
}

export interface ManagerOptions {
  /** The management cluster with the controller's identity. The manager closes its clients on stop. */
  client: RestClient;
  log: Logger;
  /** Run the Graph controller. @default off */
  graphs?: GraphsOptions;
  /** Run the RGD controller and its instances. @default off */
  rgds?: RgdsOptions;
  /** Run the planes controller. @default off */
  planes?: PlanesOptions;
  /** Reconcile only these namespaces (Graphs and RGD instances). @default all */
  namespaces?: readonly string[];
  /** Apply the controllers' CRDs on start. @default true */
  installCrds?: boolean;
  /** Start the controllers only while holding this Lease. @default no election: start at once */
  leaderElection?: ManagerLeaseOptions;
  /** `/metrics` address (`host:port`; `'0'` or absent: not served). */
  metricsAddr?: string;
  /** `/healthz` `/readyz` address (`'0'` or absent: not served; the metrics address serves both when equal). */
  healthAddr?: string;
  /** Called when leadership is lost after it was held (the process should exit). */
  onLostLeadership?: () => void;
  /** Events and reconcile history (host/observe.ts). @default events on, 20 passes per object */
  observe?: ObserveOptions;
  /**
   * Run as one of several sharded replicas (design/sharding.md §3): controllers for the buckets the shard
   * map gives this replica (planes: the ConsumerClusters of those buckets); excludes `leaderElection`
   * (the coordinator is elected inside) and the planes on kcp.
   */
  sharding?: ShardingOptions;
}

export class Manager {
  private readonly runnables: Runnable[];
  private readonly sharedReads: SharedReadAccess | undefined;
  private readonly opts: ManagerOptions;
  readonly observe: Observability;
  private readonly servers: http.Server[] = [];
  private elector: LeaderElector | undefined;
  private sharded: ShardedHost | undefined;
  private started = false;

  private constructor(
    opts: ManagerOptions,
    runnables: Runnable[],
    sharedReads: SharedReadAccess | undefined,
    observe: Observability,
  ) {
    this.opts = opts;
    this.observe = observe;
    this.runnables = runnables;
    this.sharedReads = sharedReads;
  }

  /** Builds the controllers the options ask for (importing only their modules). */
  static async create(opts: ManagerOptions): Promise<Manager> {
    if (!opts.graphs && !opts.rgds && !opts.planes) throw new Error('the manager has no controller to run');
    if (opts.sharding)
      return (await import('./shardedManager.ts')).shardedManager(opts, opts.sharding, Manager.withSharded);
    // Both sides check reads as ServiceAccounts: one cache and one RBAC watch serve them, so an
    // answer is asked once and RBAC events are decoded once.
    const sharedReads =
      opts.graphs && opts.rgds
        ? (await import('../core/rbacChanges.ts')).sharedReadAccess(opts.client, { log: opts.log })
        : undefined;
    const holder: { manager?: Manager } = {};
    const runnables: Runnable[] = [];
    const observe = buildObservability(opts.client, opts.observe ?? {}, opts.log);
    if (opts.graphs) runnables.push(await graphRunnable(opts, opts.graphs, sharedReads, observe));
    if (opts.rgds) runnables.push(await rgdRunnable(opts, opts.rgds, sharedReads, observe));
    if (opts.planes) {
      // The sweeper runs on the leader only; without leader election only when the operator declares
      // a single replica (otherwise it refuses and says so in the log).
      const sweepAuthority: SweepAuthority = opts.leaderElection
        ? { isLeader: () => holder.manager?.isLeader === true }
        : opts.planes.singleReplica
          ? { singleReplica: true }
          : { none: true };
      runnables.push(await planesRunnable(opts, opts.planes, sweepAuthority));
    }
    holder.manager = new Manager(opts, runnables, sharedReads, observe);
    return holder.manager;
  }

  /** A manager whose controllers a sharded host builds and rebuilds (shardedManager.ts). */
  static withSharded(
    opts: ManagerOptions,
    sharded: ShardedHost,
    observe: Observability,
    sharedReads?: SharedReadAccess,
  ): Manager {
    const m = new Manager(opts, [], sharedReads, observe);
    m.sharded = sharded;
    return m;
  }

  /** True while this replica holds the Lease (always true without leader election, once started). */
  get isLeader(): boolean {
    if (this.sharded) return this.sharded.isCoordinator;
    return this.elector ? this.elector.isLeader() : this.started;
  }

  /** Every controller ready; a standby replica (not leader) counts as ready: it waits for the Lease. */
  ready(): boolean {
    if (this.sharded) return this.sharded.ready();
    if (this.elector && !this.elector.isLeader()) return true;
    return this.started && this.runnables.every((r) => r.ready());
  }

  /** Nothing queued or being processed in the Graph and RGD controllers (planes queues are not tracked). */
  idle(): boolean {
    if (this.sharded) return this.sharded.idle();
    return this.runnables.every((r) => r.idle?.() ?? true);
  }

  /**
   * Serves the endpoints, then starts the controllers — at once, or when this replica acquires the
   * Lease. Resolves once they are started (or, under leader election, once the election runs).
   */
  async start(): Promise<void> {
    await this.serveEndpoints();
    if (this.sharded) {
      await this.sharded.start();
      return;
    }
    const le = this.opts.leaderElection;
    if (!le) {
      await this.startRunnables();
      return;
    }
    const leaseDurationMs = le.leaseDurationMs ?? 15_000;
    this.elector = new LeaderElector(this.opts.client, {
      namespace: le.namespace,
      name: le.name ?? 'kgraph-controller',
      identity: le.identity,
      leaseDurationMs,
      renewDeadlineMs: (leaseDurationMs * 2) / 3,
      retryPeriodMs: leaseDurationMs / 7.5,
      onStartedLeading: () => {
        this.opts.log.info({ identity: le.identity }, 'acquired leadership');
        this.startRunnables().catch((e: unknown) => {
          this.opts.log.error({ err: String(e) }, 'controllers failed to start');
          this.opts.onLostLeadership?.();
        });
      },
      onStoppedLeading: () => {
        if (!this.started) return;
        this.opts.log.error({ identity: le.identity }, 'lost leadership');
        this.opts.onLostLeadership?.();
      },
      onError: (e) => this.opts.log.debug({ err: String(e) }, 'leader election error'),
    });
    this.elector.start();
  }

  /** Stops the controllers (in reverse order), the shared RBAC watch, the endpoints and the election. */
  async stop(): Promise<void> {
    const elector = this.elector;
    this.elector = undefined;
    await this.sharded?.stop();
    for (const r of [...this.runnables].reverse()) await r.stop();
    await this.sharedReads?.watch.stop();
    await this.observe.stop();
    for (const s of this.servers) s.close();
    this.servers.length = 0;
    this.started = false;
    // Released after the controllers stopped, so a successor never runs beside them.
    await elector?.stop();
    this.opts.client.close();
    this.opts.planes?.client?.close();
    this.opts.planes?.host?.close();
  }

  private async startRunnables(): Promise<void> {
    for (const r of this.runnables) await r.start();
    this.started = true;
  }

  private async serveEndpoints(): Promise<void> {
    const { metricsAddr, healthAddr } = this.opts;
    const probes = { healthy: () => true, ready: () => this.ready() };
    const sharded = this.sharded;
    if (metricsAddr && metricsAddr !== '0') {
      this.servers.push(
        await serve(metricsAddr, {
          // Sharded, the controllers change with the assignment: merged anew per scrape.
          // Sharded, the controllers change with the assignment: merged anew per scrape.
          metrics: sharded
            ? () => exposition([...sharded.registries(), standardMetricsRegistry()])()
            : exposition(this.registries()),
          history: (q) => historyAnswer(this.observe, q),
          ...(metricsAddr === healthAddr ? probes : {}),
        }),
      );
    }
    if (healthAddr && healthAddr !== '0' && healthAddr !== metricsAddr) {
      this.servers.push(await serve(healthAddr, probes));
    }
  }

  /**
   * The registries `/metrics` renders. The Graph and RGD controllers count requests through one
   * process-wide client, so one of their two registries renders those series (the Graph's when both
   * run: the two hold the same metric names); the planes controller has its own series.
   */
  private registries(): Registry[] {
    const byName = new Map(this.runnables.map((r) => [r.name, r.registry]));
    const controller = byName.get('graphs') ?? byName.get('rgds');
    const planes = byName.get('planes');
    const own = this.runnables.map((r) => r.ownSeries);
    return [controller, planes, ...own, standardMetricsRegistry()].filter(
      (r): r is Registry => r !== undefined,
    );
  }
}

export async function graphRunnable(
  opts: ManagerOptions,
  graphs: GraphsOptions,
  sharedReads: SharedReadAccess | undefined,
  observe: Observability,
  shard?: Assignment,
): Promise<Runnable> {
  const { GraphController } = await import('../graph/controller.ts');
  const c = new GraphController({
    client: opts.client,
    ...(sharedReads ? { sharedReads } : {}),
    ...(opts.namespaces ? { namespaces: opts.namespaces } : {}),
    concurrency: graphs.concurrency ?? 1,
    ...(shard ? { shardSelector: shard.selector } : {}),
    ...(shard?.childSelector ? { childShardSelector: shard.childSelector } : {}),
    installCrd: (opts.installCrds ?? true) && (!shard || shard.coordinator),
    log: opts.log,
    observe,
  });
  return {
    ...runnable('graphs', c, c.metrics.registry, () => idleQueue(c.queue.stats())),
    cachedObjects: () => c.cachedObjects(),
  };
}

export async function rgdRunnable(
  opts: ManagerOptions,
  rgds: RgdsOptions,
  sharedReads: SharedReadAccess | undefined,
  observe: Observability,
  shard?: Assignment,
): Promise<Runnable> {
  const { RgdController } = await import('../rgd/controller.ts');
  const c = new RgdController({
    client: opts.client,
    ...(sharedReads ? { sharedReads } : {}),
    ...(opts.namespaces ? { namespaces: opts.namespaces } : {}),
    ...(rgds.selector ? { rgdSelector: rgds.selector } : {}),
    concurrency: rgds.concurrency ?? 1,
    deleteCrds: rgds.deleteCrds === true,
    ...(rgds.maxGraphRevisions !== undefined ? { maxGraphRevisions: rgds.maxGraphRevisions } : {}),
    ...(shard ? { shardSelector: shard.selector, registration: shard.coordinator } : {}),
    ...(shard?.childSelector ? { childShardSelector: shard.childSelector } : {}),
    installCrd: (opts.installCrds ?? true) && (!shard || shard.coordinator),
    log: opts.log,
    observe,
  });
  return {
    ...runnable('rgds', c, c.metrics.registry, () => c.isIdle()),
    ownSeries: c.revisionSeries,
    cachedObjects: () => c.cachedObjects(),
  };
}

export async function planesRunnable(
  opts: ManagerOptions,
  planes: PlanesOptions,
  sweepAuthority: SweepAuthority,
  shard?: Assignment,
): Promise<Runnable> {
  const common = {
    ...(planes.host ? { host: planes.host } : {}),
    namespace: planes.namespace ?? 'kgraph-system',
    log: opts.log,
    sweepAuthority,
  };
  if (planes.kcp) {
    const { KcpPlanesController } = await import('../planes/kcp/controller.ts');
    const c = new KcpPlanesController({
      provider: opts.client,
      installCrds: opts.installCrds ?? true,
      ...common,
    });
    return runnable('planes', c, undefined);
  }
  const { PlanesController } = await import('../planes/controller.ts');
  const c = new PlanesController({
    client: planes.client ?? opts.client,
    installCrds: (opts.installCrds ?? true) && (!shard || shard.coordinator),
    ...common,
    ...(shard ? { shard: { clusterSelector: shard.selector, registers: shard.coordinator } } : {}),
  });
  const r = runnable('planes', c, c.metrics.registry);
  // Sharded, the host renders each controller's own series (its registries change with the assignment).
  return shard ? { ...r, ownSeries: c.metrics.registry, cachedObjects: () => c.cachedObjects() } : r;
}

/** A controller (anything that starts, stops and says when it is ready) as a Runnable. */
function runnable(
  name: string,
  c: { start(): Promise<void>; stop(): Promise<void>; ready(): boolean },
  registry: Registry | undefined,
  idle?: () => boolean,
): Runnable {
  return {
    name,
    start: () => c.start(),
    stop: () => c.stop(),
    ready: () => c.ready(),
    ...(idle ? { idle } : {}),
    registry,
  };
}

function idleQueue(s: { depth: number; processing: number }): boolean {
  return s.depth === 0 && s.processing === 0;
}
