/**
 * The planes controller (design/planes.md §3, §11, §13–§14): blueprints and ConsumerCluster registrations in
 * the management cluster, a serving loop per (blueprint, consumer cluster), one instance queue, the
 * liveness sweeper. Runs beside the Graph and RGD controllers (`kgraph controller --planes`).
 *
 * Queues: blueprint names (registrar), ConsumerCluster names (connect, verify, serve), and instance keys
 * `blueprint|cluster|namespace|name`. The instance reconciler talks to the consumer cluster with the
 * registered kubeconfig, to the management cluster with the controller's identity (provider plane) and
 * to the host cluster with `--host-kubeconfig` (host plane; absent: host nodes fail closed).
 */
import { Informer, isNotFound, type KubeObject, type RestClient, watchCRDs } from '../../kube/index.ts';
import { matchesSelector, toLabelSelector } from '../../runtime/selector.ts';
import { type Condition, type ConditionStatus, condition, conditionMarker } from '../core/conditions.ts';
import { errorMessage } from '../core/errors.ts';
import { ClaimAccess } from './access.ts';
import { ChildWatches } from './childWatches.ts';
import { cleanupCluster } from './cleanup.ts';
import { type ConnectSuccess, connectConsumer, readKubeconfig } from './connect.ts';
import { ConsumerProbe } from './consumerProbe.ts';
import { installPlaneCrds } from './crds.ts';
import type { InstanceReconciler } from './instance.ts';
import {
  CONSUMER_KIND,
  CONSUMER_PLURAL,
  FINALIZER_CLUSTER,
  FINALIZER_INSTANCE,
  KROP_API_VERSION,
  REGISTRAR_MANAGER,
} from './kropApi.ts';
import { type InstanceCount, type PlaneRequests, PlanesMetrics } from './metrics.ts';
import { CLUSTER_ID_PATTERN, clusterIdFromUid } from './naming.ts';
import type { Connection, PublishedBlueprint } from './published.ts';
import { type ServeEntryStatus, type ServingLoop, startServing } from './serving.ts';
import type { SweepAuthority } from './sweeper.ts';
import { type PlanesCommonOptions, PlanesParts, watchBlueprints } from './wiring.ts';

/** How the planes controller runs on plain clusters (`kgraph controller --planes`). */
export interface PlanesControllerOptions extends PlanesCommonOptions {
  /** The management cluster (provider plane), with the controller's identity. */
  client: RestClient;
  /**
   * Where ConsumerCluster kubeconfig Secrets and liveness records live.
   * @default "kgraph-system"
   */
  namespace?: string;
  /**
   * Who lets the liveness sweeper run (design/planes.md §13.4, leader only): `{ isLeader }` from the Lease, or
   * `{ singleReplica: true }` when leader election is off and one replica is declared.
   * @default none: the sweeper refuses to sweep (and says so in the log)
   */
  sweepAuthority?: SweepAuthority;
  /**
   * One of several sharded replicas (design/sharding.md §6): serve the ConsumerClusters this label
   * selector picks (the replica's buckets); `registers` on the coordinator only (blueprint finalizers
   * and status; the others follow its verdicts). The sweeper asks the API server for every
   * registration, and leaves the records of other replicas' clusters to their deregistration.
   * @default not sharded: every ConsumerCluster, registering
   */
  shard?: { clusterSelector: string; registers: boolean };
}

interface ClusterState {
  conn?: Connection;
  secretVersion?: string;
  verified: boolean;
  reachable: boolean;
  /**
   * The credentials still authenticate but may no longer read kube-system (the serving role was
   * revoked): consent is withdrawn, so the sweeper may treat a forbidden instance GET as gone (design/planes.md §13.4).
   */
  withdrawn?: boolean;
}

type ClusterSpec = { clusterID?: string; kubeSystemUID?: string; blueprintSelector?: unknown };
/** When to look at a registration again; undefined: on its next event only. */
type Requeue = { requeueAfterMs: number } | undefined;
/** A condition's status, reason and message. */
type ConditionParts = [status: ConditionStatus, reason: string, message: string];
/** The three conditions of a ConsumerCluster, always written together. */
type ClusterConditions = (
  connected: ConditionParts,
  verified: ConditionParts,
  ready: ConditionParts,
) => Condition[];

function clusterConditions(cc: KubeObject): ClusterConditions {
  const prev = previous(cc);
  const gen = cc.metadata.generation ?? 0;
  const now = () => new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const mark = conditionMarker(prev, gen, now);
  return (connected, verified, ready) => [
    mark('Connected', connected[0], connected[1], connected[2]),
    mark('IdentityVerified', verified[0], verified[1], verified[2]),
    mark('Ready', ready[0], ready[1], ready[2]),
  ];
}

export class PlanesController extends PlanesParts<ClaimAccess> {
  readonly client: RestClient;
  /** design/planes.md §11.1: child and externalRef watches on every plane, requeueing instances. */
  readonly childWatches: ChildWatches;
  /** The planes series of `/metrics` (registry merged by `kgraph controller`). */
  readonly metrics: PlanesMetrics;
  readonly clusterQueue = this.queues.second;
  /** `blueprint|cluster` → loop. */
  readonly loops = new Map<string, ServingLoop>();
  readonly clusters = new Map<string, ClusterState>();
  /** Serving loop starts per blueprint (the change-detected restart, design/planes.md §14.2). */
  readonly serveStarts = new Map<string, number>();
  private readonly opts: PlanesControllerOptions;
  private clusterInformer: Informer | undefined;
  private crdInformer: Informer | undefined;
  /** Instance reconciles running now, per ConsumerCluster name (deregistration waits for them). */
  private readonly inflight = new Map<string, Set<Promise<unknown>>>();
  /** Instance reconciles by outcome (metrics). */
  private readonly reconciles = new Map<string, number>();
  /** design/planes.md §3.3.4: notices a connected consumer cluster's API server going away. */
  readonly probe: ConsumerProbe;

  constructor(opts: PlanesControllerOptions) {
    super(opts.client, opts, {
      logName: 'kgraph-planes',
      access: (ttlMs) => new ClaimAccess(ttlMs),
      sweepAuthority: opts.sweepAuthority ?? { none: true },
      ...(opts.shard && !opts.shard.registers ? { follower: true } : {}),
    });
    this.opts = opts;
    this.client = opts.client;
    this.childWatches = new ChildWatches({
      provider: this.client,
      host: this.host,
      access: this.access,
      log: this.log,
      enqueue: (key) => this.instanceQueue.add(key),
      ...(opts.shard ? { perCluster: true } : {}),
    });
    this.metrics = new PlanesMetrics({
      requests: () => this.planeRequests(),
      instances: () => this.instanceCounts(),
      reconciles: () => this.reconciles,
      childWatches: () => this.childWatches.size,
      childWatchEvents: () => this.childWatches.events,
      sweepKeptUnreachable: () => this.sweeper.lastReport?.unreachable ?? 0,
      swept: () => this.sweeper.swept,
      sweeperLeader: () => this.sweeper.refusal() === undefined,
    });
    this.probe = new ConsumerProbe({
      intervalMs: this.timings.livenessMs,
      targets: () =>
        [...this.clusters]
          .filter(([, s]) => s.conn && s.verified)
          .map(([name, s]) => ({ name, client: (s.conn as Connection).client })),
      down: (name, message) => this.clusterDown(name, message),
      up: async (name) => this.clusterQueue.add(name),
      onError: (name, e) =>
        this.log.warn({ cluster: name, err: errorMessage(e) }, 'liveness probe: status not written'),
    });
  }

  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    if (this.opts.installCrds !== false) await installPlaneCrds(this.client);
    this.crdInformer = watchCRDs(this.client, {
      discovery: this.client.discovery,
      onChange: () => {
        this.registrar.invalidate();
        for (const b of this.blueprintInformer?.list() ?? []) this.blueprintQueue.add(b.metadata.name ?? '');
      },
    });
    const shard = this.opts.shard;
    this.blueprintInformer = watchBlueprints(this.client, this.blueprintQueue, shard?.registers === false);
    this.clusterInformer = new Informer(this.client, {
      target: { apiVersion: KROP_API_VERSION, plural: CONSUMER_PLURAL },
      ...(shard ? { labelSelector: shard.clusterSelector } : {}),
    });
    this.clusterInformer.addHandlers({
      add: (o) => this.clusterQueue.add(o.metadata.name ?? ''),
      update: (o, n) => {
        if (
          o === n ||
          o.metadata.generation !== n.metadata.generation ||
          n.metadata.deletionTimestamp ||
          !sameList(o.metadata.finalizers, n.metadata.finalizers)
        )
          this.clusterQueue.add(n.metadata.name ?? '');
      },
      delete: (o) => this.clusterQueue.add(o.metadata.name ?? ''),
    });
    this.blueprintInformer.start();
    this.clusterInformer.start();
    await Promise.all([
      this.blueprintInformer.waitForSync(),
      this.clusterInformer.waitForSync(),
      this.crdInformer.waitForSync(),
    ]);
    this.runParts(
      'cluster',
      (name) => this.reconcileCluster(name),
      (key) => this.reconcileInstance(key),
      'planes controller started',
    );
    this.probe.start();
  }

  ready(): boolean {
    return (
      this.started &&
      (this.blueprintInformer?.hasSynced() ?? false) &&
      (this.clusterInformer?.hasSynced() ?? false)
    );
  }

  async stop(): Promise<void> {
    await this.probe.stop();
    this.sweeper.stop();
    await this.queues.shutdown();
    await this.childWatches.stop();
    await Promise.all([...this.loops.values()].map((l) => l.informer.stop()));
    this.loops.clear();
    for (const s of this.clusters.values()) s.conn?.client.close();
    this.clusters.clear();
    await this.blueprintInformer?.stop();
    await this.clusterInformer?.stop();
    await this.crdInformer?.stop();
  }

  /** Objects in the caches: registrations, instances of the serving loops, children in the watches. */
  cachedObjects(): number {
    let n = (this.clusterInformer?.size ?? 0) + this.childWatches.cachedObjects();
    for (const l of this.loops.values()) n += l.informer.size;
    return n;
  }

  /** The planes part of `/metrics` (prom-client text). */
  renderMetrics(): Promise<string> {
    return this.metrics.render();
  }

  private planeRequests(): PlaneRequests[] {
    const requests: PlaneRequests[] = [{ plane: 'provider', counters: this.client.counters }];
    if (this.host) requests.push({ plane: 'host', counters: this.host.counters });
    for (const [name, s] of [...this.clusters].sort(([a], [b]) => a.localeCompare(b)))
      if (s.conn) requests.push({ plane: 'consumer', cluster: name, counters: s.conn.client.counters });
    return requests;
  }

  private instanceCounts(): InstanceCount[] {
    return [...this.loops.values()].map((l) => {
      const all = l.informer.list();
      return {
        blueprint: l.bp.name,
        cluster: l.conn.name,
        instances: all.length,
        ready: all.filter((o) => previous(o).some((c) => c.type === 'Ready' && c.status === 'True')).length,
      };
    });
  }

  /** Resolves when no queue holds or processes a key (delayed requeues excluded). */
  async idle(timeoutMs = 30_000): Promise<void> {
    if (!(await this.queues.idle(timeoutMs))) throw new Error('planes controller did not become idle');
  }

  // ------------------------------------------------------------------ blueprints

  protected async published(bp: PublishedBlueprint, changed: boolean): Promise<undefined> {
    if (changed) await this.stopBlueprint(bp.name);
    for (const c of this.clusterInformer?.list() ?? []) this.clusterQueue.add(c.metadata.name ?? '');
    return undefined;
  }

  protected unpublished(name: string): Promise<void> {
    return this.stopBlueprint(name);
  }

  /** Stops every serving loop of a blueprint (in-flight instance reconciles finish on the old graph). */
  private async stopBlueprint(name: string): Promise<void> {
    const stops: Promise<void>[] = [];
    for (const [k, l] of this.loops) {
      if (l.bp.name !== name) continue;
      this.loops.delete(k);
      stops.push(l.informer.stop());
    }
    await Promise.all(stops);
  }

  /**
   * design/planes.md §14.4: release kgraph's finalizer from the blueprint's instances in every reachable cluster. The
   * loops are taken out of the registry first: the release is an instance update, and a reconcile
   * that still found its loop would add the finalizer straight back.
   */
  protected async withdraw(name: string): Promise<void> {
    const loops = [...this.loops].filter(([, l]) => l.bp.name === name);
    for (const [k] of loops) this.loops.delete(k);
    for (const [, l] of loops) {
      const instances = l.informer.list();
      await l.informer.stop();
      for (const inst of instances) {
        if (!(inst.metadata.finalizers ?? []).includes(FINALIZER_INSTANCE)) continue;
        await this.instances
          .setFinalizer(l.bp, l.conn, inst, false)
          .catch((e) =>
            this.log.warn(
              { err: errorMessage(e), instance: inst.metadata.name },
              'could not release the instance finalizer',
            ),
          );
      }
    }
    await this.stopBlueprint(name);
    for (const c of this.clusterInformer?.list() ?? []) this.clusterQueue.add(c.metadata.name ?? '');
  }

  // ------------------------------------------------------------------ clusters

  protected async registeredClusterIDs(): Promise<Set<string>> {
    // Sharded, the cache holds this replica's registrations only: every one is asked of the server.
    const all = this.opts.shard
      ? (await this.client.listAll({ apiVersion: KROP_API_VERSION, plural: CONSUMER_PLURAL })).items
      : (this.clusterInformer?.list() ?? []);
    return clusterIDsOf(all);
  }

  protected connectionFor(clusterID: string): {
    conn?: Connection;
    reachable: boolean;
    verified: boolean;
    withdrawn: boolean;
    elsewhere?: boolean;
  } {
    if (this.opts.shard && !clusterIDsOf(this.clusterInformer?.list() ?? []).has(clusterID))
      return { reachable: false, verified: false, withdrawn: false, elsewhere: true };
    for (const s of this.clusters.values()) {
      if (s.conn?.clusterID === clusterID)
        return {
          conn: s.conn,
          reachable: s.reachable,
          verified: s.verified,
          withdrawn: s.withdrawn === true,
        };
    }
    return { reachable: false, verified: false, withdrawn: false };
  }

  /**
   * One ConsumerCluster, in the steps a registration goes through (design/planes.md §3.3): deletion or the
   * finalizer first; then connect, verify the identity, adopt the connection and serve the selected
   * blueprints. Each step that stops the registration writes its own conditions and says when to retry.
   */
  private async reconcileCluster(name: string): Promise<Requeue> {
    const cc = this.clusterInformer?.get(undefined, name);
    if (!cc) {
      await this.stopCluster(name);
      return undefined;
    }
    const spec = (cc.spec ?? {}) as ClusterSpec;
    const finalizers = cc.metadata.finalizers ?? [];
    if (cc.metadata.deletionTimestamp) {
      if (finalizers.includes(FINALIZER_CLUSTER)) await this.finishClusterDeletion(name, spec);
      return undefined;
    }
    if (!finalizers.includes(FINALIZER_CLUSTER)) {
      await this.applyClusterMeta(name, { finalizers: [FINALIZER_CLUSTER] });
      return { requeueAfterMs: 0 };
    }
    const conds = clusterConditions(cc);
    const state: ClusterState = this.clusters.get(name) ?? { verified: false, reachable: false };
    this.clusters.set(name, state);
    const connected = await this.connectCluster(name, cc, state, conds);
    if (!connected.ok) return connected.requeue;
    const identity = await this.verifyIdentity(name, cc, spec, state, connected.consumer, conds);
    if (!identity.ok) return identity.requeue;
    const conn = await this.adoptConnection(name, state, connected, identity.clusterID);
    const entries = await this.serveSelected(name, spec, conn);
    await this.writeClusterStatus(cc, {
      identity: conn.identity,
      blueprints: entries,
      conditions: conds(
        ['True', 'Connected', 'connected'],
        ['True', 'Verified', `cluster ID ${identity.clusterID}`],
        [
          'True',
          'Ready',
          `serving ${entries.filter((e) => e.served).length} of ${entries.length} blueprints`,
        ],
      ),
    });
    // Connected as of now: a probe that failed before this write is news again (design/planes.md §3.3.4).
    this.probe.reset(name);
    return { requeueAfterMs: this.timings.resyncMs };
  }

  /** A deleted registration: stop its loops, let running passes end, clean up, drop the finalizer. */
  private async finishClusterDeletion(name: string, spec: ClusterSpec): Promise<void> {
    const state = this.clusters.get(name);
    await this.stopCluster(name, false);
    // A reconcile already under way (a watch event, a heartbeat) would write its children and liveness
    // record again after the cleanup: let it finish first; no new one starts (the loops are gone).
    await Promise.allSettled([...(this.inflight.get(name) ?? [])]);
    await cleanupCluster({
      provider: this.client,
      host: this.host,
      namespace: this.namespace,
      clusterID: spec.clusterID ?? '',
      conn: state?.verified ? state.conn : undefined,
      blueprints: [...this.registrar.registry.values()],
      log: this.log,
    });
    state?.conn?.client.close();
    this.clusters.delete(name);
    await this.applyClusterMeta(name, { finalizers: [] });
  }

  /** Reads the registration's kubeconfig Secret and opens a client; on failure, `Connected=False`. */
  private async connectCluster(
    name: string,
    cc: KubeObject,
    state: ClusterState,
    conds: ClusterConditions,
  ): Promise<
    { ok: true; consumer: ConnectSuccess; secretVersion: string } | { ok: false; requeue: Requeue }
  > {
    const retry = { requeueAfterMs: Math.min(this.timings.resyncMs, 10_000) };
    const kubeconfig = await readKubeconfig(this.client, this.namespace, cc);
    if (!kubeconfig.ok) {
      state.reachable = false;
      await this.stopCluster(name, false);
      await this.writeClusterStatus(cc, {
        conditions: conds(
          ['False', kubeconfig.reason, kubeconfig.message],
          ['Unknown', 'Unknown', 'not connected'],
          ['False', kubeconfig.reason, kubeconfig.message],
        ),
      });
      return { ok: false, requeue: retry };
    }
    const connected = await connectConsumer(kubeconfig.text, kubeconfig.version);
    if (!connected.ok) {
      state.reachable = false;
      await this.writeClusterStatus(cc, {
        conditions: conds(
          ['False', connected.reason, connected.message],
          ['Unknown', 'Unknown', 'not connected'],
          ['False', connected.reason, connected.message],
        ),
      });
      return { ok: false, requeue: retry };
    }
    state.reachable = true;
    return { ok: true, consumer: connected, secretVersion: kubeconfig.version };
  }

  /**
   * Identity (design/planes.md §3.3.2): written once, verified on every connect. Refuses an unreadable
   * kube-system, a changed kube-system UID and a malformed cluster ID; records the UID and the derived
   * cluster ID on first sight.
   */
  private async verifyIdentity(
    name: string,
    cc: KubeObject,
    spec: ClusterSpec,
    state: ClusterState,
    consumer: ConnectSuccess,
    conds: ClusterConditions,
  ): Promise<{ ok: true; clusterID: string } | { ok: false; requeue: Requeue }> {
    const refuse = async (reason: string, message: string, requeue: Requeue, status?: object) => {
      consumer.client.close();
      await this.writeClusterStatus(cc, {
        ...status,
        conditions: conds(
          ['True', 'Connected', 'connected'],
          ['False', reason, message],
          ['False', reason, message],
        ),
      });
      return { ok: false as const, requeue };
    };
    const uid = consumer.kubeSystemUID;
    if (uid === '') {
      state.verified = false;
      state.withdrawn = true;
      await this.stopCluster(name, false);
      const msg = 'cannot read the kube-system namespace: grant the serving role';
      return refuse(
        'IdentityUnreadable',
        msg,
        { requeueAfterMs: Math.min(this.timings.resyncMs, 10_000) },
        { identity: consumer.identity, blueprints: [] },
      );
    }
    if (spec.kubeSystemUID && spec.kubeSystemUID !== uid) {
      state.verified = false;
      state.withdrawn = false;
      await this.stopCluster(name, false);
      const msg = `the kube-system namespace UID is ${uid}, registered ${spec.kubeSystemUID}: register the cluster anew`;
      return refuse(
        'ClusterIdentityChanged',
        msg,
        { requeueAfterMs: this.timings.resyncMs },
        { identity: consumer.identity, blueprints: [] },
      );
    }
    let clusterID = spec.clusterID ?? '';
    if (clusterID !== '' && !CLUSTER_ID_PATTERN.test(clusterID)) {
      return refuse(
        'InvalidClusterID',
        `spec.clusterID ${clusterID} must match ${CLUSTER_ID_PATTERN.source}`,
        undefined,
      );
    }
    if (!spec.kubeSystemUID || !clusterID) {
      clusterID ||= clusterIdFromUid(uid);
      await this.client.patch(
        { apiVersion: KROP_API_VERSION, kind: CONSUMER_KIND, name },
        { spec: { clusterID, kubeSystemUID: uid } },
        { type: 'merge', fieldManager: REGISTRAR_MANAGER },
      );
    }
    return { ok: true, clusterID };
  }

  /** Keeps the running connection while its Secret and cluster ID are unchanged; else replaces it. */
  private async adoptConnection(
    name: string,
    state: ClusterState,
    connected: { consumer: ConnectSuccess; secretVersion: string },
    clusterID: string,
  ): Promise<Connection> {
    const { consumer, secretVersion } = connected;
    if (state.conn && state.secretVersion === secretVersion && state.conn.clusterID === clusterID) {
      consumer.client.close();
      state.conn.identity = consumer.identity;
    } else {
      if (state.conn) {
        await this.stopCluster(name, false);
        state.conn.client.close();
      }
      state.conn = { name, clusterID, client: consumer.client, identity: consumer.identity };
      state.secretVersion = secretVersion;
    }
    state.verified = true;
    state.withdrawn = false;
    return state.conn;
  }
  /** Serves every blueprint the registration selects and stops the loops of the others. */
  private async serveSelected(
    name: string,
    spec: ClusterSpec,
    conn: Connection,
  ): Promise<ServeEntryStatus[]> {
    const selected = [...this.registrar.registry.values()].filter((bp) =>
      selects(spec.blueprintSelector, bp.labels),
    );
    const entries: ServeEntryStatus[] = [];
    for (const bp of selected) entries.push(await this.serveBlueprint(name, bp, conn));
    const selectedNames = new Set(selected.map((b) => b.name));
    for (const [k, l] of this.loops) {
      if (l.conn.name === name && !selectedNames.has(l.bp.name)) {
        this.loops.delete(k);
        await l.informer.stop();
      }
    }
    return entries;
  }

  /** Starts, keeps or stops the serving loop of one (blueprint, cluster); its entry for the status. */
  private async serveBlueprint(
    name: string,
    bp: PublishedBlueprint,
    conn: Connection,
  ): Promise<ServeEntryStatus> {
    const key = `${bp.name}|${name}`;
    try {
      const running = this.loops.get(key);
      const res = await startServing(
        {
          log: this.log,
          crdWaitMs: this.timings.crdWaitMs,
          onInstance: (b, c, o) => this.enqueueInstance(b, c, o),
          onExit: (l) => this.loopExited(key, l),
        },
        bp,
        conn,
        running,
      );
      if (!res.status.served)
        this.log.info(
          { cluster: name, blueprint: bp.name, reason: res.status.reason, message: res.status.message },
          'not served',
        );
      if (res.loop && res.loop !== running) {
        if (running) await running.informer.stop();
        this.loops.set(key, res.loop);
        this.serveStarts.set(bp.name, (this.serveStarts.get(bp.name) ?? 0) + 1);
        // Events delivered while the informer synced found no loop yet: reconcile every instance now.
        for (const o of res.loop.informer.list()) this.enqueueInstance(bp, conn, o);
      } else if (!res.loop && running) {
        this.loops.delete(key);
        await running.informer.stop();
      }
      return res.status;
    } catch (e) {
      this.log.warn({ cluster: name, blueprint: bp.name, err: errorMessage(e) }, 'serving failed');
      return {
        name: bp.name,
        exportedAPI: bp.exportName,
        specHash: bp.specHash,
        served: false,
        reason: 'ServingNotGranted',
        message: errorMessage(e),
      };
    }
  }

  /**
   * A connected cluster's probe failed (design/planes.md §3.3.4): `Connected=False`/`Unreachable` at once, the sweeper
   * treats it as unreachable, and a reconnect is queued (it keeps retrying while the cluster is down;
   * the probe queues one more when it answers again).
   */
  private async clusterDown(name: string, message: string): Promise<void> {
    const state = this.clusters.get(name);
    if (!state?.conn) return;
    state.reachable = false;
    this.log.warn({ cluster: name, err: message }, 'consumer cluster unreachable');
    const cc = this.clusterInformer?.get(undefined, name);
    if (cc && !cc.metadata.deletionTimestamp) {
      const prev = previous(cc);
      const gen = cc.metadata.generation ?? 0;
      const now = () => new Date().toISOString().replace(/\.\d+Z$/, 'Z');
      await this.writeClusterStatus(cc, {
        conditions: [
          condition(prev, 'Connected', 'False', 'Unreachable', message, gen, now),
          condition(prev, 'IdentityVerified', 'Unknown', 'Unknown', 'not connected', gen, now),
          condition(prev, 'Ready', 'False', 'Unreachable', message, gen, now),
        ],
      });
    }
    this.clusterQueue.add(name);
  }

  /**
   * A serving loop ended on its own (design/planes.md §14.2): its entry is removed only while it is still the current
   * generation, so a slow-exiting old loop never removes a newer one; the next cluster resync serves
   * again. Returns whether the entry was removed.
   */
  loopExited(key: string, loop: ServingLoop): boolean {
    if (this.loops.get(key) !== loop) return false;
    this.loops.delete(key);
    return true;
  }

  private async stopCluster(name: string, forget = true): Promise<void> {
    for (const [k, l] of this.loops) {
      if (l.conn.name !== name) continue;
      this.loops.delete(k);
      await l.informer.stop();
    }
    await this.childWatches.stopConsumer(name);
    if (forget) {
      this.clusters.get(name)?.conn?.client.close();
      this.clusters.delete(name);
    }
  }

  private async applyClusterMeta(name: string, meta: Record<string, unknown>): Promise<void> {
    try {
      await this.client.apply(
        { apiVersion: KROP_API_VERSION, kind: CONSUMER_KIND, metadata: { name, ...meta } } as KubeObject,
        { fieldManager: REGISTRAR_MANAGER, force: true },
      );
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }

  private async writeClusterStatus(cc: KubeObject, status: Record<string, unknown>): Promise<void> {
    const current = (cc.status ?? {}) as Record<string, unknown>;
    const merged = { ...current, ...status };
    if (JSON.stringify(merged) === JSON.stringify(current)) return;
    await this.client.applyStatus(
      {
        apiVersion: KROP_API_VERSION,
        kind: CONSUMER_KIND,
        metadata: { name: cc.metadata.name },
        status: merged,
      } as KubeObject,
      { fieldManager: REGISTRAR_MANAGER, force: true },
    );
  }

  // ------------------------------------------------------------------ instances

  private enqueueInstance(bp: PublishedBlueprint, conn: Connection, o: KubeObject): void {
    const key = `${bp.name}|${conn.name}|${o.metadata.namespace ?? ''}|${o.metadata.name ?? ''}`;
    this.childWatches.track(key, conn.clusterID, o.metadata.uid);
    this.instanceQueue.add(key);
  }

  private async reconcileInstance(key: string): Promise<{ requeueAfterMs: number } | undefined> {
    const [bpName = '', cluster = '', ns = '', name = ''] = key.split('|');
    const loop = this.loops.get(`${bpName}|${cluster}`);
    if (!loop) return undefined; // not served (any more)
    const current = this.registrar.registry.get(bpName);
    if (!current || current.specHash !== loop.bp.specHash) return undefined; // a restart is under way
    const inst = loop.informer.get(loop.bp.namespaced ? ns : undefined, name);
    let out: Awaited<ReturnType<InstanceReconciler['reconcile']>>;
    const running = this.instances.reconcile(loop.bp, loop.conn, inst);
    const set = this.inflight.get(cluster) ?? new Set<Promise<unknown>>();
    this.inflight.set(cluster, set);
    set.add(running);
    try {
      out = await running;
    } catch (e) {
      this.reconciles.set('error', (this.reconciles.get('error') ?? 0) + 1);
      throw e;
    } finally {
      set.delete(running);
    }
    const outcome = out.kind === 'reconciled' ? (out.ready ? 'ready' : 'notReady') : out.kind;
    this.reconciles.set(outcome, (this.reconciles.get(outcome) ?? 0) + 1);
    this.log.debug({ instance: key, kind: out.kind, ready: out.ready }, 'instance reconciled');
    if (out.kind === 'gone' || out.kind === 'deleted') await this.childWatches.forget(key);
    else if (out.pass && this.loops.get(`${bpName}|${cluster}`) === loop)
      await this.childWatches.observe(key, loop.bp, loop.conn, out.pass);
    if (out.kind === 'finalizerAdded') return { requeueAfterMs: 0 };
    return out.requeueAfterMs !== undefined ? { requeueAfterMs: out.requeueAfterMs } : undefined;
  }
}

/** The cluster IDs of registrations not being deleted. */
function clusterIDsOf(registrations: readonly KubeObject[]): Set<string> {
  const out = new Set<string>();
  for (const c of registrations) {
    if (c.metadata.deletionTimestamp) continue;
    const id = ((c.spec ?? {}) as { clusterID?: string }).clusterID;
    if (id) out.add(id);
  }
  return out;
}

function previous(o: KubeObject): Condition[] {
  const s = o.status as { conditions?: unknown } | undefined;
  return Array.isArray(s?.conditions) ? (s.conditions as Condition[]) : [];
}

/** `blueprintSelector`: absent selects none, `{}` selects all (design/planes.md §3.3.1). */
export function selects(selector: unknown, labels: Record<string, string>): boolean {
  if (selector === undefined || selector === null) return false;
  const check = toLabelSelector(selector);
  return check.ok && matchesSelector(check.selector, labels);
}

function sameList(a: string[] | undefined, b: string[] | undefined): boolean {
  return JSON.stringify(a ?? []) === JSON.stringify(b ?? []);
}
