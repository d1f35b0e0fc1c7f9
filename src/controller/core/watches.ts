/**
 * The controller's informers on every kind a Graph reads or writes, started on demand (design/graph.md §3.2: the watch
 * is registered before the first read), and an `ObservedState` over them for the engine.
 *
 * Scope: a controller restricted to one namespace watches namespaced kinds per namespace; otherwise one
 * cluster-wide informer per kind. Watches use the controller's own identity (design/graph.md §24).
 *
 * The view records what the engine asked for (identities and selector lists) so the controller knows
 * which Graphs an event concerns, and notes kinds it has no synced informer for yet, so the reconciler
 * can start them, wait, and evaluate again. Objects written during a reconcile (and shortly after) are
 * overlaid on the informer cache, so a reconcile never acts on a cache that has not seen its own writes.
 */
import { Informer, type KubeObject, keepManagedFields, type RestClient } from '../../kube/index.ts';
import {
  identityKey,
  identityOf,
  type ObjectIdentity,
  type ObservedState,
  type TypeInfo,
} from '../../runtime/observed.ts';
import { type LabelSelector, matchesSelector } from '../../runtime/selector.ts';
import { OwnWrites } from './ownWrites.ts';
import type { ResourceCoordinates } from './readAccess.ts';

export interface WatchEventInfo {
  apiVersion: string;
  kind: string;
  obj: KubeObject;
  /**
   * The owner (Graph key) whose own write this event echoes (the object exactly as that write left it):
   * news to everyone else, not to the writer, whose reconcile already read the write's answer.
   */
  echoOf?: string;
  /** The object was deleted: never anyone's echo, whatever version the cache last held. */
  deleted?: true;
}

/** Whether an event seen while `owner`'s reconcile ran is news to it (not the echo of its own write). */
export function newsTo(watches: Pick<WatchSet, 'writerOf'>, owner: string, e: WatchEventInfo): boolean {
  return e.deleted === true || watches.writerOf(e.obj) !== owner;
}

export interface WatchSetOptions {
  /** Restrict namespaced watches to these namespaces (undefined: cluster-wide). */
  namespaces?: readonly string[];
  resyncMs?: number;
  onEvent: (e: WatchEventInfo) => void;
  onError?: (e: unknown) => void;
  /**
   * Keep only these managers' managedFields entries (without `time`) in the caches; all of them when
   * omitted. Expressions then see only these entries of `metadata.managedFields`.
   */
  keepManager?: (manager: string) => boolean;
  /**
   * Label keys the caches index (informer.ts `indexLabels`): a selector list whose `matchLabels` names
   * one of them reads only the objects with that label value, not every cached object of the kind.
   */
  indexLabels?: readonly string[];
  /**
   * Cache only the objects this label selector matches, for kinds no graph reads without owning them
   * (design/sharding.md §1; childScope.ts). Absent: every informer holds the whole kind.
   */
  childSelector?: string;
}

/** What one informer of a kind holds: the owned children only, or every object of the kind. */
type Reach = 'owned' | 'all';

interface TypeEntry {
  info: TypeInfo | null;
  plural?: string;
  pending?: Promise<void>;
  /** When discovery did not know the kind (retried after a while: a CRD may be on its way). */
  failedAt?: number;
}

const TYPE_RETRY_MS = 5_000;

/**
 * The cached objects that can match `selector`, read from a label index when its `matchLabels` names an
 * indexed key (a superset: the full selector is still applied); undefined when no index applies.
 */
function indexedCandidates(
  inf: Informer,
  selector: LabelSelector,
  namespace: string | undefined,
): KubeObject[] | undefined {
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) {
    if (inf.indexesLabel(k)) return inf.listByLabel(k, v, namespace);
  }
  return undefined;
}

export const gvkKey = (apiVersion: string, kind: string): string => `${apiVersion}/${kind}`;

function rvNum(o: KubeObject | undefined): number {
  const n = Number(o?.metadata?.resourceVersion);
  return Number.isFinite(n) ? n : -1;
}

/** Interest recorded during one evaluation, used to route watch events to Graphs. */
export interface Interest {
  /** identityKey of every object looked up. */
  gets: Set<string>;
  /** `gvk|namespace` or `gvk|*` of every selector list. */
  lists: Set<string>;
  /** Kinds (and namespaces) that had no synced informer, or no resolved type, during the pass. */
  missing: Map<string, MissingWatch>;
  /** Every kind (and namespace) read, for the health of the watches behind the reads (watchHealth). */
  kinds: Map<string, MissingWatch>;
}

export interface MissingWatch {
  apiVersion: string;
  kind: string;
  namespace: string | undefined;
}

export function newInterest(): Interest {
  return { gets: new Set(), lists: new Set(), missing: new Map(), kinds: new Map() };
}

function noteKind(i: Interest, apiVersion: string, kind: string, namespace: string | undefined): void {
  i.kinds.set(`${apiVersion}|${kind}|${namespace ?? '*'}`, { apiVersion, kind, namespace });
}

/** What the watches behind some reads are doing (an RGD instance's WatchesHealthy condition). */
export interface WatchHealth {
  /** `Kind.apiVersion` whose informer is starting or has not listed yet. */
  pending: string[];
  /** `Kind.apiVersion: why` whose type is not served or whose informer keeps failing before its first list. */
  blocked: string[];
}

function noteMissing(i: Interest, apiVersion: string, kind: string, namespace: string | undefined): void {
  i.missing.set(`${apiVersion}|${kind}|${namespace ?? '*'}`, { apiVersion, kind, namespace });
}

export class WatchSet {
  private readonly client: RestClient;
  private readonly opts: WatchSetOptions;
  private readonly types = new Map<string, TypeEntry>();
  private readonly informers = new Map<string, Informer>();
  /** `apiVersion/kind` of the kinds some graph reads without owning them: cached whole. */
  private readonly foreign = new Set<string>();
  /** A graph reads a kind only known at evaluation without owning it: every kind is cached whole. */
  private allForeign = false;
  /** identityKey → the object a write returned (or null for a delete), newer than the cache for a while. */
  private readonly recent = new Map<string, { obj: KubeObject | null; uid?: string; at: number }>();
  /** The versions owners' writes produced (children here, Graphs by the reconciler): echoes. */
  readonly ownWrites = new OwnWrites();
  private prunedAt = 0;
  /** Expires the write records while no reconcile reads the view (an idle controller). */
  private expiry: ReturnType<typeof setInterval> | undefined;

  constructor(client: RestClient, opts: WatchSetOptions) {
    this.client = client;
    this.opts = opts;
  }

  /** Forgets type information of an apiVersion (a CRD changed) so it is resolved again. */
  invalidateTypes(apiVersions: readonly string[]): void {
    for (const [k, t] of this.types) {
      if (apiVersions.some((av) => k.startsWith(`${av}/`)) && t.info === null) this.types.delete(k);
    }
  }

  /**
   * The REST coordinates of a kind resolved by `prepare` (what access reviews name), or undefined when
   * it is not resolved yet or not served.
   */
  resourceOf(apiVersion: string, kind: string): ResourceCoordinates | undefined {
    const t = this.types.get(gvkKey(apiVersion, kind));
    if (!t?.info || !t.plural) return undefined;
    const slash = apiVersion.indexOf('/');
    return {
      group: slash < 0 ? '' : apiVersion.slice(0, slash),
      resource: t.plural,
      namespaced: t.info.namespaced,
    };
  }

  informerCount(): number {
    return this.informers.size;
  }

  /** How many objects the informers hold (per-replica cache size: metrics, benchmarks). */
  cachedObjectCount(): number {
    let n = 0;
    for (const inf of this.informers.values()) n += inf.size;
    return n;
  }

  /**
   * Records the kinds a graph reads without owning them (childScope.ts `foreignReads`): from now on
   * they are cached whole. Call before the graph's first evaluation.
   */
  declareForeign(reads: { kinds: Iterable<string>; dynamic: boolean }): void {
    if (!this.opts.childSelector) return;
    if (reads.dynamic) this.allForeign = true;
    for (const k of reads.kinds) this.foreign.add(k);
  }

  private reachOf(apiVersion: string, kind: string): Reach {
    if (!this.opts.childSelector || this.allForeign) return 'all';
    return this.foreign.has(gvkKey(apiVersion, kind)) ? 'all' : 'owned';
  }

  /** Resolves the type and starts (and syncs) the informers a kind needs. */
  async prepare(
    apiVersion: string,
    kind: string,
    namespaces: readonly (string | undefined)[],
  ): Promise<void> {
    const t = await this.resolveType(apiVersion, kind);
    if (!t.info || !t.plural) return;
    const scopes = new Set(namespaces.map((ns) => this.scope(t.info as TypeInfo, ns)));
    const reach = this.reachOf(apiVersion, kind);
    await Promise.all([...scopes].map((s) => this.informer(apiVersion, kind, t.plural as string, s, reach)));
  }

  private async resolveType(apiVersion: string, kind: string): Promise<TypeEntry> {
    const key = gvkKey(apiVersion, kind);
    let t = this.types.get(key);
    if (t && t.info === null && t.failedAt !== undefined && Date.now() - t.failedAt > TYPE_RETRY_MS) {
      this.types.delete(key);
      t = undefined;
    }
    if (!t) {
      t = { info: null };
      const entry = t;
      entry.pending = this.client.discovery.resolveKind(apiVersion, kind).then(
        (r) => {
          entry.info = { apiVersion, kind, namespaced: r.namespaced };
          entry.plural = r.plural;
        },
        () => {
          entry.info = null;
          entry.failedAt = Date.now();
        },
      );
      this.types.set(key, t);
    }
    await t.pending;
    return t;
  }

  /** `*` (all namespaces) or a namespace. */
  private scope(info: TypeInfo, ns: string | undefined): string {
    if (!info.namespaced || !this.opts.namespaces || ns === undefined) return '*';
    return ns;
  }

  private async informer(
    apiVersion: string,
    kind: string,
    plural: string,
    scope: string,
    reach: Reach,
  ): Promise<Informer> {
    const key = `${gvkKey(apiVersion, kind)}|${scope}|${reach}`;
    let inf = this.informers.get(key);
    if (!inf) {
      const selector = reach === 'owned' ? this.opts.childSelector : undefined;
      inf = new Informer(this.client, {
        target: { apiVersion, plural, ...(scope === '*' ? {} : { namespace: scope }) },
        ...(selector ? { labelSelector: selector } : {}),
        ...(this.opts.resyncMs ? { resyncMs: this.opts.resyncMs } : {}),
        ...(this.opts.onError ? { onError: this.opts.onError } : {}),
        ...(this.opts.keepManager ? { transform: keepManagedFields(this.opts.keepManager) } : {}),
        ...(this.opts.indexLabels?.length ? { indexLabels: this.opts.indexLabels } : {}),
      });
      const emit = (obj: KubeObject): void => {
        this.caughtUp(obj, false);
        const echoOf = this.writerOf(obj);
        this.opts.onEvent({ apiVersion, kind, obj, ...(echoOf ? { echoOf } : {}) });
      };
      inf.addHandlers({
        add: emit,
        update: (old, obj) => {
          if (old !== obj) emit(obj);
        },
        // A delete is never an echo: the informer hands over its last cached copy, which is exactly
        // the version our own last write left, so an out-of-band delete right after a write of ours
        // would otherwise look like that write's echo and never be repaired.
        delete: (obj) => {
          this.caughtUp(obj, true);
          this.opts.onEvent({ apiVersion, kind, obj, deleted: true });
        },
      });
      this.informers.set(key, inf);
      if (!this.expiry) {
        this.expiry = setInterval(() => this.expire(Date.now()), 60_000);
        this.expiry.unref?.();
      }
      inf.start();
    }
    await inf.waitForSync(60_000);
    if (reach === 'all') {
      // The whole kind is cached now: the owned-only informer it supersedes goes.
      const ownedKey = `${gvkKey(apiVersion, kind)}|${scope}|owned`;
      const owned = this.informers.get(ownedKey);
      if (owned) {
        this.informers.delete(ownedKey);
        await owned.stop();
      }
    }
    return inf;
  }

  /** The health of the informers behind these reads (design/rgd.md §20.5). */
  watchHealth(kinds: Iterable<MissingWatch>): WatchHealth {
    const pending = new Set<string>();
    const blocked = new Map<string, string>();
    for (const k of kinds) {
      const name = `${k.kind}.${k.apiVersion}`;
      const t = this.types.get(gvkKey(k.apiVersion, k.kind));
      if (!t || (t.info === null && t.failedAt === undefined)) {
        pending.add(name);
        continue;
      }
      if (t.info === null) {
        blocked.set(name, 'the API server does not serve this kind');
        continue;
      }
      const scope = this.scope(t.info, k.namespace);
      if (this.syncedInformer(k.apiVersion, k.kind, scope)) continue;
      const base = `${gvkKey(k.apiVersion, k.kind)}|${scope}`;
      const failing = [this.informers.get(`${base}|all`), this.informers.get(`${base}|owned`)].some(
        (inf) => inf !== undefined && inf.stats.errors > 0,
      );
      if (failing) blocked.set(name, 'listing it keeps failing');
      else pending.add(name);
    }
    for (const b of blocked.keys()) pending.delete(b);
    return {
      pending: [...pending].sort(),
      blocked: [...blocked].map(([n, why]) => `${n}: ${why}`).sort(),
    };
  }

  /**
   * The synced informer reads of a kind consult: the whole kind's when it runs; the owned-only one
   * unless the kind is read without being owned (then its reads wait for the whole kind: missing).
   */
  private syncedInformer(apiVersion: string, kind: string, scope: string): Informer | undefined {
    const all = this.wholeKind(apiVersion, kind, scope);
    if (all) return all;
    if (this.reachOf(apiVersion, kind) === 'all') return undefined;
    const owned = this.informers.get(`${gvkKey(apiVersion, kind)}|${scope}|owned`);
    return owned?.hasSynced() ? owned : undefined;
  }

  /** The informer of every object of a kind in a scope, once synced. */
  private wholeKind(apiVersion: string, kind: string, scope: string): Informer | undefined {
    const all = this.informers.get(`${gvkKey(apiVersion, kind)}|${scope}|all`);
    return all?.hasSynced() ? all : undefined;
  }

  /**
   * The cache now holds this event's object (or no longer holds it, `deleted`): a write overlay it
   * makes redundant goes (reads would drop it too), and so do the echo records of a deleted object.
   */
  private caughtUp(obj: KubeObject, deleted: boolean): void {
    if (this.recent.size === 0 && this.ownWrites.size === 0) return;
    const id = identityOf(obj);
    if (!id) return;
    const key = identityKey(id);
    const r = this.recent.get(key);
    if (deleted) {
      const uid = r ? (r.obj === null ? r.uid : r.obj.metadata.uid) : undefined;
      if (r && uid === obj.metadata.uid) this.recent.delete(key);
      this.ownWrites.deleted(key, obj.metadata.resourceVersion);
    } else if (r?.obj && rvNum(obj) >= rvNum(r.obj)) {
      this.recent.delete(key);
    }
  }

  /** Drops write overlays and echo records older than a minute. */
  private expire(now: number): void {
    this.prunedAt = now;
    for (const [k, r] of this.recent) if (now - r.at > 60_000) this.recent.delete(k);
    this.ownWrites.expire();
  }

  /** How many objects the write overlays and echo records hold (tests, benchmarks). */
  overlaySizes(): { recent: number; ownWrites: number } {
    return { recent: this.recent.size, ownWrites: this.ownWrites.size };
  }

  /**
   * Records an object a write returned, so reads see it before the watch delivers it; with `owner`, the
   * watch event of exactly this version is marked as that owner's echo.
   */
  noteWritten(obj: KubeObject, owner?: string): void {
    const id = identityOf(obj);
    if (!id) return;
    const key = identityKey(id);
    // The watch event may come before the write's answer: then the cache holds it already.
    const cached = this.peek(id);
    if (!cached || rvNum(cached) < rvNum(obj)) this.recent.set(key, { obj, at: Date.now() });
    this.ownWrites.note(key, obj.metadata.resourceVersion, owner);
  }

  /** The owner whose write produced exactly this version of the object (ownWrites.ts). */
  writerOf(obj: KubeObject): string | undefined {
    const id = identityOf(obj);
    return id ? this.ownWrites.writerOf(identityKey(id), obj.metadata.resourceVersion) : undefined;
  }

  /** Records a delete (by UID), so reads stop seeing the object before the watch delivers it. */
  noteDeleted(id: ObjectIdentity, uid: string): void {
    // Unless neither the cache nor a write overlay holds it (its delete event came before the answer);
    // an object our own write created may not have reached the cache yet, so its overlay counts.
    const key = identityKey(id);
    const overlaid = this.recent.get(key)?.obj?.metadata.uid === uid;
    if (!overlaid && this.peek(id)?.metadata.uid !== uid) return;
    this.recent.set(key, { obj: null, uid, at: Date.now() });
  }

  /** An ObservedState over the caches that records the interest of one evaluation. */
  view(interest: Interest): ObservedState {
    const now = Date.now();
    // Expiry at most once a second: a view is taken several times per pass, the maps hold every write
    // of the last minute.
    if (now - this.prunedAt > 1_000) this.expire(now);
    return {
      get: (id) => {
        const key = identityKey(id);
        interest.gets.add(key);
        noteKind(interest, id.apiVersion, id.kind, id.namespace);
        const cached = this.cachedGet(id, interest);
        const recent = this.recent.get(key);
        if (!recent) return cached;
        if (recent.obj === null) {
          return cached && cached.metadata.uid !== recent.uid ? cached : undefined;
        }
        // Once the informer has seen events up to our write, the cache is authoritative (the object
        // may have been deleted since).
        const inf = this.informerFor(id);
        const seen = Number(inf?.resourceVersion);
        if (Number.isFinite(seen) && seen >= rvNum(recent.obj)) {
          this.recent.delete(key);
          return cached;
        }
        if (!cached || rvNum(recent.obj) > rvNum(cached)) return recent.obj;
        return cached;
      },
      list: (apiVersion, kind, namespace, selector) => {
        interest.lists.add(`${gvkKey(apiVersion, kind)}|${namespace ?? '*'}`);
        noteKind(interest, apiVersion, kind, namespace);
        return this.cachedList(apiVersion, kind, namespace, selector, interest);
      },
      servedType: (apiVersion, kind) => {
        const t = this.types.get(gvkKey(apiVersion, kind));
        if (!t || t.pending === undefined) {
          noteMissing(interest, apiVersion, kind, undefined);
          return undefined;
        }
        return t.info ?? undefined;
      },
    };
  }

  private typeInfo(
    apiVersion: string,
    kind: string,
    namespace: string | undefined,
    interest: Interest,
  ): TypeEntry | undefined {
    const t = this.types.get(gvkKey(apiVersion, kind));
    if (!t) {
      noteMissing(interest, apiVersion, kind, namespace);
      return undefined;
    }
    return t;
  }

  private cachedGet(id: ObjectIdentity, interest: Interest): KubeObject | undefined {
    const t = this.typeInfo(id.apiVersion, id.kind, id.namespace, interest);
    if (!t?.info) return undefined;
    const inf = this.syncedInformer(id.apiVersion, id.kind, this.scope(t.info, id.namespace));
    if (!inf) {
      noteMissing(interest, id.apiVersion, id.kind, id.namespace);
      return undefined;
    }
    return inf.get(t.info.namespaced ? id.namespace : undefined, id.name);
  }

  private cachedList(
    apiVersion: string,
    kind: string,
    namespace: string | undefined,
    selector: LabelSelector,
    interest: Interest,
  ): KubeObject[] {
    const t = this.typeInfo(apiVersion, kind, namespace, interest);
    if (!t?.info) return [];
    const inf = this.syncedInformer(apiVersion, kind, this.scope(t.info, namespace));
    if (!inf) {
      noteMissing(interest, apiVersion, kind, namespace);
      return [];
    }
    const ns = t.info.namespaced ? namespace : undefined;
    const items = indexedCandidates(inf, selector, ns) ?? inf.list(ns);
    return items
      .filter((o) => matchesSelector(selector, o.metadata.labels ?? {}))
      .sort((a, b) =>
        `${a.metadata.namespace ?? ''}/${a.metadata.name}`.localeCompare(
          `${b.metadata.namespace ?? ''}/${b.metadata.name}`,
        ),
      );
  }

  /**
   * Whether the cache reads of this object consult holds every object of its kind (not only kgraph's):
   * then an object absent from it is absent from the cluster, as far as the cache knows.
   */
  holdsWholeKind(id: ObjectIdentity): boolean {
    const t = this.types.get(gvkKey(id.apiVersion, id.kind));
    if (!t?.info) return false;
    return this.wholeKind(id.apiVersion, id.kind, this.scope(t.info, id.namespace)) !== undefined;
  }

  private informerFor(id: ObjectIdentity): Informer | undefined {
    const t = this.types.get(gvkKey(id.apiVersion, id.kind));
    if (!t?.info) return undefined;
    return this.syncedInformer(id.apiVersion, id.kind, this.scope(t.info, id.namespace));
  }

  /** Direct cache read (no interest), e.g. for deletion progress. */
  peek(id: ObjectIdentity): KubeObject | undefined {
    const t = this.types.get(gvkKey(id.apiVersion, id.kind));
    if (!t?.info) return undefined;
    return this.syncedInformer(id.apiVersion, id.kind, this.scope(t.info, id.namespace))?.get(
      t.info.namespaced ? id.namespace : undefined,
      id.name,
    );
  }

  async stop(): Promise<void> {
    if (this.expiry) clearInterval(this.expiry);
    this.expiry = undefined;
    await Promise.all([...this.informers.values()].map((i) => i.stop()));
    this.informers.clear();
  }
}
