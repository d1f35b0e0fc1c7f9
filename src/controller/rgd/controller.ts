/**
 * The RGD controller: an informer on ResourceGraphDefinitions (optionally narrowed by a label selector,
 * to shard RGDs between controllers), the registrar on a work queue, the CRD watch that puts generated
 * CRDs back and recompiles RGDs whose schemas changed, and the instance server with its informers on
 * every child kind. Runs in the same process as the Graph controller (`kgraph controller`).
 */
import pino, { type Logger } from 'pino';
import { Registry } from 'prom-client';
import {
  crdApiVersions,
  Informer,
  type KubeObject,
  type RestClient,
  WorkQueue,
  watchCRDs,
} from '../../kube/index.ts';
import type { ObjectIdentity } from '../../runtime/observed.ts';
import { childSelector } from '../core/childScope.ts';
import { failedPassLogger } from '../core/errors.ts';
import type { EventRecord } from '../core/events/recorder.ts';
import { GraphCompiler } from '../core/graphCompiler.ts';
import { ControllerMetrics } from '../core/metrics.ts';
import type { Observability } from '../core/observability.ts';
import { controllerReads, type RbacWatch, type SharedReadAccess } from '../core/rbacChanges.ts';
import type { ReadAccess } from '../core/readAccess.ts';
import { instrumentQueue } from '../core/standardMetrics.ts';
import { WatchSet } from '../core/watches.ts';
import { isChildCacheManager, rgdCacheTransforms } from './caches.ts';
import { GroupKindVersions } from './children.ts';
import { installRgdCrd } from './crd.ts';
import { instanceMetrics } from './instanceMetrics.ts';
import { InstanceServer } from './instanceServer.ts';
import { LABEL_APPLYSET_PART_OF, RGD_API_VERSION, RGD_PLURAL } from './names.ts';
import { RgdRegistrar } from './registrar.ts';
import { revisionMetrics } from './revisionMetrics.ts';
import { revisionsNamed } from './revisionPolicy.ts';
import { RevisionResolver } from './revisionResolver.ts';
import { GraphRevisions } from './revisions.ts';
import { RolloutController } from './rollout/controller.ts';

/** How the RGD controller runs (`kgraph controller` sets these from its flags). */
export interface RgdControllerOptions {
  /** The controller's identity: it writes instance children and status as itself (design/graph.md §24). */
  client: RestClient;
  /**
   * Serve only RGDs with these labels (`k=v,k2=v2`), e.g. to split RGDs between controllers.
   * @default all RGDs
   */
  rgdSelector?: string;
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
   * Register RGDs (finalizer, CRD, status, GraphRevisions); false on a sharded replica that is not the
   * coordinator: it only serves the instances of RGDs the coordinator registered (design/sharding.md §6).
   * @default true
   */
  registration?: boolean;
  /**
   * Watch instances (and their children) only in these namespaces.
   * @default all namespaces
   */
  namespaces?: readonly string[];
  /**
   * Instances reconciled in parallel (design/graph.md §25).
   * @default 1
   */
  concurrency?: number;
  /**
   * Delete a generated CRD — and so every instance — when its RGD is deleted (design/rgd.md §19.4).
   * @default false
   */
  deleteCrds?: boolean;
  /**
   * GraphRevisions kept per RGD, newest first; 0 keeps all (design/rgd.md §19.5, kro's `--rgd-max-graph-revisions`).
   * @default 5
   */
  maxGraphRevisions?: number;
  /**
   * Apply the RGD CRD (and the GraphRevision CRD) on start.
   * @default true
   */
  installCrd?: boolean;
  /** @default a pino logger named `kgraph-rgd-controller` at `KGRAPH_LOG_LEVEL` (else info) */
  log?: Logger;
  /**
   * Informer resync.
   * @default 36_000_000 (10 h)
   */
  resyncMs?: number;
  /**
   * Items per forEach collection before the node fails (design/graph.md §25).
   * @default 1000
   */
  maxCollectionSize?: number;
  /**
   * How long a cached access answer is trusted without an RBAC event.
   * @default 60_000 (60 s)
   */
  readAccessTtlMs?: number;
  /**
   * The process's access cache and RBAC watch, shared with the Graph controller (`kgraph controller`);
   * its owner stops the watch.
   * @default the controller builds its own (readAccessTtlMs applies)
   */
  sharedReads?: SharedReadAccess;
  /** Events and reconcile history (core/observability.ts). @default none */
  observe?: Observability;
}

export class RgdController {
  readonly client: RestClient;
  readonly log: Logger;
  readonly metrics: ControllerMetrics;
  /**
   * kro's GraphRevision counters (revisionMetrics.ts) and instance reconcile series (instanceMetrics.ts), in a
   * registry of their own: `/metrics` renders only one of
   * the Graph and RGD registries when both controllers run (they hold the same names), never these twice.
   */
  readonly revisionSeries = new Registry();
  readonly queue = new WorkQueue<string>();
  private readonly opts: RgdControllerOptions;
  private readonly watches: WatchSet;
  private readonly server: InstanceServer;
  private readonly registrar: RgdRegistrar;
  /** Which GraphRevision each instance pass is reconciled at (design/rgd.md §19.7). */
  readonly revisionResolver: RevisionResolver;
  /** Progressive rollouts of RGD changes (GraphRollouts, design/rgd.md §19.8). */
  readonly rollouts: RolloutController;
  /** Revisions held besides the instances' own (a rollout's stable revision); retention keeps them. */
  private readonly heldRevisions: ((rgdName: string) => Iterable<number>)[] = [];
  /**
   * What RGDs' ServiceAccounts may read (`spec.defaultServiceAccounts`, docs/rgd.md), re-checked on RBAC
   * changes. The RBAC watch starts with the first instance that runs as a ServiceAccount: without the
   * field nothing of this runs, as kro. Shared with the Graph controller in `kgraph controller`.
   */
  readonly reads: ReadAccess;
  private readonly rbacWatch: RbacWatch;
  /** False when the watch is shared (`sharedReads`): its owner stops it. */
  private readonly ownsRbacWatch: boolean;
  private rgdInformer: Informer | undefined;
  private crdInformer: Informer | undefined;
  private running: Promise<void> | undefined;
  private started = false;
  private waitingForCrd: ReturnType<typeof setInterval> | undefined;

  constructor(opts: RgdControllerOptions) {
    this.opts = opts;
    this.client = opts.client;
    this.log =
      opts.log ?? pino({ name: 'kgraph-rgd-controller', level: process.env.KGRAPH_LOG_LEVEL ?? 'info' });
    const resyncMs = opts.resyncMs ?? 36_000_000;
    const namespaces = opts.namespaces && opts.namespaces.length > 0 ? opts.namespaces : undefined;
    this.watches = new WatchSet(this.client, {
      ...(namespaces ? { namespaces } : {}),
      resyncMs,
      onEvent: (e) => this.server.routeEvent(e),
      onError: (e) => this.log.debug({ err: String(e) }, 'watch error'),
      // Children keep only the applyset manager's field sets (caches.ts).
      keepManager: isChildCacheManager,
      // listChildren selects an instance's children by their ApplySet label: indexed, it reads only them.
      indexLabels: [LABEL_APPLYSET_PART_OF],
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
    this.reads.onChange((users) => this.server.reconcileServiceAccounts(users));
    // Slim OpenAPI documents (schemas only, no descriptions): the compiled graphs and the generated
    // CRDs carry no schema text (status schemas come from CEL types), and the compiler keeps every
    // document it compiled against for the process's lifetime.
    const compiler = new GraphCompiler(this.client, { slim: true });
    this.revisionResolver = new RevisionResolver({
      client: this.client,
      compiler,
      log: this.log,
      resyncMs,
      // A revision appeared or went: the instances that name it are reconciled again.
      onRevision: (rgd, n) => this.server.enqueueOf(rgd, (o) => revisionsNamed([o.metadata]).has(n)),
    });
    this.server = new InstanceServer({
      resolveRevision: (api, inst) => this.revisionResolver.resolve(api, inst),
      onPass: (api, inst, rv) => this.rollouts.notePass(api, inst, rv),
      client: this.client,
      reads: (namespace, serviceAccount) => {
        // Started once (a shared watch may already run for the Graph side).
        this.rbacWatch.start();
        return this.reads.forServiceAccount(namespace, serviceAccount);
      },
      watches: this.watches,
      versions: new GroupKindVersions(this.client.discovery),
      log: this.log,
      ...(namespaces ? { namespaces } : {}),
      ...(opts.shardSelector
        ? {
            instanceSelector: opts.shardSelector,
            publishPasses: true,
            // The coordinator's rollouts and revision retention see every replica's instances.
            ...(opts.registration !== false
              ? { fleetView: true, onFleetChange: (rgd: string) => this.rollouts.noteFleetChange(rgd) }
              : {}),
          }
        : {}),
      resyncMs,
      ...(opts.maxCollectionSize !== undefined ? { maxCollectionSize: opts.maxCollectionSize } : {}),
      metrics: () => this.metrics,
      instanceMetrics: instanceMetrics(this.revisionSeries),
      ...(opts.observe ? { observe: opts.observe } : {}),
    });
    this.rollouts = new RolloutController({
      client: this.client,
      log: this.log,
      resyncMs,
      servedApi: (rgd) => this.server.apiOf(rgd),
      instancesOf: (rgd) => this.server.fleetOf(rgd),
      ensureFleet: (rgd) => this.server.ensureFleet(rgd),
      dropFleet: (rgd) => this.server.dropFleet(rgd),
      reconcileInstances: (rgd, which) => this.server.enqueueOf(rgd, which),
      ...(opts.observe ? { event: (e: EventRecord) => opts.observe?.event(e) } : {}),
    });
    this.revisionResolver.useRolloutDefault((rgd, inst) => this.rollouts.defaultFor(rgd, inst));
    this.holdRevisions((rgd) => this.rollouts.held(rgd));
    this.metrics = new ControllerMetrics(
      this.client.counters,
      {
        queueDepth: () => this.queue.depth + this.server.queue.depth,
        graphs: () => this.server.instanceCount(),
        informers: () => this.watches.informerCount(),
      },
      'instance',
    );
    instrumentQueue('resourcegraphdefinition', this.queue);
    instrumentQueue('instance', this.server.queue);
    this.registrar = new RgdRegistrar({
      client: this.client,
      compiler,
      server: this.server,
      rgds: {
        get: (name) => this.rgdInformer?.get(undefined, name),
        list: () => this.rgdInformer?.list() ?? [],
      },
      crds: {
        get: (name) => this.crdInformer?.get(undefined, name),
        list: () => this.crdInformer?.list() ?? [],
      },
      log: this.log,
      ...(opts.observe ? { observe: opts.observe } : {}),
      deleteCrds: opts.deleteCrds ?? false,
      ...(opts.registration === false
        ? { follower: true }
        : {
            revisions: new GraphRevisions({
              client: this.client,
              log: this.log,
              maxRevisions: opts.maxGraphRevisions ?? 5,
              inUse: (rgd) => this.revisionsInUse(rgd),
              metrics: revisionMetrics(this.revisionSeries),
              ...(opts.observe ? { observe: opts.observe } : {}),
            }),
          }),
    });
  }

  /** The revisions an RGD's instances use or ask for, and those held for it (a rollout's stable). */
  async revisionsInUse(rgdName: string): Promise<Set<number>> {
    // Sharded, the cache holds this replica's buckets only: every replica's instances are read (metadata
    // only) from the API server, at retention time only.
    const metas = this.opts.shardSelector
      ? await this.listFleetMetadata(rgdName)
      : this.server.instancesOf(rgdName).map((o) => o.metadata);
    const used = revisionsNamed(metas);
    for (const held of this.heldRevisions) for (const n of held(rgdName)) used.add(n);
    return used;
  }

  private async listFleetMetadata(rgdName: string): Promise<KubeObject['metadata'][]> {
    const api = this.server.apiOf(rgdName);
    if (!api) return [];
    const scopes = api.namespaced && this.opts.namespaces?.length ? [...this.opts.namespaces] : [undefined];
    const out: KubeObject['metadata'][] = [];
    for (const ns of scopes) {
      const list = await this.client.listAll(
        { apiVersion: `${api.group}/${api.version}`, plural: api.plural, ...(ns ? { namespace: ns } : {}) },
        { metadataOnly: true, limit: 500 },
      );
      out.push(...list.items.map((o) => o.metadata));
    }
    return out;
  }

  /** Registers revisions kept from retention besides the instances' (the rollout controller's stable). */
  holdRevisions(fn: (rgdName: string) => Iterable<number>): void {
    this.heldRevisions.push(fn);
  }

  /** The served instances of an RGD, as cached (the rollout controller reads the fleet from here). */
  instancesOf(rgdName: string): KubeObject[] {
    return this.server.instancesOf(rgdName);
  }

  /** Reconciles an RGD's instances again (those `which` selects). */
  reconcileInstances(rgdName: string, which?: (o: KubeObject) => boolean): void {
    this.server.enqueueOf(rgdName, which);
  }

  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    if (this.opts.installCrd !== false) await installRgdCrd(this.client);
    else if (!(await this.rgdApiServed())) {
      // Without the RGD CRD there is nothing to serve yet; the Graph side must not wait for it.
      this.log.warn(
        'the ResourceGraphDefinition CRD is not installed (kgraph install); RGDs are served once it is',
      );
      this.waitingForCrd = setInterval(() => {
        void this.rgdApiServed().then((served) => {
          if (!served || !this.waitingForCrd) return;
          clearInterval(this.waitingForCrd);
          this.waitingForCrd = undefined;
          void this.run().catch((e) => this.log.error({ err: String(e) }, 'rgd controller failed to start'));
        });
      }, 5_000);
      return;
    }
    await this.run();
  }

  private async rgdApiServed(): Promise<boolean> {
    this.client.discovery.invalidate(RGD_API_VERSION);
    try {
      await this.client.discovery.resolveKind(RGD_API_VERSION, 'ResourceGraphDefinition');
      return true;
    } catch {
      return false;
    }
  }

  private async run(): Promise<void> {
    const resyncMs = this.opts.resyncMs ?? 36_000_000;
    this.crdInformer = watchCRDs(this.client, {
      discovery: this.client.discovery,
      transform: rgdCacheTransforms.crd,
      onChange: (crd) => {
        this.watches.invalidateTypes(crdApiVersions(crd));
        this.registrar.invalidate();
        this.revisionResolver.invalidate();
        for (const name of this.registrar.concernedBy(crd)) this.queue.add(name);
      },
    });
    this.rgdInformer = new Informer(this.client, {
      target: { apiVersion: RGD_API_VERSION, plural: RGD_PLURAL },
      ...(this.opts.rgdSelector ? { labelSelector: this.opts.rgdSelector } : {}),
      resyncMs,
      onError: (e) => this.log.debug({ err: String(e) }, 'rgd watch error'),
      transform: rgdCacheTransforms.rgd,
    });
    const enqueue = (o: KubeObject): void => this.queue.add(o.metadata.name ?? '');
    this.rgdInformer.addHandlers({
      add: enqueue,
      update: (o, n) => {
        const echo = o.metadata.generation === n.metadata.generation && this.registrar.isOwnStatusEcho(n);
        if (o === n || !echo) enqueue(n);
      },
      // A deleted RGD stops being served; another RGD may now claim its CRD.
      delete: (o) => {
        enqueue(o);
        for (const r of this.rgdInformer?.list() ?? []) enqueue(r);
      },
    });
    this.rgdInformer.start();
    this.revisionResolver.start();
    await Promise.all([this.rgdInformer.waitForSync(), this.crdInformer.waitForSync()]);
    // Pinned instances need the revisions cached; a cluster without the GraphRevision CRD has none.
    await this.revisionResolver
      .waitForSync(10_000)
      .catch(() => this.log.warn('GraphRevisions not synced: pinned instances wait for them'));
    // After an API server outage, what failed on the connection is retried at once (kube/connectivity.ts).
    this.queue.retryOnReconnect(this.client.connectivity);
    this.server.queue.retryOnReconnect(this.client.connectivity);
    // Rollouts are the registering replica's; a sharded follower reads their holds (design/sharding.md §6),
    // before any instance pass resolves a revision.
    if (this.opts.registration === false) await this.rollouts.startView();
    this.server.start(this.opts.concurrency ?? 1);
    if (this.opts.registration !== false) await this.rollouts.start();
    this.running = this.queue.run(
      async (name) => {
        const outcome = await this.registrar.reconcile(name);
        this.log.debug({ rgd: name, result: outcome.kind, reason: outcome.reason }, 'rgd reconciled');
        return outcome.requeueAfterMs !== undefined ? { requeueAfterMs: outcome.requeueAfterMs } : undefined;
      },
      1,
      failedPassLogger(this.log, 'rgd'),
    );
    this.log.info(
      { selector: this.opts.rgdSelector ?? 'all', concurrency: this.opts.concurrency ?? 1 },
      'rgd controller started',
    );
  }

  /**
   * The cached copy of an object, as the controller's informers hold it (caches.ts): an RGD, a CRD,
   * an instance of a served RGD, or a child (any object of a kind the instances read).
   */
  cached(
    what:
      | { rgd: string }
      | { crd: string }
      | { instanceOf: string; namespace: string; name: string }
      | { child: ObjectIdentity },
  ): KubeObject | undefined {
    if ('rgd' in what) return this.rgdInformer?.get(undefined, what.rgd);
    if ('crd' in what) return this.crdInformer?.get(undefined, what.crd);
    if ('child' in what) return this.watches.peek(what.child);
    return this.server.cachedInstance(what.instanceOf, what.namespace, what.name);
  }

  /**
   * How many instances (or objects) each per-instance structure holds: write echoes, wait backoffs,
   * event routes, reconciles in flight, write overlays and echo records of children (tests, benchmarks).
   */
  retained(): Record<string, number> {
    const o = this.watches.overlaySizes();
    return { ...this.server.retained(), writeOverlays: o.recent, echoRecords: o.ownWrites };
  }

  /** Reconciles every RGD and every instance again, as a resync does. */
  resyncAll(): void {
    for (const r of this.rgdInformer?.list() ?? []) this.queue.add(r.metadata.name ?? '');
    this.server.enqueueAll();
  }

  /** Instances and children in the caches (a replica's share when sharded, design/sharding.md §4). */
  cachedObjects(): number {
    return this.server.instanceCount() + this.watches.cachedObjectCount();
  }

  /** Started and synced (or waiting for the RGD CRD to be installed: nothing to serve yet). */
  ready(): boolean {
    return this.started && (this.waitingForCrd !== undefined || (this.rgdInformer?.hasSynced() ?? false));
  }

  /** No RGD and no instance queued or being reconciled (delayed retries excluded). */
  isIdle(): boolean {
    const rgds = this.queue.stats();
    const instances = this.server.queue.stats();
    return rgds.depth + rgds.processing + instances.depth + instances.processing === 0;
  }

  async stop(): Promise<void> {
    if (this.waitingForCrd) clearInterval(this.waitingForCrd);
    this.waitingForCrd = undefined;
    await this.queue.shutdown();
    await this.running;
    await this.rollouts.stop();
    await this.server.stopAll();
    await this.rgdInformer?.stop();
    await this.revisionResolver.stop();
    await this.crdInformer?.stop();
    if (this.ownsRbacWatch && this.rbacWatch.started) await this.rbacWatch.stop();
    await this.watches.stop();
  }

  /** Resolves when no RGD and no instance is queued or being processed (delayed retries excluded). */
  async idle(timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (this.isIdle()) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error('rgd controller did not become idle');
  }
}
