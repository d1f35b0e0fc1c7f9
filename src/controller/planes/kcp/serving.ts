/**
 * Serving one published blueprint on kcp: its APIExport's virtual workspace (URL from the
 * APIExportEndpointSlice) fans in every consumer workspace bound to the export. Two wildcard informers
 * through it — the instances of the generated kind and the APIBindings to the export — keyed by
 * logical cluster, since same-named objects of different consumers meet in one list. Each consumer
 * logical cluster becomes a `Connection` whose client is the virtual workspace scoped to that cluster
 * (`…/clusters/<name>`): the consumer plane of the shared instance reconciler.
 */
import type { Logger } from 'pino';
import { Informer, type KubeObject, type RestClient } from '../../../kube/index.ts';
import { APIS_KCP_V1ALPHA2, bindingView, clientAt, clusterOf } from '../../../kube/kcp.ts';
import { errorMessage } from '../../core/errors.ts';
import type { Connection, PublishedBlueprint } from '../published.ts';

/** The informer key of an object read through a wildcard request: cluster, namespace, name. */
export function clusterKey(cluster: string, namespace: string | undefined, name: string): string {
  return `${cluster}|${namespace ?? ''}/${name}`;
}

const keyOf = (o: KubeObject): string =>
  clusterKey(clusterOf(o), o.metadata.namespace, o.metadata.name ?? '');

export interface KcpServingDeps {
  /** The controller's provider-workspace client (its credentials reach the virtual workspace). */
  provider: RestClient;
  log: Logger;
  onInstance: (bp: PublishedBlueprint, conn: Connection, obj: KubeObject) => void;
  /** A binding changed (claims accepted or revoked, bound or unbound) in a logical cluster. */
  onBinding: (bp: PublishedBlueprint, cluster: string) => void;
}

export class KcpServingLoop {
  readonly bp: PublishedBlueprint;
  readonly url: string;
  readonly instances: Informer;
  readonly bindings: Informer;
  private readonly wildcard: RestClient;
  private readonly deps: KcpServingDeps;
  private readonly conns = new Map<string, Connection>();
  private stopped = false;

  constructor(deps: KcpServingDeps, bp: PublishedBlueprint, url: string) {
    this.deps = deps;
    this.bp = bp;
    this.url = url.replace(/\/+$/, '');
    this.wildcard = clientAt(deps.provider, `${this.url}/clusters/*`);
    const onError = (what: string) => (e: unknown) =>
      deps.log.debug({ err: errorMessage(e), blueprint: bp.name }, `${what} watch error`);
    this.instances = new Informer(this.wildcard, {
      target: { apiVersion: `${bp.group}/${bp.version}`, plural: bp.plural },
      key: keyOf,
      onError: onError('instance'),
    });
    const enqueue = (o: KubeObject): void => {
      const cluster = clusterOf(o);
      if (cluster) deps.onInstance(bp, this.connFor(cluster), o);
    };
    this.instances.addHandlers({ add: enqueue, update: (_o, n) => enqueue(n), delete: enqueue });
    this.bindings = new Informer(this.wildcard, {
      target: { apiVersion: APIS_KCP_V1ALPHA2, plural: 'apibindings' },
      key: keyOf,
      onError: onError('binding'),
    });
    const changed = (o: KubeObject): void => {
      const cluster = clusterOf(o);
      if (cluster) deps.onBinding(bp, cluster);
    };
    this.bindings.addHandlers({
      add: changed,
      update: (o, n) => {
        if (o !== n && JSON.stringify([o.spec, o.status]) !== JSON.stringify([n.spec, n.status])) changed(n);
      },
      delete: changed,
    });
  }

  async start(timeoutMs = 30_000): Promise<void> {
    this.bindings.start();
    this.instances.start();
    await Promise.all([this.bindings.waitForSync(timeoutMs), this.instances.waitForSync(timeoutMs)]);
    this.deps.log.info(
      { blueprint: this.bp.name, kind: this.bp.kind, url: this.url },
      'serving blueprint through its virtual workspace',
    );
  }

  synced(): boolean {
    return !this.stopped && this.instances.hasSynced() && this.bindings.hasSynced();
  }

  /** The consumer plane of one logical cluster: the virtual workspace scoped to it. */
  connFor(cluster: string): Connection {
    let c = this.conns.get(cluster);
    if (!c) {
      c = {
        name: cluster,
        clusterID: cluster,
        client: clientAt(this.deps.provider, `${this.url}/clusters/${cluster}`, {
          timeoutMs: 15_000,
          maxRetries: 1,
        }),
        identity: { username: `apiexport:${this.bp.exportName}`, groups: [] },
      };
      this.conns.set(cluster, c);
    }
    return c;
  }

  /** Logical clusters whose APIBinding to the export is bound. */
  boundClusters(): Set<string> {
    const out = new Set<string>();
    for (const b of this.bindings.list().map(bindingView))
      if (b.phase === 'Bound' && b.cluster) out.add(b.cluster);
    return out;
  }

  instance(cluster: string, namespace: string, name: string): KubeObject | undefined {
    return this.instances.getByKey(clusterKey(cluster, this.bp.namespaced ? namespace : undefined, name));
  }

  instancesOf(cluster: string): KubeObject[] {
    return this.instances.list().filter((o) => clusterOf(o) === cluster);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all([this.instances.stop(), this.bindings.stop()]);
    for (const c of this.conns.values()) c.client.close();
    this.conns.clear();
    this.wildcard.close();
  }
}
