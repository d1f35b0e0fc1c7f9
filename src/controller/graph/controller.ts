/**
 * The Graph controller: an informer on Graphs, informers on every kind they read or write (started on
 * demand, watch.ts), a work queue with N workers, re-compilation when CRDs change, and the routing of
 * watch events to the Graphs that read the changed object (recorded during their last evaluation).
 */
import pino, { type Logger } from 'pino';
import { kubectlNameIn } from '../../diag/objectName.ts';
import {
  crdApiVersions,
  crdWithoutSchemas,
  dropManagedFields,
  Informer,
  type KubeObject,
  objectKey,
  type RestClient,
  WorkQueue,
  watchCRDs,
} from '../../kube/index.ts';
import { withSpan, writerOf } from '../../kube/tracing/tracing.ts';
import { childSelector } from '../core/childScope.ts';
import { failedPassLogger } from '../core/errors.ts';
import { GraphCompiler } from '../core/graphCompiler.ts';
import { ControllerMetrics } from '../core/metrics.ts';
import { CONTROLLER_MANAGER, isGraphManager, serviceAccountUser } from '../core/names.ts';
import { historyKey, type Observability } from '../core/observability.ts';
import type { ReconcileOutcome } from '../core/outcome.ts';
import { outcomeAttributes } from '../core/passSpan.ts';
import { controllerReads, type RbacWatch, type SharedReadAccess } from '../core/rbacChanges.ts';
import type { ReadAccess } from '../core/readAccess.ts';
import { InterestRoutes } from '../core/routes.ts';
import { instrumentQueue } from '../core/standardMetrics.ts';
import type { Interest, WatchEventInfo } from '../core/watches.ts';
import { newsTo, WatchSet } from '../core/watches.ts';
import { installGraphCrd } from './crd.ts';
import { graphEvents } from './graphEvents.ts';
import { GRAPH_API_VERSION, GRAPH_PLURAL } from './names.ts';
import { GraphReconciler } from './reconciler.ts';
import { serviceAccountNameOf } from './serviceAccount.ts';

/** How a Graph controller runs (`kgraph controller` sets these from its flags). */
export interface ControllerOptions {
  /** The controller's own identity: watches, status writes; Graph writes impersonate (design/graph.md §24). */
  client: RestClient;
  /**
   * Sharded (design/sharding.md §4): the label selector of this replica's buckets; Graphs and instances
   * (their children: `childShardSelector`) outside it are neither cached nor reconciled here.
   * @default every object
   */
  shardSelector?: string;
  /**
   * Sharded: the selector narrowing the child caches to this replica's buckets (design/sharding.md §4);
   * absent while the two-phase upgrade labels children: the child caches then hold every child of
   * kgraph's, as one replica's do.
   */
  childShardSelector?: string;
  /**
   * Reconcile only Graphs of these namespaces (and watch namespaced kinds only there).
   * @default all namespaces
   */
  namespaces?: readonly string[];
  /**
   * Graphs reconciled in parallel (design/graph.md §25).
   * @default 1
   */
  concurrency?: number;
  /**
   * Install (apply) the Graph CRD on start.
   * @default true
   */
  installCrd?: boolean;
  /** @default a pino logger named `kgraph-controller` at `KGRAPH_LOG_LEVEL` (else info) */
  log?: Logger;
  /**
   * Informer resync.
   * @default 36_000_000 (10 h)
   */
  resyncMs?: number;
  /**
   * Items per forEach collection before the node fails (design/graph.md §25, `--rgd-max-collection-size`).
   * @default 1000
   */
  maxCollectionSize?: number;
  /**
   * How long a cached access answer is trusted without an RBAC event.
   * @default 60_000 (60 s)
   */
  readAccessTtlMs?: number;
  /**
   * Told when a Graph is queued and when its reconciles start and end (bench/ timelines).
   * @default none
   */
  trace?: (e: ReconcileTrace) => void;
  /** The reconcile history (and later events) of each pass (core/observability.ts). */
  observe?: Observability;
  /**
   * The process's access cache and RBAC watch, shared with the RGD controller (`kgraph controller`);
   * its owner stops the watch.
   * @default the controller builds its own (readAccessTtlMs applies)
   */
  sharedReads?: SharedReadAccess;
}

/** One step in a Graph's life in the controller, for profiling (`bench/converge.bench.ts`). */
export type ReconcileTrace =
  | { event: 'queued'; key: string; cause: 'graph' | 'watch' | 'access' | 'crd'; by?: string }
  | { event: 'started'; key: string }
  | { event: 'finished'; key: string; kind: string; reason: string; requeueAfterMs?: number; error?: string }
  | { event: 'error'; key: string; message: string };

export class GraphController {
  readonly client: RestClient;
  readonly metrics: ControllerMetrics;
  readonly queue: WorkQueue<string>;
  readonly log: Logger;
  private readonly opts: ControllerOptions;
  private readonly graphInformers: Informer[] = [];
  private readonly watches: WatchSet;
  /** What Graphs' ServiceAccounts may read (design/graph.md §24), re-checked on RBAC changes. */
  readonly reads: ReadAccess;
  private readonly rbacWatch: RbacWatch;
  /** False when the watch is shared (`sharedReads`): its owner stops it. */
  private readonly ownsRbacWatch: boolean;
  private readonly reconciler: GraphReconciler;
  private crdInformer: Informer | undefined;
  /** Which Graphs read which objects (event routing). */
  private readonly routes = new InterestRoutes();
  private running: Promise<void> | undefined;
  private started = false;
  /**
   * Watch events seen while a Graph's reconcile runs, per Graph key: its interest is recorded when the
   * reconcile ends, so an event on what it read arriving meanwhile (a child turning ready) would
   * otherwise reach nobody and the Graph would wait for its timer.
   */
  private readonly inflight = new Map<string, InFlight>();

  constructor(opts: ControllerOptions) {
    this.opts = opts;
    this.client = opts.client;
    this.log = opts.log ?? pino({ name: 'kgraph-controller', level: process.env.KGRAPH_LOG_LEVEL ?? 'info' });
    this.queue = new WorkQueue<string>();
    instrumentQueue('graph', this.queue);
    const namespaces = opts.namespaces && opts.namespaces.length > 0 ? opts.namespaces : undefined;
    this.watches = new WatchSet(this.client, {
      ...(namespaces ? { namespaces } : {}),
      resyncMs: opts.resyncMs ?? 36_000_000,
      onEvent: (e) => this.route(e),
      onError: (e) => this.log.debug({ err: String(e) }, 'watch error'),
      // The reconciler reads the field sets of its own managers only (no-op applies, ownership of
      // UIDs, releases); other managers' entries are dropped from the cache.
      keepManager: (m) => isGraphManager(m) || m === CONTROLLER_MANAGER,
      // Child informers hold kgraph's own objects only (design/sharding.md §1).
      childSelector: childSelector(opts.childShardSelector),
    });
    const resourceOf = (av: string, k: string) => this.watches.resourceOf(av, k);
    ({
      reads: this.reads,
      rbacWatch: this.rbacWatch,
      ownsRbacWatch: this.ownsRbacWatch,
    } = controllerReads(this.client, resourceOf, {
      shared: opts.sharedReads,
      ttlMs: opts.readAccessTtlMs,
      log: this.log,
    }));
    this.reads.onChange((users) => this.reconcileServiceAccounts(users));
    this.reconciler = new GraphReconciler({
      client: this.client,
      watches: this.watches,
      reads: this.reads,
      compiler: new GraphCompiler(this.client, { share: true, slim: true }),
      graphs: { get: (ns, name) => this.getGraph(ns, name) },
      log: this.log,
      ...(opts.maxCollectionSize !== undefined ? { maxCollectionSize: opts.maxCollectionSize } : {}),
    });
    this.metrics = new ControllerMetrics(this.client.counters, {
      queueDepth: () => this.queue.depth,
      graphs: () => this.graphInformers.reduce((n, i) => n + i.size, 0),
      informers: () => this.watches.informerCount(),
    });
  }

  /** Installs the CRD, starts the informers and the workers. Resolves once the caches are synced. */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    if (this.opts.installCrd !== false) await installGraphCrd(this.client);
    const namespaces =
      this.opts.namespaces && this.opts.namespaces.length > 0 ? this.opts.namespaces : [undefined];
    for (const ns of namespaces) {
      const inf = new Informer(this.client, {
        target: { apiVersion: GRAPH_API_VERSION, plural: GRAPH_PLURAL, ...(ns ? { namespace: ns } : {}) },
        ...(this.opts.shardSelector ? { labelSelector: this.opts.shardSelector } : {}),
        resyncMs: this.opts.resyncMs ?? 36_000_000,
        onError: (e) => this.log.debug({ err: String(e) }, 'graph watch error'),
        // Nothing reads who owns a Graph's fields (status is forced, the finalizer is a preconditioned
        // patch, the compiler drops them): about half of each cached Graph.
        transform: dropManagedFields,
      });
      const enqueue = (o: KubeObject): void =>
        this.enqueue(objectKey(o.metadata.namespace, o.metadata.name ?? ''), 'graph');
      inf.addHandlers({
        add: enqueue,
        update: (o, n) => {
          const key = objectKey(n.metadata.namespace, n.metadata.name ?? '');
          const running = this.inflight.get(key);
          if (
            running &&
            o !== n &&
            o.metadata.generation === n.metadata.generation &&
            !n.metadata.deletionTimestamp
          ) {
            // Likely the echo of a write of the running reconcile, whose answer may not be read yet:
            // decided when the reconcile ends.
            running.graphUpdates.push(n);
            return;
          }
          // The echo of our own status write changes nothing we act on.
          const same =
            o.metadata.generation === n.metadata.generation &&
            !n.metadata.deletionTimestamp &&
            this.reconciler.isOwnStatusEcho(n);
          if (o === n || !same) enqueue(n);
        },
        delete: enqueue,
      });
      inf.start();
      this.graphInformers.push(inf);
    }
    this.crdInformer = watchCRDs(this.client, {
      discovery: this.client.discovery,
      // Only which apiVersions changed matters here (design/sharding.md §1: what a cluster holds besides our objects).
      transform: crdWithoutSchemas,
      onChange: (crd) => {
        this.watches.invalidateTypes(crdApiVersions(crd));
        this.reconciler.invalidateCompiled();
        for (const inf of this.graphInformers) for (const k of inf.keys()) this.enqueue(k, 'crd');
      },
    });
    this.rbacWatch.start();
    await Promise.all([
      ...this.graphInformers.map((i) => i.waitForSync()),
      this.crdInformer.waitForSync(),
      this.rbacWatch.waitForSync(),
    ]);
    // After an API server outage, what failed on the connection is retried at once (kube/connectivity.ts).
    this.queue.retryOnReconnect(this.client.connectivity);
    this.running = this.queue.run(
      (key) => this.handle(key),
      this.opts.concurrency ?? 1,
      failedPassLogger(this.log, 'graph', 'reconcile failed'),
    );
    this.log.info(
      { namespaces: this.opts.namespaces ?? 'all', concurrency: this.opts.concurrency ?? 1 },
      'controller started',
    );
  }

  /** Graphs and children in the caches (a replica's share when sharded, design/sharding.md §4). */
  cachedObjects(): number {
    return this.graphInformers.reduce((n, i) => n + i.size, 0) + this.watches.cachedObjectCount();
  }

  /** True once started and the Graph caches are synced. */
  ready(): boolean {
    return this.started && this.graphInformers.length > 0 && this.graphInformers.every((i) => i.hasSynced());
  }

  async stop(): Promise<void> {
    await this.queue.shutdown();
    await this.running;
    await Promise.all(this.graphInformers.map((i) => i.stop()));
    await this.crdInformer?.stop();
    if (this.ownsRbacWatch) await this.rbacWatch.stop();
    await this.watches.stop();
  }

  /** Resolves when no Graph is queued or being processed (delayed retries excluded). */
  async idle(timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const s = this.queue.stats();
      if (s.depth === 0 && s.processing === 0) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error('controller did not become idle');
  }

  /** Reconciles the Graphs running as these ServiceAccount users (their access answers changed). */
  private reconcileServiceAccounts(users: ReadonlySet<string>): void {
    for (const inf of this.graphInformers) {
      for (const g of inf.list()) {
        const ns = g.metadata.namespace ?? '';
        if (users.has(serviceAccountUser(ns, serviceAccountNameOf(g)))) {
          this.enqueue(objectKey(ns, g.metadata.name ?? ''), 'access');
        }
      }
    }
  }

  private getGraph(namespace: string, name: string): KubeObject | undefined {
    for (const inf of this.graphInformers) {
      const g = inf.get(namespace, name);
      if (g) return g;
    }
    return undefined;
  }

  private async handle(key: string): Promise<{ requeueAfterMs?: number } | undefined> {
    const slash = key.indexOf('/');
    const ns = key.slice(0, slash);
    const name = key.slice(slash + 1);
    const started = process.hrtime.bigint();
    const trace = this.opts.trace;
    trace?.({ event: 'started', key });
    const seen: InFlight = { events: [], overflow: false, graphUpdates: [] };
    this.inflight.set(key, seen);
    let outcome: ReconcileOutcome;
    let traceId: string | undefined;
    try {
      // One span per pass when tracing is on; the Graph's API requests nest under it.
      outcome = await withSpan(
        'reconcile',
        { 'k8s.resource.kind': 'Graph', 'k8s.namespace.name': ns, 'k8s.object.name': name },
        async (span) => {
          traceId = span?.traceId;
          const o = await this.reconciler.reconcile(ns, name);
          span?.setAttributes(outcomeAttributes(o));
          return o;
        },
        writerOf(GRAPH_API_VERSION, 'Graph', ns, name),
      );
    } catch (e) {
      this.inflight.delete(key);
      if (seen.graphUpdates.some((g) => !this.reconciler.isOwnStatusEcho(g))) this.enqueue(key, 'graph');
      this.metrics.observeReconcile('error', Number(process.hrtime.bigint() - started) / 1e9);
      trace?.({ event: 'error', key, message: e instanceof Error ? e.message : String(e) });
      throw e;
    }
    this.metrics.observeReconcile(outcome.kind, Number(process.hrtime.bigint() - started) / 1e9);
    if (this.opts.observe && outcome.kind !== 'gone') {
      const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
      this.opts.observe.history?.record(
        historyKey(GRAPH_API_VERSION, 'Graph', ns, name),
        Date.now() - durationMs,
        durationMs,
        outcome,
        traceId,
      );
      const uid = this.getGraph(ns, name)?.metadata.uid;
      for (const e of graphEvents({ namespace: ns, name, uid }, outcome)) this.opts.observe.event(e);
    }
    trace?.({
      event: 'finished',
      key,
      kind: outcome.kind,
      reason: outcome.reason,
      ...(outcome.requeueAfterMs !== undefined ? { requeueAfterMs: outcome.requeueAfterMs } : {}),
      ...(outcome.error ? { error: outcome.error.message } : {}),
    });
    this.inflight.delete(key);
    if (seen.graphUpdates.some((g) => !this.reconciler.isOwnStatusEcho(g))) this.enqueue(key, 'graph');
    if (outcome.kind === 'gone' || outcome.kind === 'deleted') this.setInterest(key, undefined);
    else {
      this.setInterest(key, outcome.interest);
      const news = seen.events.find((e) => this.routes.owners(e).has(key) && newsTo(this.watches, key, e));
      if (news || seen.overflow) {
        this.enqueue(
          key,
          'watch',
          trace && news ? `${describeEvent(news)} (during the reconcile)` : undefined,
        );
      }
    }
    this.log.debug({ graph: key, result: outcome.kind, reason: outcome.reason }, 'reconciled');
    if (outcome.error) throw outcome.error;
    return outcome.requeueAfterMs !== undefined ? { requeueAfterMs: outcome.requeueAfterMs } : undefined;
  }

  private setInterest(graphKey: string, interest: Interest | undefined): void {
    this.routes.set(graphKey, interest);
  }

  private route(e: WatchEventInfo): void {
    for (const [key, seen] of this.inflight) {
      if (e.echoOf === key) continue;
      if (seen.events.length < 1000) seen.events.push(e);
      else seen.overflow = true;
    }
    const by = this.opts.trace ? describeEvent(e) : undefined;
    for (const g of this.routes.owners(e)) if (g !== e.echoOf) this.enqueue(g, 'watch', by);
  }

  private enqueue(key: string, cause: 'graph' | 'watch' | 'access' | 'crd', by?: string): void {
    this.opts.trace?.({ event: 'queued', key, cause, ...(by ? { by } : {}) });
    this.queue.add(key);
  }
}

/** What happened to a Graph while its reconcile ran (see `GraphController.inflight`). */
interface InFlight {
  events: WatchEventInfo[];
  overflow: boolean;
  graphUpdates: KubeObject[];
}

/** The object of a watch event as the trace log names it: kubectl-style (`configmap/cm -n ns`). */
function describeEvent(e: WatchEventInfo): string {
  return kubectlNameIn({
    apiVersion: e.apiVersion,
    kind: e.kind,
    namespace: e.obj.metadata.namespace,
    name: e.obj.metadata.name ?? '',
  });
}
