/**
 * The planes controller on kcp: krop's topology with kgraph's engine. The provider plane is
 * the provider workspace (blueprints, provider-target children, liveness records); the registrar is the
 * shared one, publishing through `publish.ts` (APIResourceSchema + APIExport with identity-resolved
 * claims); consumers are the workspaces bound to the export, reached through its virtual workspace
 * (`serving.ts`); claim acceptance is read from their APIBindings (`access.ts`). The instance
 * reconciler (engine pass, applier chains, naming, pruning, liveness, deletion) and the sweeper are the
 * plain-cluster ones: only the way to reach a plane differs.
 *
 * Queues: blueprint names (registrar), blueprint names again for serving (waits for the endpoint slice's
 * URL: kcp publishes it once a first consumer binds), and instance keys `blueprint|cluster|namespace|name`.
 */
import { Informer, type KubeObject, type RestClient, watchCRDs } from '../../../kube/index.ts';
import { APIS_KCP_V1ALPHA1, APIS_KCP_V1ALPHA2, exportEndpointURLs } from '../../../kube/kcp.ts';
import { waitForCrd } from '../../core/crdReady.ts';
import { errorMessage } from '../../core/errors.ts';
import { blueprintCrd } from '../crds.ts';
import { FINALIZER_INSTANCE, REGISTRAR_MANAGER } from '../kropApi.ts';
import type { Connection, PublishedBlueprint } from '../published.ts';
import type { PublishAnswer } from '../registrar.ts';
import type { SweepAuthority } from '../sweeper.ts';
import { type PlanesCommonOptions, PlanesParts, watchBlueprints } from '../wiring.ts';
import { BindingClaimAccess } from './access.ts';
import { publishToKcp, unpublishFromKcp } from './publish.ts';
import { KcpServingLoop } from './serving.ts';

export interface KcpPlanesControllerOptions extends PlanesCommonOptions {
  /** The provider workspace (`…/clusters/root:provider`), with the controller's identity. */
  provider: RestClient;
  /** Namespace of the liveness records in the provider workspace (created when missing). */
  namespace?: string;
  /** Install the blueprint CRD into the provider workspace (default true). */
  installCrds?: boolean;
  /**
   * Who may sweep (design/planes.md §13.4, as for the plain-cluster planes: the Lease or a declared single replica).
   * Absent: unchecked, for tests that drive one controller; `kgraph controller` always passes one.
   */
  sweepAuthority?: SweepAuthority;
  /**
   * Deleting a blueprint also deletes its APIExport and APIResourceSchemas (krop's behaviour). Default
   * false: they stay, like the instance CRDs on plain clusters, so consumers keep their bound API and data.
   */
  withdrawDeletesExport?: boolean;
}

/**
 * On kcp a consumer is "registered" per export, and only the export's virtual workspace can tell: the
 * sweeper's registration check passes every cluster on to `connectionFor`, whose GET through the
 * virtual workspace answers NotFound or Forbidden (no binding any more) for a gone instance.
 */
class EveryCluster extends Set<string> {
  override has(_id: string): boolean {
    return true;
  }
}

export class KcpPlanesController extends PlanesParts<BindingClaimAccess> {
  readonly provider: RestClient;
  readonly serveQueue = this.queues.second;
  /** Blueprint name → its virtual-workspace loop. */
  readonly loops = new Map<string, KcpServingLoop>();
  /** Serving loop starts per blueprint (the change-detected restart). */
  readonly serveStarts = new Map<string, number>();
  private readonly opts: KcpPlanesControllerOptions;
  private crdInformer: Informer | undefined;
  private bindingInformer: Informer | undefined;
  private sliceInformer: Informer | undefined;

  constructor(opts: KcpPlanesControllerOptions) {
    super(opts.provider, opts, {
      logName: 'kgraph-planes-kcp',
      access: (ttlMs) => new BindingClaimAccess(ttlMs),
      unresolvedTypeReason: 'ClaimIdentityUnresolved',
      sweepAuthority: opts.sweepAuthority,
    });
    this.opts = opts;
    this.provider = opts.provider;
  }

  protected async published(bp: PublishedBlueprint, changed: boolean): Promise<PublishAnswer> {
    const { answer } = await publishToKcp(this.provider, bp);
    if (answer.refused) return answer;
    if (changed) await this.stopLoop(bp.name);
    this.serveQueue.add(bp.name);
    return answer;
  }

  protected unpublished(name: string): Promise<void> {
    return this.stopLoop(name);
  }

  /** Every cluster: see EveryCluster. */
  protected registeredClusterIDs(): Set<string> {
    return new EveryCluster();
  }

  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    if (this.opts.installCrds !== false) {
      const crd = blueprintCrd();
      await this.provider.apply(crd, { fieldManager: REGISTRAR_MANAGER, force: true });
      await waitForCrd(this.provider, crd.metadata.name ?? '', 60_000);
    }
    await this.provider.apply(
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: this.namespace } },
      { fieldManager: REGISTRAR_MANAGER },
    );
    const recompileAll = (): void => {
      this.registrar.invalidate();
      for (const b of this.blueprintInformer?.list() ?? []) this.blueprintQueue.add(b.metadata.name ?? '');
    };
    // Types of the provider workspace come from CRDs and from APIBindings (foreign exports): both change
    // what compiles and which identity hashes resolve.
    this.crdInformer = watchCRDs(this.provider, {
      discovery: this.provider.discovery,
      onChange: recompileAll,
    });
    this.bindingInformer = new Informer(this.provider, {
      target: { apiVersion: APIS_KCP_V1ALPHA2, plural: 'apibindings' },
    });
    this.bindingInformer.addHandlers({
      add: () => this.bindingInformer?.hasSynced() && recompileAll(),
      update: (o, n) => o.metadata.resourceVersion !== n.metadata.resourceVersion && recompileAll(),
      delete: recompileAll,
    });
    this.sliceInformer = new Informer(this.provider, {
      target: { apiVersion: APIS_KCP_V1ALPHA1, plural: 'apiexportendpointslices' },
    });
    const sliceChanged = (o: KubeObject): void => {
      for (const bp of this.registrar.registry.values())
        if (bp.exportName === o.metadata.name) this.serveQueue.add(bp.name);
    };
    this.sliceInformer.addHandlers({
      add: sliceChanged,
      update: (_o, n) => sliceChanged(n),
      delete: sliceChanged,
    });
    this.blueprintInformer = watchBlueprints(this.provider, this.blueprintQueue);
    for (const i of [this.bindingInformer, this.sliceInformer, this.blueprintInformer]) i.start();
    await Promise.all([
      this.blueprintInformer.waitForSync(),
      this.crdInformer.waitForSync(),
      this.bindingInformer.waitForSync(),
      this.sliceInformer.waitForSync(),
    ]);
    this.runParts(
      'serving',
      (name) => this.reconcileServing(name),
      (key) => this.reconcileInstance(key),
      'kcp planes controller started',
    );
  }

  ready(): boolean {
    return this.started && (this.blueprintInformer?.hasSynced() ?? false);
  }

  async stop(): Promise<void> {
    this.sweeper.stop();
    await this.queues.shutdown();
    await Promise.all([...this.loops.values()].map((l) => l.stop()));
    this.loops.clear();
    for (const i of [this.blueprintInformer, this.crdInformer, this.bindingInformer, this.sliceInformer])
      await i?.stop();
  }

  /** Resolves when no queue holds or processes a key (delayed requeues excluded). */
  async idle(timeoutMs = 30_000): Promise<void> {
    if (!(await this.queues.idle(timeoutMs))) throw new Error('kcp planes controller did not become idle');
  }

  // ------------------------------------------------------------------ serving

  private async stopLoop(name: string): Promise<void> {
    const loop = this.loops.get(name);
    if (!loop) return;
    this.loops.delete(name);
    await loop.stop();
  }

  /** Starts (or restarts, after an edit) the virtual-workspace loop of a published blueprint. */
  private async reconcileServing(name: string): Promise<{ requeueAfterMs: number } | undefined> {
    const bp = this.registrar.registry.get(name);
    if (!bp) {
      await this.stopLoop(name);
      return undefined;
    }
    const running = this.loops.get(name);
    if (running && running.bp.specHash === bp.specHash) return undefined;
    const urls = await exportEndpointURLs(this.provider, bp.exportName);
    const url = urls[0];
    if (!url) {
      await this.stopLoop(name);
      this.log.info(
        { blueprint: name, export: bp.exportName },
        'no virtual workspace URL yet: waiting for a binding',
      );
      return { requeueAfterMs: Math.min(this.timings.resyncMs, 5_000) };
    }
    await this.stopLoop(name);
    const loop = new KcpServingLoop(
      {
        provider: this.provider,
        log: this.log,
        onInstance: (b, c, o) => this.enqueueInstance(b, c, o),
        onBinding: (b, cluster) => {
          this.access.forgetCluster(cluster);
          const l = this.loops.get(b.name);
          if (l) for (const o of l.instancesOf(cluster)) this.enqueueInstance(b, l.connFor(cluster), o);
        },
      },
      bp,
      url,
    );
    await loop.start(this.timings.crdWaitMs);
    if (this.registrar.registry.get(name)?.specHash !== bp.specHash) {
      await loop.stop(); // republished while starting
      return { requeueAfterMs: 0 };
    }
    this.loops.set(name, loop);
    this.serveStarts.set(name, (this.serveStarts.get(name) ?? 0) + 1);
    for (const o of loop.instances.list()) {
      const cluster = o.metadata.annotations?.['kcp.io/cluster'] ?? '';
      if (cluster) this.enqueueInstance(bp, loop.connFor(cluster), o);
    }
    return undefined;
  }

  /** Releases kgraph's finalizer from the blueprint's instances in every bound workspace, then stops. */
  protected async withdraw(name: string): Promise<void> {
    const loop = this.loops.get(name);
    if (loop) {
      for (const inst of loop.instances.list()) {
        if (!(inst.metadata.finalizers ?? []).includes(FINALIZER_INSTANCE)) continue;
        const cluster = inst.metadata.annotations?.['kcp.io/cluster'] ?? '';
        await this.instances
          .setFinalizer(loop.bp, loop.connFor(cluster), inst, false)
          .catch((e) =>
            this.log.warn(
              { err: errorMessage(e), instance: inst.metadata.name },
              'could not release the instance finalizer',
            ),
          );
      }
    }
    await this.stopLoop(name);
    const bp = this.registrar.registry.get(name);
    if (this.opts.withdrawDeletesExport && bp) await unpublishFromKcp(this.provider, bp.exportName, bp.name);
  }

  protected connectionFor(
    clusterID: string,
    exportName: string,
  ): { conn?: Connection; reachable: boolean; verified: boolean; withdrawn: boolean } {
    const loop = [...this.loops.values()].find((l) => l.bp.exportName === exportName);
    if (!loop?.synced()) return { reachable: false, verified: false, withdrawn: false };
    return { conn: loop.connFor(clusterID), reachable: true, verified: true, withdrawn: false };
  }

  // ------------------------------------------------------------------ instances

  private enqueueInstance(bp: PublishedBlueprint, conn: Connection, o: KubeObject): void {
    this.instanceQueue.add(`${bp.name}|${conn.name}|${o.metadata.namespace ?? ''}|${o.metadata.name ?? ''}`);
  }

  private async reconcileInstance(key: string): Promise<{ requeueAfterMs: number } | undefined> {
    const [bpName = '', cluster = '', ns = '', name = ''] = key.split('|');
    const loop = this.loops.get(bpName);
    if (!loop) return undefined; // not served (any more)
    const current = this.registrar.registry.get(bpName);
    if (!current || current.specHash !== loop.bp.specHash) return undefined; // a restart is under way
    const inst = loop.instance(cluster, ns, name);
    const out = await this.instances.reconcile(loop.bp, loop.connFor(cluster), inst);
    this.log.debug({ instance: key, kind: out.kind, ready: out.ready }, 'instance reconciled');
    if (out.kind === 'finalizerAdded') return { requeueAfterMs: 0 };
    return out.requeueAfterMs !== undefined ? { requeueAfterMs: out.requeueAfterMs } : undefined;
  }
}
