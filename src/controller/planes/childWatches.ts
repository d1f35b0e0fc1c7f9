/**
 * Child watches (design/planes.md §11.1): informers per plane and child GVK, so a change of a child (status
 * written by another controller, drift, an out-of-band delete) or of an externalRef an instance read
 * requeues that instance at once instead of at the next heartbeat.
 *
 * - Children: one informer per (plane, GVK, namespace) with the selector "has `instance-uid`, is not a
 *   liveness record"; an event maps back to its instance by the `consumer-cluster` and `instance-uid`
 *   labels. On the consumer plane a GVK is watched cluster-wide when kgraph may list and watch it
 *   cluster-wide there, per namespace otherwise (claims granted with RoleBindings). Provider and host
 *   watches are per namespace, so an identity granted per namespace can hold them.
 * - Sharded (`perCluster`, design/sharding.md §7): a replica serves the consumer clusters of its buckets
 *   only, so its provider and host child watches are per (plane, GVK, namespace, consumer cluster) and
 *   also select `consumer-cluster=<cluster ID>`: each replica caches the children of its own clusters,
 *   and they close with the cluster's connection, like the consumer plane's.
 * - externalRefs: one unlabelled informer per (plane, GVK, namespace) that some instance read; an
 *   event requeues every instance whose last pass read that object (by name, or by a selector the old
 *   or new object matches).
 *
 * Watches open after the pass that first applies (or reads) an object of their kind, so they cover
 * every later change; the heartbeat stays as the backstop. Each watch counts the instances whose passes
 * used it, and closes when the last of them is gone (deleted, or its instance object removed). Their first list replays existing objects,
 * which costs each affected instance one extra (no-write) pass.
 */
import type { Logger } from 'pino';
import type { Plane } from '../../graph/model.ts';
import { Informer, type KubeObject, type RestClient } from '../../kube/index.ts';
import { matchesSelector } from '../../runtime/selector.ts';
import { errorMessage } from '../core/errors.ts';
import type { ClaimChecker } from './access.ts';
import { LABEL_CONSUMER_CLUSTER, LABEL_INSTANCE_UID, LABEL_LIVENESS } from './kropApi.ts';
import { safeLabelValue } from './naming.ts';
import { type PassOutcome, type PassRead, PLANES } from './pass.ts';
import type { Connection, PublishedBlueprint } from './published.ts';

export interface ChildWatchDeps {
  provider: RestClient;
  host: RestClient | undefined;
  access: ClaimChecker;
  log: Logger;
  /** Requeues an instance key (`blueprint|cluster|namespace|name`). */
  enqueue: (instanceKey: string) => void;
  /** Provider and host child watches per consumer cluster (a sharded replica). @default false */
  perCluster?: boolean;
}

interface Watch {
  informer: Informer;
  /**
   * The consumer connection a consumer-plane watch uses (replaced connection → new watch); on a
   * per-cluster provider or host watch, the cluster it selects (it closes with the connection).
   */
  conn?: Connection;
  /** Child watches map by labels; ref watches by what instances read. */
  role: 'children' | 'refs';
}

const CHILD_SELECTOR = `${LABEL_INSTANCE_UID},!${LABEL_LIVENESS}`;

/**
 * The label selector of a child watch: kgraph's children (not liveness records), of one consumer cluster
 * when `clusterID` is given (design/planes.md §9 labels every written child with its cluster's ID).
 */
export function childSelector(clusterID?: string): string {
  return clusterID === undefined
    ? CHILD_SELECTOR
    : `${LABEL_INSTANCE_UID},${LABEL_CONSUMER_CLUSTER}=${safeLabelValue(clusterID)},!${LABEL_LIVENESS}`;
}

export class ChildWatches {
  private readonly deps: ChildWatchDeps;
  private readonly watches = new Map<string, Watch>();
  /** `clusterLabel|uidLabel` → instance key. */
  private readonly byUid = new Map<string, string>();
  private readonly keyUid = new Map<string, string>();
  /** ref watch key → instance key → what that instance read there. */
  private readonly refReaders = new Map<string, Map<string, PassRead[]>>();
  /** watch key → the instances whose passes used it; instance key → the watches it uses. */
  private readonly users = new Map<string, Set<string>>();
  private readonly usedBy = new Map<string, Set<string>>();
  /** `conn|group|resource` → whether the consumer plane may be watched cluster-wide. */
  private readonly clusterWide = new Map<string, { at: number; wide: Promise<boolean> }>();
  private stopped = false;
  /** Watch events that requeued an instance (tests, metrics). */
  events = 0;

  constructor(deps: ChildWatchDeps) {
    this.deps = deps;
  }

  get size(): number {
    return this.watches.size;
  }

  /** Remembers which instance a (cluster, uid) pair labels (every instance event calls this). */
  track(instanceKey: string, clusterID: string, uid: string | undefined): void {
    if (!uid) return;
    const k = `${safeLabelValue(clusterID)}|${safeLabelValue(uid)}`;
    const prev = this.keyUid.get(instanceKey);
    if (prev && prev !== k) this.byUid.delete(prev);
    this.byUid.set(k, instanceKey);
    this.keyUid.set(instanceKey, k);
  }

  /** The instance is gone: stop mapping events to it, and close the watches no other instance uses. */
  async forget(instanceKey: string): Promise<void> {
    const k = this.keyUid.get(instanceKey);
    if (k) this.byUid.delete(k);
    this.keyUid.delete(instanceKey);
    for (const readers of this.refReaders.values()) readers.delete(instanceKey);
    const stops: Promise<void>[] = [];
    for (const wk of this.usedBy.get(instanceKey) ?? []) {
      const users = this.users.get(wk);
      users?.delete(instanceKey);
      if (users && users.size > 0) continue;
      this.users.delete(wk);
      const w = this.watches.get(wk);
      this.watches.delete(wk);
      this.refReaders.delete(wk);
      if (w) {
        this.deps.log.debug({ watch: wk }, 'child watch closed: no instance uses it');
        stops.push(w.informer.stop());
      }
    }
    this.usedBy.delete(instanceKey);
    await Promise.all(stops);
  }

  /** Objects in the watches' caches. */
  cachedObjects(): number {
    let n = 0;
    for (const w of this.watches.values()) n += w.informer.size;
    return n;
  }

  /** Watches in use per role (tests). */
  count(role: Watch['role']): number {
    let n = 0;
    for (const w of this.watches.values()) if (w.role === role) n += 1;
    return n;
  }

  private use(instanceKey: string, watchKey: string | undefined): void {
    if (!watchKey) return;
    let users = this.users.get(watchKey);
    if (!users) {
      users = new Set();
      this.users.set(watchKey, users);
    }
    users.add(instanceKey);
    let used = this.usedBy.get(instanceKey);
    if (!used) {
      used = new Set();
      this.usedBy.set(instanceKey, used);
    }
    used.add(watchKey);
  }

  /** After a pass: watch the GVKs it applied on each plane and the objects it read. */
  async observe(
    instanceKey: string,
    bp: PublishedBlueprint,
    conn: Connection,
    pass: PassOutcome,
  ): Promise<void> {
    if (this.stopped) return;
    for (const plane of PLANES) {
      const seen = new Set<string>();
      for (const c of pass.applied[plane].values()) {
        const id = `${c.apiVersion}|${c.kind}|${c.namespace ?? ''}`;
        if (seen.has(id)) continue;
        seen.add(id);
        let namespace = c.namespace;
        if (plane === 'consumer' && namespace && (await this.consumerClusterWide(bp, conn, c)))
          namespace = undefined;
        this.use(instanceKey, this.ensure(plane, conn, 'children', c.apiVersion, c.kind, namespace));
      }
    }
    for (const readers of this.refReaders.values()) readers.delete(instanceKey);
    for (const r of pass.reads) {
      const wk = this.ensure(r.plane, conn, 'refs', r.apiVersion, r.kind, r.namespace);
      if (!wk) continue;
      this.use(instanceKey, wk);
      let readers = this.refReaders.get(wk);
      if (!readers) {
        readers = new Map();
        this.refReaders.set(wk, readers);
      }
      readers.set(instanceKey, [...(readers.get(instanceKey) ?? []), r]);
    }
  }

  /** A consumer connection ended (stop serving, new Secret, identity change): drop its watches. */
  async stopConsumer(connName: string): Promise<void> {
    const stops: Promise<void>[] = [];
    for (const [k, w] of this.watches) {
      if (w.conn?.name !== connName) continue;
      this.watches.delete(k);
      this.refReaders.delete(k);
      this.dropUsers(k);
      stops.push(w.informer.stop());
    }
    for (const k of [...this.clusterWide.keys()])
      if (k.startsWith(`${connName}|`)) this.clusterWide.delete(k);
    await Promise.all(stops);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    const all = [...this.watches.values()];
    this.watches.clear();
    this.refReaders.clear();
    this.users.clear();
    this.usedBy.clear();
    await Promise.all(all.map((w) => w.informer.stop()));
  }

  private dropUsers(watchKey: string): void {
    for (const i of this.users.get(watchKey) ?? []) this.usedBy.get(i)?.delete(watchKey);
    this.users.delete(watchKey);
  }

  private clientOf(plane: Plane, conn: Connection): RestClient | undefined {
    return plane === 'consumer' ? conn.client : plane === 'provider' ? this.deps.provider : this.deps.host;
  }

  /** Claims granted with a ClusterRoleBinding let one watch serve every namespace (re-asked every minute). */
  private consumerClusterWide(
    bp: PublishedBlueprint,
    conn: Connection,
    c: { apiVersion: string; kind: string },
  ): Promise<boolean> {
    const claim = bp.claims.find((x) => x.apiVersion === c.apiVersion && x.kind === c.kind);
    if (!claim) return Promise.resolve(false);
    const k = `${conn.name}|${claim.group}|${claim.resource}`;
    const hit = this.clusterWide.get(k);
    if (hit && Date.now() - hit.at < 60_000) return hit.wide;
    const wide = this.deps.access
      .check(conn.clusterID, conn.client, claim, '', ['list', 'watch'])
      .then((a) => a.accepted)
      .catch(() => false);
    this.clusterWide.set(k, { at: Date.now(), wide });
    return wide;
  }

  private ensure(
    plane: Plane,
    conn: Connection,
    role: Watch['role'],
    apiVersion: string,
    kind: string,
    namespace: string | undefined,
  ): string | undefined {
    const client = this.clientOf(plane, conn);
    if (!client) return undefined;
    // Sharded, a provider or host child watch selects one consumer cluster's children (file comment).
    const ofCluster = plane !== 'consumer' && role === 'children' && this.deps.perCluster === true;
    const planeKey =
      plane === 'consumer' ? `consumer:${conn.name}` : ofCluster ? `${plane}:${conn.clusterID}` : plane;
    const key = `${role}|${planeKey}|${apiVersion}|${kind}|${namespace ?? '*'}`;
    const existing = this.watches.get(key);
    if (existing && (plane !== 'consumer' || existing.conn === conn)) return key;
    if (existing) {
      this.watches.delete(key);
      this.refReaders.delete(key);
      void existing.informer.stop();
    }
    const informer = new Informer(client, {
      target: { apiVersion, kind, ...(namespace ? { namespace } : {}) },
      ...(role === 'children'
        ? { labelSelector: childSelector(ofCluster ? conn.clusterID : undefined) }
        : {}),
      onError: (e) =>
        this.deps.log.debug(
          { plane, apiVersion, kind, namespace, err: errorMessage(e) },
          'child watch error',
        ),
    });
    const onEvent =
      role === 'children'
        ? (o: KubeObject) => this.childEvent(o)
        : (o: KubeObject, old?: KubeObject) => this.refEvent(key, o, old);
    informer.addHandlers({
      add: (o) => onEvent(o),
      update: (old, o) => {
        if (old !== o) onEvent(o, old);
      },
      delete: (o) => onEvent(o),
    });
    this.watches.set(key, { informer, role, ...(plane === 'consumer' || ofCluster ? { conn } : {}) });
    informer.start();
    this.deps.log.debug({ plane, role, apiVersion, kind, namespace }, 'child watch started');
    return key;
  }

  private childEvent(o: KubeObject): void {
    const labels = o.metadata.labels ?? {};
    const k = this.byUid.get(`${labels[LABEL_CONSUMER_CLUSTER] ?? ''}|${labels[LABEL_INSTANCE_UID] ?? ''}`);
    if (!k) return;
    this.events += 1;
    this.deps.enqueue(k);
  }

  private refEvent(watchKey: string, o: KubeObject, old?: KubeObject): void {
    const readers = this.refReaders.get(watchKey);
    if (!readers) return;
    const hits = (x: KubeObject | undefined, r: PassRead): boolean => {
      if (!x) return false;
      if (r.namespace !== undefined && x.metadata.namespace !== r.namespace) return false;
      if (r.name !== undefined) return x.metadata.name === r.name;
      return r.selector === undefined || matchesSelector(r.selector, x.metadata.labels ?? {});
    };
    for (const [instanceKey, reads] of readers) {
      if (reads.some((r) => hits(o, r) || hits(old, r))) {
        this.events += 1;
        this.deps.enqueue(instanceKey);
      }
    }
  }
}
