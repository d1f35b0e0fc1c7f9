/**
 * A sharded replica (design/sharding.md §3–§6): its membership Lease (also its write fence), the shard
 * map read through a watch, and the controllers rebuilt for the buckets the map gives it. While it holds
 * the leader Lease it is the coordinator too: it plans the map, labels new objects with their bucket and
 * registers RGDs (the other replicas serve their instances without writing the RGD, its CRD or status).
 *
 * Hand-over: when the map takes buckets away (draining) or gives new ones, the controllers stop —
 * their queues finish the passes in flight, bounded — and start again with the new bucket selector
 * (every cache relisted); only then is the map's epoch acknowledged on the Lease, which is what lets the
 * coordinator pass a draining bucket on. A replica that cannot read the map, or does not hold its Lease
 * yet, runs no controller: it never reconciles everything for want of a map.
 */
import type { Logger } from 'pino';
import { Gauge, Registry } from 'prom-client';
import { Informer, type KubeObject, type RestClient } from '../../kube/index.ts';
import { LABEL_BUCKET } from '../core/bucket.ts';
import { BucketLabeller } from './bucketLabeller.ts';
import { ChildLabelAudit } from './childLabelAudit.ts';
import { ShardCoordinator } from './coordinator.ts';
import { LeaderElector } from './leaderElection.ts';
import { ReplicaLease } from './replicaLease.ts';
import { SHARD_MAP_NAME, shardMapOf } from './shardMapStore.ts';
import { type ShardMap, servedBuckets } from './shardPlan.ts';

export interface ShardingOptions {
  /** Namespace of the Leases and the shard map. */
  namespace: string;
  /** This replica's identity (host name and pid): its Lease, its entries in the map. */
  identity: string;
  /** @default 15 s */
  leaseDurationMs?: number;
}

/** What the controllers of one assignment are built for. */
export interface Assignment {
  /** Label selector of the replica's buckets. */
  selector: string;
  /**
   * The selector narrowing the child caches to those buckets; absent while the map says children
   * without a bucket are still being labelled (the two-phase upgrade): the caches hold every child of
   * kgraph's then, so no owner misses an unlabelled child of its own.
   */
  childSelector?: string;
  /** How many buckets it serves (0: none; the coordinator still registers RGDs). */
  buckets: number;
  coordinator: boolean;
}

/** The part of a controller the host drives (manager.ts Runnable). */
export interface ShardRunnable {
  readonly name: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  ready(): boolean;
  idle?(): boolean;
  cachedObjects?(): number;
  readonly registry: Registry | undefined;
  readonly ownSeries?: Registry;
}

export interface ShardedHostOptions {
  client: RestClient;
  log: Logger;
  sharding: ShardingOptions;
  graphs: boolean;
  rgds: boolean;
  /** The planes controller runs: ConsumerClusters are labelled with their bucket too. */
  planes?: boolean;
  /** Namespaces the replicas reconcile (the labeller labels only there). @default all */
  namespaces?: readonly string[];
  build: (a: Assignment) => Promise<ShardRunnable[]>;
  /** The replica lost its identity or coordination: the process must exit. */
  onFatal: (why: string) => void;
}

/** How long a hand-over waits for the passes in flight before the replica gives up (and exits). */
const STOP_BOUND_MS = 30_000;

/** The selector of a set of buckets; one that matches nothing for none. */
export function bucketSelector(buckets: readonly number[]): string {
  return buckets.length === 0 ? `${LABEL_BUCKET}=none` : `${LABEL_BUCKET} in (${buckets.join(',')})`;
}

export class ShardedHost {
  private readonly o: ShardedHostOptions;
  private readonly lease: ReplicaLease;
  private readonly elector: LeaderElector;
  private readonly coordinator: ShardCoordinator;
  private readonly labeller: BucketLabeller;
  private readonly mapInformer: Informer;
  private coordinating = false;
  private map: ShardMap | undefined;
  private mapError: string | undefined;
  private current: { key: string; runnables: ShardRunnable[] } | undefined;
  private chain: Promise<void> = Promise.resolve();
  private stopped = false;
  readonly registry = new Registry();
  private readonly gauges: {
    buckets: Gauge;
    epoch: Gauge;
    coordinator: Gauge;
    cached: Gauge;
    handovers: Gauge;
  };
  handovers = 0;

  constructor(opts: ShardedHostOptions) {
    this.o = opts;
    const { client, sharding, log } = opts;
    const leaseDurationMs = sharding.leaseDurationMs ?? 15_000;
    const renewDeadlineMs = (leaseDurationMs * 2) / 3;
    const retryPeriodMs = leaseDurationMs / 7.5;
    this.lease = new ReplicaLease(client, {
      namespace: sharding.namespace,
      identity: sharding.identity,
      leaseDurationMs,
      renewDeadlineMs,
      retryPeriodMs,
      onLost: (why) => this.fatal(`membership lost: ${why}`),
      onError: (e) => log.debug({ err: String(e) }, 'membership Lease error'),
    });
    this.coordinator = new ShardCoordinator({
      client,
      namespace: sharding.namespace,
      leaseDurationMs,
      retryPeriodMs,
      log,
      audit: new ChildLabelAudit({
        client,
        log,
        graphs: opts.graphs,
        rgds: opts.rgds,
        ...(opts.namespaces ? { namespaces: opts.namespaces } : {}),
      }),
    });
    this.labeller = new BucketLabeller(client, {
      log,
      graphs: opts.graphs,
      rgds: opts.rgds,
      planes: opts.planes === true,
      ...(opts.namespaces ? { namespaces: opts.namespaces } : {}),
    });
    this.elector = new LeaderElector(client, {
      namespace: sharding.namespace,
      name: 'kgraph-controller',
      identity: sharding.identity,
      leaseDurationMs,
      renewDeadlineMs,
      retryPeriodMs,
      onStartedLeading: () => {
        log.info({ identity: sharding.identity }, 'coordinating the shards');
        this.coordinating = true;
        this.coordinator.coordinate();
        this.labeller
          .start()
          .catch((e: unknown) => log.warn({ err: String(e) }, 'bucket labeller failed to start'));
        this.reassess();
      },
      onStoppedLeading: () => {
        if (this.coordinating) this.fatal('lost the coordinator Lease');
      },
      onError: (e) => log.debug({ err: String(e) }, 'leader election error'),
    });
    this.mapInformer = new Informer(client, {
      target: { apiVersion: 'v1', plural: 'configmaps', namespace: sharding.namespace },
      fieldSelector: `metadata.name=${SHARD_MAP_NAME}`,
      onError: (e) => log.debug({ err: String(e) }, 'shard map watch error'),
    });
    const onMap = (cm: KubeObject | undefined): void => this.onMap(cm);
    this.mapInformer.addHandlers({ add: onMap, update: (_o, n) => onMap(n), delete: () => onMap(undefined) });
    const gauge = (name: string, help: string, labelNames: string[] = []) =>
      new Gauge({ name, help, labelNames, registers: [this.registry] });
    this.gauges = {
      buckets: gauge('kgraph_shard_buckets', 'Buckets of this replica by state (served, draining away)', [
        'state',
      ]),
      epoch: gauge('kgraph_shard_map_epoch', 'Epoch of the shard map this replica applied'),
      coordinator: gauge('kgraph_shard_coordinator', '1 while this replica is the coordinator'),
      cached: gauge(
        'kgraph_shard_cached_objects',
        'Objects in the caches of this replica (instances, Graphs, children)',
      ),
      handovers: gauge(
        'kgraph_shard_handovers',
        'Times this replica rebuilt its controllers for a new assignment',
      ),
    };
    this.registry.setDefaultLabels({ replica: sharding.identity });
  }

  /** The client is fenced by the Lease from now on; the Lease, the election and the map watch start. */
  async start(): Promise<void> {
    this.o.client.setWriteFence(this.lease);
    this.lease.start();
    this.mapInformer.start();
    // Every replica observes the membership Leases (coordinator.ts): a successor judges from history.
    this.coordinator.start();
    // Coordinate only once this replica is a member: its own Lease is what the map is planned from.
    this.lease.ready.then(
      () => {
        if (this.stopped) return;
        this.elector.start();
        this.reassess();
      },
      () => undefined,
    );
  }

  get isCoordinator(): boolean {
    return this.coordinating;
  }

  /** Ready once it serves the assignment of the map it read (a replica with no buckets is ready too). */
  ready(): boolean {
    if (!this.map || this.mapError) return false;
    return this.current?.runnables.every((r) => r.ready()) ?? false;
  }

  idle(): boolean {
    return (this.current?.runnables ?? []).every((r) => r.idle?.() ?? true);
  }

  registries(): Registry[] {
    this.refreshGauges();
    // The Graph and RGD controllers count requests through one client: one of their registries
    // renders those series (as manager.ts does), each one's own series besides.
    const runnables = this.current?.runnables ?? [];
    const byName = new Map(runnables.map((r) => [r.name, r.registry]));
    const controller = byName.get('graphs') ?? byName.get('rgds');
    const own = runnables.map((r) => r.ownSeries);
    return [this.registry, controller, ...own].filter((r): r is Registry => r !== undefined);
  }

  /** Objects in this replica's caches now. */
  cachedObjects(): number {
    return (this.current?.runnables ?? []).reduce((n, r) => n + (r.cachedObjects?.() ?? 0), 0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.chain;
    for (const r of [...(this.current?.runnables ?? [])].reverse()) await r.stop();
    this.current = undefined;
    await this.mapInformer.stop();
    await this.labeller.stop();
    await this.coordinator.stop();
    await this.elector.stop();
    // Deleted last: the coordinator reassigns this replica's buckets at once.
    await this.lease.stop();
  }

  private onMap(cm: KubeObject | undefined): void {
    try {
      const map = shardMapOf(cm);
      this.mapError = map ? undefined : `ConfigMap ${SHARD_MAP_NAME} not found`;
      if (map) this.map = map;
    } catch (e) {
      // Unreadable: refuse to reconcile rather than guess (every replica would take everything).
      this.mapError = String(e);
      this.o.log.error({ err: this.mapError }, 'shard map unreadable: not reconciling');
      this.map = undefined;
    }
    this.reassess();
  }

  /** Brings the controllers in line with the map and the coordinator role (one change at a time). */
  private reassess(): void {
    this.chain = this.chain
      .then(() => this.apply())
      .catch((e: unknown) => this.fatal(`hand-over failed: ${String(e)}`));
  }

  private async apply(): Promise<void> {
    if (this.stopped || this.lease.refusal() !== undefined) return;
    const map = this.mapError ? undefined : this.map;
    const served = map ? servedBuckets(map, this.o.sharding.identity) : [];
    const coordinator = this.coordinating;
    const wholeChildren = map?.labellingChildren === true;
    const key = map ? `${coordinator}|${wholeChildren}|${served.join(',')}` : 'none';
    if (this.current?.key !== key) {
      const old = this.current;
      this.current = undefined;
      if (old) {
        this.handovers++;
        await bounded(Promise.all([...old.runnables].reverse().map((r) => r.stop())), STOP_BOUND_MS);
      }
      const runnables =
        map && (served.length > 0 || coordinator)
          ? await this.o.build({
              selector: bucketSelector(served),
              ...(wholeChildren ? {} : { childSelector: bucketSelector(served) }),
              buckets: served.length,
              coordinator,
            })
          : [];
      for (const r of runnables) await r.start();
      this.current = { key, runnables };
      this.o.log.info(
        { buckets: served.length, coordinator, wholeChildren, epoch: map?.epoch },
        'serving buckets',
      );
    }
    if (map) this.lease.acknowledge(map.epoch);
  }

  private refreshGauges(): void {
    const map = this.map;
    const me = this.o.sharding.identity;
    const served = map ? servedBuckets(map, me).length : 0;
    const draining = map ? map.buckets.filter((e) => e.owner === me && e.phase === 'draining').length : 0;
    this.gauges.buckets.set({ state: 'served' }, served);
    this.gauges.buckets.set({ state: 'draining' }, draining);
    this.gauges.epoch.set(map?.epoch ?? -1);
    this.gauges.coordinator.set(this.coordinating ? 1 : 0);
    this.gauges.cached.set(this.cachedObjects());
    this.gauges.handovers.set(this.handovers);
  }

  private fatal(why: string): void {
    if (this.stopped) return;
    this.o.log.error({ identity: this.o.sharding.identity }, why);
    this.o.onFatal(why);
  }
}

async function bounded<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      p,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`controllers did not stop within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    if (timer) clearTimeout(timer);
  }
}
