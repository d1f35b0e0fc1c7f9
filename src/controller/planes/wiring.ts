/**
 * The parts both planes controllers are made of, wired one way (`PlanesParts`): on plain clusters
 * (`controller.ts`) and on kcp (`kcp/controller.ts`) the timings, the log, the claim checker, the
 * blueprint registrar, the instance reconciler, the liveness sweeper and the work queues are the same
 * objects over the same provider and host clients; only the claim checker's class, the registrar's
 * publication hooks and how the sweeper finds a cluster's connection differ. The blueprint cache and
 * what requeues a blueprint (`watchBlueprints`) are shared too.
 */
import pino, { type Logger } from 'pino';
import { type Handler, Informer, type RestClient } from '../../kube/index.ts';
import { GraphCompiler } from '../core/graphCompiler.ts';
import type { ClaimChecker } from './access.ts';
import { InstanceReconciler } from './instance.ts';
import { BLUEPRINT_PLURAL, DEFAULT_TIMINGS, KROP_API_VERSION, type PlaneTimings } from './kropApi.ts';
import { PlaneQueues } from './planeQueues.ts';
import type { PublishedBlueprint } from './published.ts';
import { BlueprintRegistrar, type PublishAnswer, type RegistrarDeps } from './registrar.ts';
import { type SweepAuthority, Sweeper, type SweeperDeps } from './sweeper.ts';

/** The options both planes controllers take (each adds its provider client and its own). */
/** Options of both planes controllers (plain clusters and kcp). */
export interface PlanesCommonOptions {
  /**
   * The host cluster (`--host-kubeconfig`).
   * @default none: the host plane does not exist and host nodes fail closed (design/planes.md §5.4)
   */
  host?: RestClient;
  /**
   * Where the liveness records live.
   * @default "kgraph-system"
   */
  namespace?: string;
  /**
   * Heartbeat, resync, sweeper and cache timings, one by one (tests shorten them).
   * @default DEFAULT_TIMINGS (kropApi.ts: heartbeat 30 s, resync 5 min, sweep every 1 min, stale after 5 min)
   */
  timings?: Partial<PlaneTimings>;
  /**
   * Install the planes CRDs into the provider plane.
   * @default true
   */
  installCrds?: boolean;
  /**
   * Instance workers.
   * @default 2
   */
  concurrency?: number;
  /** @default a pino logger at `KGRAPH_LOG_LEVEL` (else info) */
  log?: Logger;
  /**
   * The clock of liveness records and the sweeper (tests inject one).
   * @default () => new Date()
   */
  now?: () => Date;
}

/** What differs in how a controller's parts are made. */
export interface PlanesBackend<A extends ClaimChecker> {
  /** The name of the logger made when none is given. */
  logName: string;
  /** The claim checker, given how long an answer is cached. */
  access: (ttlMs: number) => A;
  unresolvedTypeReason?: RegistrarDeps['unresolvedTypeReason'];
  /** Who lets the sweeper run; undefined: unchecked (see sweeper.ts). */
  sweepAuthority: SweepAuthority | undefined;
  /** The registrar reads the coordinator's verdicts and writes nothing (registrar.ts). @default false */
  follower?: boolean;
}

/**
 * The parts of a planes controller and their wiring. A subclass gives the provider client, its options
 * and backend, and answers the registrar's publication hooks and the sweeper's questions; the closures
 * handed to the parts call those methods only once the controller runs.
 */
export abstract class PlanesParts<A extends ClaimChecker> {
  readonly host: RestClient | undefined;
  readonly namespace: string;
  readonly timings: PlaneTimings;
  readonly log: Logger;
  readonly access: A;
  readonly registrar: BlueprintRegistrar;
  readonly instances: InstanceReconciler;
  readonly sweeper: Sweeper;
  readonly startedAt: Date;
  readonly queues = new PlaneQueues();
  readonly blueprintQueue = this.queues.blueprints;
  readonly instanceQueue = this.queues.instances;
  /** The blueprint cache (`watchBlueprints`), made when the controller starts. */
  protected blueprintInformer: Informer | undefined;
  protected started = false;
  private readonly concurrency: number | undefined;
  /** The management (provider) cluster's client: its reconnect retries the queues' failed keys. */
  private readonly managementClient: RestClient;

  protected constructor(provider: RestClient, opts: PlanesCommonOptions, backend: PlanesBackend<A>) {
    this.host = opts.host;
    this.managementClient = provider;
    this.concurrency = opts.concurrency;
    this.namespace = opts.namespace ?? 'kgraph-system';
    this.timings = { ...DEFAULT_TIMINGS, ...(opts.timings ?? {}) };
    this.log = opts.log ?? pino({ name: backend.logName, level: process.env.KGRAPH_LOG_LEVEL ?? 'info' });
    this.access = backend.access(this.timings.ssarTtlMs);
    const now = opts.now ?? (() => new Date());
    this.startedAt = now();
    this.registrar = new BlueprintRegistrar({
      client: provider,
      compiler: new GraphCompiler(provider),
      blueprints: {
        get: (n) => this.blueprintInformer?.get(undefined, n),
        list: () => this.blueprintInformer?.list() ?? [],
      },
      ...(backend.unresolvedTypeReason ? { unresolvedTypeReason: backend.unresolvedTypeReason } : {}),
      ...(backend.follower ? { follower: true } : {}),
      hooks: {
        published: (bp, changed) => this.published(bp, changed),
        unpublished: (name) => this.unpublished(name),
        withdraw: (name) => this.withdraw(name),
      },
      log: this.log,
    });
    this.instances = new InstanceReconciler({
      provider,
      host: this.host,
      controllerNamespace: this.namespace,
      access: this.access,
      timings: this.timings,
      log: this.log,
      now,
    });
    const published = () => [...this.registrar.registry.values()];
    this.sweeper = new Sweeper({
      provider,
      host: this.host,
      namespace: this.namespace,
      timings: this.timings,
      log: this.log,
      now,
      startedAt: this.startedAt,
      registeredClusterIDs: () => this.registeredClusterIDs(),
      publishedExports: () => new Set(published().map((b) => b.exportName)),
      connectionFor: (clusterID, exportName) => this.connectionFor(clusterID, exportName),
      blueprintForExport: (exp) => published().find((b) => b.exportName === exp),
      ...(backend.sweepAuthority ? { authority: backend.sweepAuthority } : {}),
    });
  }

  /**
   * Once the caches are synced: starts the workers of the queues (the second one, `secondName`, is
   * reconciled by `reconcileSecond`) and the sweeper, and logs `started`.
   */
  protected runParts(
    secondName: string,
    reconcileSecond: Handler<string>,
    reconcileInstance: Handler<string>,
    started: string,
  ): void {
    // After an outage of the management or host API server, what failed on it is retried at once.
    for (const c of [this.managementClient, this.host]) if (c) this.queues.retryOnReconnect(c.connectivity);
    this.queues.run({
      registrar: this.registrar,
      timings: this.timings,
      log: this.log,
      secondName,
      reconcileSecond,
      reconcileInstance,
      concurrency: this.concurrency,
    });
    this.sweeper.start();
    this.log.info({ host: this.host !== undefined, namespace: this.namespace }, started);
  }

  /** The registrar published a blueprint (again); `changed`: its spec hash differs from what was served. */
  protected abstract published(bp: PublishedBlueprint, changed: boolean): Promise<PublishAnswer | undefined>;
  /** A blueprint is no longer published: stop serving it. */
  protected abstract unpublished(name: string): Promise<void>;
  /** A blueprint is being deleted: release its instances, then stop serving it. */
  protected abstract withdraw(name: string): Promise<void>;
  /** The clusters the sweeper may treat as registered. */
  protected abstract registeredClusterIDs(): Set<string> | Promise<Set<string>>;
  /** How the sweeper reaches the instance of a liveness record. */
  protected abstract connectionFor(
    clusterID: string,
    exportName: string,
  ): ReturnType<SweeperDeps['connectionFor']>;
}

/**
 * The blueprint cache of the provider plane, with what requeues a blueprint: added; a new generation,
 * deletion, finalizers or labels; deleted (every other blueprint too: one may take over its export
 * name, design/planes.md §18.7). A follower's registrar (registrar.ts) also waits on the coordinator's
 * status: `statusChanges` requeues on those too. Not started.
 */
export function watchBlueprints(
  provider: RestClient,
  queue: { add(name: string): void },
  statusChanges = false,
): Informer {
  const informer = new Informer(provider, {
    target: { apiVersion: KROP_API_VERSION, plural: BLUEPRINT_PLURAL },
  });
  informer.addHandlers({
    add: (o) => queue.add(o.metadata.name ?? ''),
    update: (o, n) => {
      if (
        o === n ||
        o.metadata.generation !== n.metadata.generation ||
        n.metadata.deletionTimestamp ||
        JSON.stringify(o.metadata.finalizers ?? []) !== JSON.stringify(n.metadata.finalizers ?? []) ||
        JSON.stringify(o.metadata.labels ?? {}) !== JSON.stringify(n.metadata.labels ?? {}) ||
        (statusChanges && JSON.stringify(o.status ?? {}) !== JSON.stringify(n.status ?? {}))
      )
        queue.add(n.metadata.name ?? '');
    },
    delete: (o) => {
      queue.add(o.metadata.name ?? '');
      for (const b of informer.list()) queue.add(b.metadata.name ?? '');
    },
  });
  return informer;
}
