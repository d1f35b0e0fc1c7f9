/**
 * An informer: a local cache of one resource type kept current by list + watch,
 * with event handlers. Controllers read from it instead of hitting the server,
 * which is what makes a steady-state reconcile free of requests.
 *
 * Protocol (design/platform.md §4.4): list (paged) → watch from the list's
 * resourceVersion with bookmarks; bookmarks and every event advance the
 * resourceVersion, so a reconnect resumes where it stopped; 410 Gone (status or
 * ERROR event) → relist and diff against the cache; other errors → jittered
 * exponential backoff; a periodic resync replays the cache as updates.
 */
import { Backoff, type BackoffOptions, sleep } from './backoff.ts';
import { isApiError, isGone } from './errors.ts';
import { objectKey } from './paths.ts';
import type { Impersonation, ResourceTarget, RestClient } from './rest.ts';
import type { KubeObject } from './types.ts';
import { type WatchEvent, watchOnce } from './watch.ts';

export interface InformerHandlers {
  add?: (obj: KubeObject) => void;
  /** Also called by resync with old === new. */
  update?: (oldObj: KubeObject, newObj: KubeObject) => void;
  delete?: (obj: KubeObject) => void;
}

export interface InformerOptions {
  /** apiVersion + kind (or plural); a namespace restricts to it, none watches all namespaces. */
  target: ResourceTarget;
  labelSelector?: string | Record<string, string>;
  fieldSelector?: string;
  metadataOnly?: boolean;
  /** Periodic resync interval in ms; 0 or undefined = none. */
  resyncMs?: number;
  /** List page size (default 500). */
  pageSize?: number;
  /** Server-side watch timeout; default a random 5–10 min, like client-go. */
  watchTimeoutSeconds?: () => number;
  /** Error backoff (default 800 ms → 30 s, factor 2, jitter 1.0). */
  backoff?: Partial<BackoffOptions>;
  impersonate?: Impersonation;
  /** Told about every list/watch error (after which the informer backs off or relists). */
  onError?: (e: unknown) => void;
  /** Replaces the RestClient list/watch (tests). */
  listerWatcher?: ListerWatcher;
  /**
   * The cache key of an object (default `namespace/name`). A kcp wildcard list holds objects of many
   * logical clusters, so its informers key by cluster too; `getByKey` reads them.
   */
  key?: (obj: KubeObject) => string;
  /**
   * Applied to every object before it is cached and handed to handlers (client-go's SetTransform):
   * drop what no reader needs (e.g. managedFields) so the cache holds less. Must keep the identity
   * and `metadata.resourceVersion`, which the informer itself reads.
   */
  transform?: (obj: KubeObject) => KubeObject;
  /**
   * Label keys to index: for each, label value → cache keys, kept current on every add, update
   * (label changed or removed), delete and relist, so `listByLabel` costs the matches, not the cache.
   */
  indexLabels?: readonly string[];
}

/**
 * Where the informer gets its data. The default lists and watches through a
 * RestClient; unit tests of the informer's state machine (relist on 410,
 * backoff) pass a scripted one, since a real server rarely answers 410 on demand.
 */
export interface ListerWatcher {
  list(signal: AbortSignal): Promise<{ items: KubeObject[]; resourceVersion: string }>;
  /** Watches from `resourceVersion` until the server ends the stream (resolve) or an error (reject). */
  watch(resourceVersion: string, signal: AbortSignal, onEvent: (e: WatchEvent) => void): Promise<void>;
}

/** Paged list + bookmark-enabled watch of the informer's target through `client`. */
export function restListerWatcher(client: RestClient, opts: InformerOptions): ListerWatcher {
  const common = {
    ...(opts.labelSelector !== undefined ? { labelSelector: opts.labelSelector } : {}),
    ...(opts.fieldSelector !== undefined ? { fieldSelector: opts.fieldSelector } : {}),
    ...(opts.metadataOnly ? { metadataOnly: true } : {}),
    ...(opts.impersonate ? { impersonate: opts.impersonate } : {}),
  };
  return {
    async list(signal) {
      const { items, resourceVersion } = await client.listAll(opts.target, {
        limit: opts.pageSize ?? 500,
        ...common,
        signal,
      });
      return { items, resourceVersion };
    },
    watch(resourceVersion, signal, onEvent) {
      return watchOnce(
        client,
        opts.target,
        {
          resourceVersion,
          allowWatchBookmarks: true,
          timeoutSeconds: opts.watchTimeoutSeconds?.() ?? 300 + Math.floor(Math.random() * 300),
          ...common,
          signal,
        },
        onEvent,
      );
    },
  };
}

export interface InformerStats {
  lists: number;
  relists: number;
  watches: number;
  events: number;
  bookmarks: number;
  errors: number;
}

export class Informer {
  private readonly lw: ListerWatcher;
  private readonly opts: InformerOptions;
  private readonly store = new Map<string, KubeObject>();
  /** Indexed label key → label value → cache keys of the objects carrying it. */
  private readonly labelIndex = new Map<string, Map<string, Set<string>>>();
  private readonly handlers: InformerHandlers[] = [];
  private readonly backoff: Backoff;
  private abort: AbortController | undefined;
  private loop: Promise<void> | undefined;
  private resyncTimer: ReturnType<typeof setInterval> | undefined;
  private synced = false;
  private wake: AbortController | undefined;
  private syncWaiters: { resolve: () => void; reject: (e: Error) => void }[] = [];
  private rv = '';
  readonly stats: InformerStats = { lists: 0, relists: 0, watches: 0, events: 0, bookmarks: 0, errors: 0 };

  constructor(client: RestClient, opts: InformerOptions) {
    this.lw = opts.listerWatcher ?? restListerWatcher(client, opts);
    this.opts = opts;
    this.backoff = new Backoff({ initialMs: 800, maxMs: 30_000, factor: 2, jitter: 1, ...opts.backoff });
    for (const k of opts.indexLabels ?? []) this.labelIndex.set(k, new Map());
  }

  /** Registers handlers; when already synced, replays the cache as adds to them. */
  addHandlers(h: InformerHandlers): void {
    this.handlers.push(h);
    if (this.synced && h.add) for (const o of this.store.values()) this.safe(() => h.add?.(o));
  }

  /** The last resourceVersion seen (list, event or bookmark). */
  get resourceVersion(): string {
    return this.rv;
  }

  hasSynced(): boolean {
    return this.synced;
  }

  /** Resolves after the first complete list; rejects on timeout or if stopped first. */
  waitForSync(timeoutMs = 60_000): Promise<void> {
    if (this.synced) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const waiter = {
        resolve: () => {
          clearTimeout(t);
          resolve();
        },
        reject: (e: Error) => {
          clearTimeout(t);
          reject(e);
        },
      };
      const t = setTimeout(() => {
        this.syncWaiters = this.syncWaiters.filter((w) => w !== waiter);
        reject(new Error(`informer did not sync within ${timeoutMs} ms`));
      }, timeoutMs);
      this.syncWaiters.push(waiter);
    });
  }

  get(namespace: string | undefined, name: string): KubeObject | undefined {
    return this.store.get(objectKey(namespace, name));
  }
  getByKey(key: string): KubeObject | undefined {
    return this.store.get(key);
  }
  /** Cached objects, optionally only those of one namespace. */
  list(namespace?: string): KubeObject[] {
    const all = [...this.store.values()];
    return namespace === undefined ? all : all.filter((o) => o.metadata.namespace === namespace);
  }
  /** Whether `listByLabel` can answer for this label key. */
  indexesLabel(key: string): boolean {
    return this.labelIndex.has(key);
  }
  /**
   * Cached objects labelled `key=value` (optionally only of one namespace), from the label index;
   * undefined when `key` is not one of `indexLabels`.
   */
  listByLabel(key: string, value: string, namespace?: string): KubeObject[] | undefined {
    const byValue = this.labelIndex.get(key);
    if (!byValue) return undefined;
    const out: KubeObject[] = [];
    for (const k of byValue.get(value) ?? []) {
      const o = this.store.get(k);
      if (o && (namespace === undefined || o.metadata.namespace === namespace)) out.push(o);
    }
    return out;
  }
  keys(): string[] {
    return [...this.store.keys()];
  }
  get size(): number {
    return this.store.size;
  }

  start(): void {
    if (this.loop) return;
    this.abort = new AbortController();
    const signal = this.abort.signal;
    this.loop = this.run(signal);
    const resync = this.opts.resyncMs ?? 0;
    if (resync > 0) {
      this.resyncTimer = setInterval(() => this.resync(), resync);
      this.resyncTimer.unref?.();
    }
  }

  async stop(): Promise<void> {
    if (this.resyncTimer) clearInterval(this.resyncTimer);
    this.resyncTimer = undefined;
    this.abort?.abort();
    await this.loop;
    this.loop = undefined;
    for (const w of this.syncWaiters.splice(0)) w.reject(new Error('informer stopped before it synced'));
  }

  /** Ends a pending error backoff now (e.g. the CRD of a kind that was not served has just been installed). */
  retryNow(): void {
    this.wake?.abort();
  }

  /** Replays every cached object as an update (old === new). */
  resync(): void {
    for (const o of this.store.values()) this.emit('update', o, o);
  }

  private async run(signal: AbortSignal): Promise<void> {
    let needList = true;
    while (!signal.aborted) {
      try {
        if (needList) {
          await this.relist(signal);
          if (signal.aborted) return;
          needList = false;
        }
        this.stats.watches += 1;
        let gotEvent = false;
        const started = Date.now();
        await this.lw.watch(this.rv, signal, (e) => {
          gotEvent = true;
          this.onWatchEvent(e);
        });
        // A clean end (server timeout) simply re-watches from the last resourceVersion;
        // a watch that keeps ending at once without events is backed off, not spun on.
        if (gotEvent) this.backoff.reset();
        else if (Date.now() - started < 1_000) await this.pause(signal);
      } catch (e) {
        if (signal.aborted) return;
        this.stats.errors += 1;
        this.safe(() => this.opts.onError?.(e));
        if (isGone(e)) {
          needList = true;
          continue;
        }
        // A watch that cannot resume (e.g. too old but not reported as 410) falls back to a relist
        // after repeated failures.
        if (!isApiError(e) || this.backoff.attempts >= 3) needList = true;
        await this.pause(signal);
      }
    }
  }

  /** Waits the next backoff delay; `retryNow()` or stop end it early. */
  private async pause(signal: AbortSignal): Promise<void> {
    this.wake = new AbortController();
    await sleep(this.backoff.next(), AbortSignal.any([signal, this.wake.signal]));
    this.wake = undefined;
  }

  private async relist(signal: AbortSignal): Promise<void> {
    if (this.stats.lists > 0) this.stats.relists += 1;
    this.stats.lists += 1;
    const { items, resourceVersion } = await this.lw.list(signal);
    if (signal.aborted) return;
    const t = this.opts.transform;
    this.replace(t ? items.map(t) : items, resourceVersion);
    this.backoff.reset();
    if (!this.synced) {
      this.synced = true;
      for (const w of this.syncWaiters.splice(0)) w.resolve();
    }
  }

  /** Makes the cache equal to `items`, emitting the differences. */
  private replace(items: KubeObject[], resourceVersion: string): void {
    const seen = new Set<string>();
    for (const o of items) {
      const key = this.keyOf(o);
      seen.add(key);
      const old = this.store.get(key);
      this.put(key, o, old);
      if (!old) this.emit('add', o);
      else if (old.metadata.resourceVersion !== o.metadata.resourceVersion) this.emit('update', old, o);
    }
    for (const [key, old] of [...this.store]) {
      if (seen.has(key)) continue;
      this.remove(key, old);
      this.emit('delete', old);
    }
    this.rv = resourceVersion;
  }

  private onWatchEvent(e: WatchEvent): void {
    const rv = e.object.metadata?.resourceVersion;
    if (e.type === 'BOOKMARK') {
      this.stats.bookmarks += 1;
      if (rv) this.rv = rv;
      return;
    }
    this.stats.events += 1;
    const obj = this.opts.transform ? this.opts.transform(e.object) : e.object;
    const key = this.keyOf(obj);
    if (e.type === 'DELETED') {
      const old = this.store.get(key);
      if (old) this.remove(key, old);
      this.emit('delete', old ?? obj);
    } else {
      const old = this.store.get(key);
      this.put(key, obj, old);
      if (old) this.emit('update', old, obj);
      else this.emit('add', obj);
    }
    if (rv) this.rv = rv;
  }

  private emit(kind: 'add', o: KubeObject): void;
  private emit(kind: 'delete', o: KubeObject): void;
  private emit(kind: 'update', old: KubeObject, o: KubeObject): void;
  private emit(kind: 'add' | 'update' | 'delete', a: KubeObject, b?: KubeObject): void {
    for (const h of this.handlers) {
      this.safe(() => {
        if (kind === 'add') h.add?.(a);
        else if (kind === 'delete') h.delete?.(a);
        else h.update?.(a, b ?? a);
      });
    }
  }

  private keyOf(o: KubeObject): string {
    return this.opts.key ? this.opts.key(o) : keyOf(o);
  }

  /** Caches `o` under `key` (replacing `old`), moving it between label-index entries as its labels changed. */
  private put(key: string, o: KubeObject, old: KubeObject | undefined): void {
    this.store.set(key, o);
    if (this.labelIndex.size === 0) return;
    const labels = o.metadata?.labels;
    const oldLabels = old?.metadata?.labels;
    for (const [label, byValue] of this.labelIndex) {
      const was = oldLabels?.[label];
      const now = labels?.[label];
      if (was === now) continue;
      if (was !== undefined) unindex(byValue, was, key);
      if (now !== undefined) {
        let keys = byValue.get(now);
        if (!keys) {
          keys = new Set();
          byValue.set(now, keys);
        }
        keys.add(key);
      }
    }
  }

  private remove(key: string, old: KubeObject): void {
    this.store.delete(key);
    const labels = old.metadata?.labels;
    if (!labels) return;
    for (const [label, byValue] of this.labelIndex) {
      const was = labels[label];
      if (was !== undefined) unindex(byValue, was, key);
    }
  }

  private safe(f: () => void): void {
    try {
      f();
    } catch (e) {
      this.opts.onError?.(e);
    }
  }
}

function unindex(byValue: Map<string, Set<string>>, value: string, key: string): void {
  const keys = byValue.get(value);
  if (!keys) return;
  keys.delete(key);
  if (keys.size === 0) byValue.delete(value);
}

function keyOf(o: KubeObject): string {
  return objectKey(o.metadata?.namespace, o.metadata?.name ?? '');
}
