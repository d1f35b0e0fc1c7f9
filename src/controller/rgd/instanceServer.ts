/**
 * Serving the generated APIs: one informer per generated kind (per namespace when the controller is
 * restricted to namespaces), one work queue for all instances, the instance reconciler, and the routing
 * of child events to the instances that read them. The registrar calls `serve` when an RGD becomes
 * active (and again with a new compiled graph: the kind's instances are then all reconciled on it) and
 * `stop` when it no longer is.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { Informer, type KubeObject, type RestClient, WorkQueue } from '../../kube/index.ts';
import { withSpan, writerOf } from '../../kube/tracing/tracing.ts';
import { failedPassLogger } from '../core/errors.ts';
import type { ControllerMetrics } from '../core/metrics.ts';
import { serviceAccountUser } from '../core/names.ts';
import { historyKey, type Observability } from '../core/observability.ts';
import type { ReconcileOutcome } from '../core/outcome.ts';
import { outcomeAttributes, passAttributes } from '../core/passSpan.ts';
import type { ReadScope } from '../core/readAccess.ts';
import { InterestRoutes } from '../core/routes.ts';
import { newsTo, type WatchEventInfo, type WatchSet } from '../core/watches.ts';
import { rgdCacheTransforms } from './caches.ts';
import type { GroupKindVersions } from './children.ts';
import type { InstanceMetrics } from './instanceMetrics.ts';
import {
  type InstanceApi,
  InstanceReconciler,
  type InstanceReconcilerDeps,
  instanceKey,
} from './instanceReconciler.ts';
import { instanceServiceAccount } from './names.ts';

/** The longest `stop` waits for the reconciles in flight of the RGD it stops. */
const STOP_WAIT_MS = 30_000;

interface Served {
  api: InstanceApi;
  informers: Informer[];
  /** The coordinator's view of every bucket's instances (fleetView), apart from those it serves. */
  fleet: Informer[];
}

/**
 * What happened to an instance while its reconcile ran: child events and updates of the instance
 * itself. Most are the echoes of the reconcile's own writes, whose answers may not be read yet when
 * the event comes; they are judged when the reconcile ends, so an echo never costs another reconcile
 * and real news always gets one.
 */
interface InFlight {
  events: WatchEventInfo[];
  overflow: boolean;
  updates: KubeObject[];
  /** The UIDs of versions of the instance deleted meanwhile: forgotten when the reconcile ends. */
  deleted: string[];
}

/** Events kept per running reconcile; past that, the instance is simply reconciled again. */
const MAX_INFLIGHT_EVENTS = 1000;

export interface InstanceServerOptions {
  client: RestClient;
  watches: WatchSet;
  versions: GroupKindVersions;
  log: Logger;
  /** Watch instances only in these namespaces (undefined: all). */
  namespaces?: readonly string[];
  /** Cache and reconcile only the instances this label selector matches (a replica's buckets). */
  instanceSelector?: string;
  resyncMs: number;
  maxCollectionSize?: number;
  applyConcurrency?: number;
  metrics?: () => ControllerMetrics | undefined;
  /** kro's instance reconcile series (instanceMetrics.ts). */
  instanceMetrics?: InstanceMetrics;
  /** The reads of a ServiceAccount, for RGDs with `spec.defaultServiceAccounts` (readAccess.ts). */
  reads?: (namespace: string, serviceAccount: string) => ReadScope;
  /** Events and reconcile history of each pass (core/observability.ts). */
  observe?: Observability;
  /** The revision of each pass (revisionResolver.ts). */
  resolveRevision?: InstanceReconcilerDeps['resolveRevision'];
  /** Told when a pass ended (the rollout controller, rollout/controller.ts). */
  onPass?: InstanceReconcilerDeps['onPass'];
  /** Record each pass's revision on the instance (sharded replicas; instanceReconciler.ts). */
  publishPasses?: boolean;
  /**
   * With `instanceSelector`: `ensureFleet` may cache every instance of every bucket, to read only (the
   * sharded coordinator's rollouts see the whole fleet; design/sharding.md §6).
   */
  fleetView?: boolean;
  /** An instance of the fleet view changed (the rollout controller looks again). */
  onFleetChange?: (rgdName: string) => void;
}

export class InstanceServer {
  readonly queue = new WorkQueue<string>();
  private readonly opts: InstanceServerOptions;
  private readonly reconciler: InstanceReconciler;
  private readonly served = new Map<string, Served>();
  private readonly routes = new InterestRoutes();
  private readonly inflight = new Map<string, InFlight>();
  private running: Promise<void> | undefined;

  constructor(opts: InstanceServerOptions) {
    this.opts = opts;
    this.reconciler = new InstanceReconciler({
      client: opts.client,
      ...(opts.reads ? { reads: opts.reads } : {}),
      watches: opts.watches,
      versions: opts.versions,
      instances: { get: (api, ns, name) => this.getInstance(api, ns, name) },
      log: opts.log,
      ...(opts.maxCollectionSize !== undefined ? { maxCollectionSize: opts.maxCollectionSize } : {}),
      ...(opts.applyConcurrency !== undefined ? { applyConcurrency: opts.applyConcurrency } : {}),
      ...(opts.resolveRevision ? { resolveRevision: opts.resolveRevision } : {}),
      ...(opts.onPass ? { onPass: opts.onPass } : {}),
      ...(opts.publishPasses ? { publishPasses: true } : {}),
    });
  }

  start(concurrency: number): void {
    this.running = this.queue.run(
      (key) => this.handle(key),
      concurrency,
      failedPassLogger(this.opts.log, 'instance'),
    );
  }

  async stopAll(): Promise<void> {
    await this.queue.shutdown();
    await this.running;
    await Promise.all(
      [...this.served.values()].flatMap((s) => [...s.informers, ...s.fleet].map((i) => i.stop())),
    );
    this.served.clear();
  }

  /** Routes a child's watch event to the instances that read it. */
  routeEvent(e: WatchEventInfo): void {
    for (const [key, seen] of this.inflight) {
      if (e.echoOf === key) continue;
      if (seen.events.length < MAX_INFLIGHT_EVENTS) seen.events.push(e);
      else seen.overflow = true;
    }
    for (const k of this.routes.owners(e)) {
      // A running reconcile decides at its end (its interest may change); an echo is no news.
      if (k !== e.echoOf && !this.inflight.has(k)) this.queue.add(k);
    }
  }

  /** The RGD serving a group/kind, if any. */
  servedBy(group: string, kind: string): string | undefined {
    for (const [rgd, s] of this.served) if (s.api.group === group && s.api.kind === kind) return rgd;
    return undefined;
  }

  isServing(rgdName: string, api: InstanceApi): boolean {
    const s = this.served.get(rgdName);
    return s !== undefined && s.api.compiled === api.compiled && s.informers.every((i) => i.hasSynced());
  }

  /** Starts (or re-points) the informers of an RGD's kind; resolves once they are synced. */
  async serve(rgdName: string, api: InstanceApi): Promise<void> {
    const prev = this.served.get(rgdName);
    const sameKind =
      prev &&
      prev.api.group === api.group &&
      prev.api.version === api.version &&
      prev.api.kind === api.kind &&
      prev.api.plural === api.plural &&
      prev.api.namespaced === api.namespaced;
    if (prev && sameKind) {
      if (prev.api.compiled !== api.compiled || prev.api.revision !== api.revision) {
        // A new compiled graph: every instance is reconciled on it.
        prev.api = api;
        for (const inf of prev.informers) for (const k of inf.keys()) this.queue.add(`${rgdName}|${k}`);
      }
      await Promise.all(prev.informers.map((i) => i.waitForSync(60_000)));
      return;
    }
    if (prev) await this.stop(rgdName);
    const scopes = api.namespaced && this.opts.namespaces ? [...this.opts.namespaces] : [undefined];
    const entry: Served = { api, informers: [], fleet: [] };
    for (const ns of scopes) {
      const inf = new Informer(this.opts.client, {
        target: {
          apiVersion: `${api.group}/${api.version}`,
          plural: api.plural,
          ...(ns ? { namespace: ns } : {}),
        },
        ...(this.opts.instanceSelector ? { labelSelector: this.opts.instanceSelector } : {}),
        resyncMs: this.opts.resyncMs,
        onError: (e) => this.opts.log.debug({ err: String(e), kind: api.kind }, 'instance watch error'),
        transform: rgdCacheTransforms.instance,
      });
      const keyOf = (o: KubeObject): string =>
        instanceKey(rgdName, o.metadata.namespace ?? '', o.metadata.name ?? '');
      const enqueue = (o: KubeObject): void => this.queue.add(keyOf(o));
      inf.addHandlers({
        add: enqueue,
        update: (o, n) => {
          const running = this.inflight.get(keyOf(n));
          if (
            running &&
            o !== n &&
            o.metadata.generation === n.metadata.generation &&
            !n.metadata.deletionTimestamp
          ) {
            // Likely the echo of a write of the running reconcile: decided when it ends.
            running.updates.push(n);
            return;
          }
          // The echo of our own write (status, parent metadata) changes nothing we act on.
          const echo =
            o.metadata.generation === n.metadata.generation &&
            !n.metadata.deletionTimestamp &&
            this.reconciler.isOwnEcho(n);
          if (o === n || !echo) enqueue(n);
        },
        delete: (o) => {
          this.forgetInstance(keyOf(o), o.metadata.uid ?? '');
          enqueue(o);
        },
      });
      inf.start();
      entry.informers.push(inf);
      if (this.opts.fleetView && this.opts.instanceSelector)
        entry.fleet.push(this.fleetInformer(rgdName, api, ns));
    }
    this.served.set(rgdName, entry);
    await Promise.all([...entry.informers, ...entry.fleet].map((i) => i.waitForSync(60_000)));
    this.opts.log.info(
      { rgd: rgdName, kind: `${api.kind}.${api.group}/${api.version}` },
      'serving instances',
    );
  }

  async stop(rgdName: string): Promise<void> {
    const s = this.served.get(rgdName);
    if (!s) return;
    this.served.delete(rgdName);
    // No longer served: nothing is kept for its instances (serving it again starts from the caches).
    for (const inf of s.informers)
      for (const o of inf.list())
        this.forgetInstance(
          instanceKey(rgdName, o.metadata.namespace ?? '', o.metadata.name ?? ''),
          o.metadata.uid ?? '',
        );
    await Promise.all([...s.informers, ...s.fleet].map((i) => i.stop()));
    // Reconciles of its instances already running finish first: a deleting RGD loses its finalizer only
    // once nothing acts for it any more (design/rgd.md §19.6). Bounded, should a call hang.
    const running = () => [...this.inflight.keys()].some((k) => k.startsWith(`${rgdName}|`));
    for (let waited = 0; running() && waited < STOP_WAIT_MS; waited += 20) await sleep(20);
    this.opts.log.info({ rgd: rgdName, kind: s.api.kind }, 'stopped serving instances');
  }

  /**
   * Enqueues the instances that run as one of these ServiceAccount users (their access answers changed
   * on an RBAC event): a grant makes a refused instance converge without waiting for its backoff.
   */
  reconcileServiceAccounts(users: ReadonlySet<string>): void {
    for (const [rgd, s] of this.served) {
      const map = s.api.compiled.rgd?.defaultServiceAccounts;
      if (!map) continue;
      for (const inf of s.informers) {
        for (const o of inf.list()) {
          const ns = o.metadata.namespace ?? '';
          const sa = instanceServiceAccount(map, ns);
          if (sa !== undefined && users.has(serviceAccountUser(sa.namespace, sa.name)))
            this.queue.add(`${rgd}|${ns}/${o.metadata.name ?? ''}`);
        }
      }
    }
  }

  /** Enqueues the served instances of one RGD that `which` selects (all without it). */
  enqueueOf(rgdName: string, which: (o: KubeObject) => boolean = () => true): void {
    for (const inf of this.served.get(rgdName)?.informers ?? [])
      for (const o of inf.list())
        if (which(o)) this.queue.add(instanceKey(rgdName, o.metadata.namespace ?? '', o.metadata.name ?? ''));
  }

  /** The instance API an RGD is served with (its `revision` is the latest). */
  apiOf(rgdName: string): InstanceApi | undefined {
    return this.served.get(rgdName)?.api;
  }

  /** The served instances of one RGD, as cached. */
  instancesOf(rgdName: string): KubeObject[] {
    return (this.served.get(rgdName)?.informers ?? []).flatMap((i) => i.list());
  }

  /** Every instance of one RGD, whichever replica serves it, once `ensureFleet`; else the served ones. */
  fleetOf(rgdName: string): KubeObject[] {
    const s = this.served.get(rgdName);
    if (!s) return [];
    return (s.fleet.length > 0 ? s.fleet : s.informers).flatMap((i) => i.list());
  }

  /**
   * Starts (once) and syncs the fleet view of a served RGD's kind: a cost only an RGD under a rollout
   * pays. Without `fleetView` (one replica serves everything) there is nothing to add.
   */
  async ensureFleet(rgdName: string): Promise<void> {
    const s = this.served.get(rgdName);
    if (!s || !this.opts.fleetView || !this.opts.instanceSelector) return;
    if (s.fleet.length === 0) {
      const scopes = s.api.namespaced && this.opts.namespaces ? [...this.opts.namespaces] : [undefined];
      s.fleet = scopes.map((ns) => this.fleetInformer(rgdName, s.api, ns));
    }
    await Promise.all(s.fleet.map((i) => i.waitForSync(60_000)));
  }

  /** Stops the fleet view of an RGD (its rollout is gone). */
  async dropFleet(rgdName: string): Promise<void> {
    const s = this.served.get(rgdName);
    if (!s || s.fleet.length === 0) return;
    const fleet = s.fleet;
    s.fleet = [];
    await Promise.all(fleet.map((i) => i.stop()));
  }

  /** A read-only informer of every bucket's instances of a kind (fleetView). */
  private fleetInformer(rgdName: string, api: InstanceApi, ns: string | undefined): Informer {
    const inf = new Informer(this.opts.client, {
      target: {
        apiVersion: `${api.group}/${api.version}`,
        plural: api.plural,
        ...(ns ? { namespace: ns } : {}),
      },
      resyncMs: this.opts.resyncMs,
      onError: (e) => this.opts.log.debug({ err: String(e), kind: api.kind }, 'fleet watch error'),
      transform: rgdCacheTransforms.instance,
    });
    const changed = (): void => this.opts.onFleetChange?.(rgdName);
    inf.addHandlers({ add: changed, update: changed, delete: changed });
    inf.start();
    return inf;
  }

  /** Enqueues every served instance (what an informer resync does). */
  enqueueAll(): void {
    for (const [rgd, s] of this.served)
      for (const inf of s.informers) for (const k of inf.keys()) this.queue.add(`${rgd}|${k}`);
  }

  /**
   * An instance is gone (its delete event, or its RGD is no longer served): its echo records, wait
   * backoffs, event routes and queue failures go with it. During a reconcile of it, when that ends
   * (the reconcile may still record a write).
   */
  private forgetInstance(key: string, uid: string): void {
    const running = this.inflight.get(key);
    if (running) {
      running.deleted.push(uid);
      return;
    }
    this.reconciler.forget(uid);
    this.routes.set(key, undefined);
    this.queue.forget(key);
  }

  /** How many instances each per-instance structure holds (tests, benchmarks). */
  retained(): Record<string, number> {
    return {
      ...this.reconciler.retained(),
      routes: this.routes.size,
      inflight: this.inflight.size,
    };
  }

  instanceCount(): number {
    let n = 0;
    for (const s of this.served.values()) for (const i of s.informers) n += i.size;
    return n;
  }

  /** The cached copy of an instance of a served RGD (as the informer's transform left it). */
  cachedInstance(rgdName: string, namespace: string, name: string): KubeObject | undefined {
    const s = this.served.get(rgdName);
    return s ? this.getInstance(s.api, namespace, name) : undefined;
  }

  private getInstance(api: InstanceApi, namespace: string, name: string): KubeObject | undefined {
    for (const s of this.served.values()) {
      if (s.api.kind !== api.kind || s.api.group !== api.group) continue;
      for (const inf of s.informers) {
        const o = inf.get(api.namespaced ? namespace : undefined, name);
        if (o) return o;
      }
    }
    return undefined;
  }

  /** Hands the pass to the events and the history (core/observability.ts). */
  private observed(
    api: InstanceApi,
    ns: string,
    name: string,
    outcome: ReconcileOutcome,
    started: bigint,
    traceId: string | undefined,
  ): void {
    const observe = this.opts.observe;
    if (!observe) return;
    const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
    const apiVersion = `${api.group}/${api.version}`;
    const inst = this.getInstance(api, ns, name);
    observe.passEnded({
      key: historyKey(apiVersion, api.kind, ns, name),
      regarding: {
        apiVersion,
        kind: api.kind,
        name,
        ...(ns ? { namespace: ns } : {}),
        uid: inst?.metadata.uid,
        resourceVersion: inst?.metadata.resourceVersion,
      },
      outcome,
      startedAt: Date.now() - durationMs,
      durationMs,
      ...(traceId ? { traceId } : {}),
    });
  }

  private async handle(key: string): Promise<{ requeueAfterMs?: number } | undefined> {
    const bar = key.indexOf('|');
    const rgdName = key.slice(0, bar);
    const rest = key.slice(bar + 1);
    const slash = rest.indexOf('/');
    const ns = rest.slice(0, slash);
    const name = rest.slice(slash + 1);
    const s = this.served.get(rgdName);
    if (!s) return undefined; // no longer served
    const started = process.hrtime.bigint();
    const seen: InFlight = { events: [], overflow: false, updates: [], deleted: [] };
    this.inflight.set(key, seen);
    let outcome: ReconcileOutcome;
    let traceId: string | undefined;
    try {
      // One span per pass (tracing off: none), its requests and phases below it (docs/observability.md).
      outcome = await withSpan(
        'reconcile',
        passAttributes(s.api, ns, name, this.queue.queueWaitMs(key)),
        async (span) => {
          traceId = span?.traceId;
          const o = await this.reconciler.reconcile(s.api, ns, name);
          span?.setAttributes(outcomeAttributes(o));
          return o;
        },
        // A nested instance written by a traced pass joins that pass's trace.
        writerOf(`${s.api.group}/${s.api.version}`, s.api.kind, ns || undefined, name),
      );
    } catch (e) {
      this.inflight.delete(key);
      for (const uid of seen.deleted) this.forgetInstance(key, uid);
      if (seen.updates.some((u) => !this.reconciler.isOwnEcho(u))) this.queue.add(key);
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      this.opts.metrics?.()?.observeReconcile('error', seconds);
      this.opts.instanceMetrics?.observe(s.api, 'error', seconds);
      throw e;
    }
    this.inflight.delete(key);
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    this.opts.metrics?.()?.observeReconcile(outcome.kind, seconds);
    this.opts.instanceMetrics?.observe(s.api, outcome.kind, seconds);
    this.observed(s.api, ns, name, outcome, started, traceId);
    const ended = outcome.kind === 'gone' || outcome.kind === 'deleted';
    this.routes.set(key, ended ? undefined : outcome.interest);
    // Deleted while it ran: forgotten now that its writes are recorded (the delete event queued it
    // again, and that pass finds it gone).
    for (const uid of seen.deleted) this.forgetInstance(key, uid);
    if (!ended) {
      const news =
        seen.overflow ||
        seen.updates.some((u) => !this.reconciler.isOwnEcho(u)) ||
        seen.events.some((e) => this.routes.owners(e).has(key) && newsTo(this.opts.watches, key, e));
      if (news) this.queue.add(key);
    }
    this.opts.log.debug(
      { instance: key, result: outcome.kind, reason: outcome.reason },
      'instance reconciled',
    );
    if (outcome.error) throw outcome.error;
    return outcome.requeueAfterMs !== undefined ? { requeueAfterMs: outcome.requeueAfterMs } : undefined;
  }
}
