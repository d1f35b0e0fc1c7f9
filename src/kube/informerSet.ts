/**
 * A registry of informers started on demand, one per watched resource type
 * (and namespace / selector / metadata-only view). The Graph controller watches
 * every kind it reads or writes; kinds come and go with Graph specs, so informers
 * are created when first needed, shared by everyone who needs the same view,
 * and report every event through one callback.
 */
import { Informer, type InformerOptions } from './informer.ts';
import { labelSelector as formatSelector } from './paths.ts';
import type { RestClient } from './rest.ts';
import type { KubeObject } from './types.ts';

export interface WatchSpec {
  apiVersion: string;
  kind: string;
  /** Only this namespace; all namespaces when omitted. */
  namespace?: string;
  labelSelector?: string | Record<string, string>;
  metadataOnly?: boolean;
}

export type InformerEvent = 'add' | 'update' | 'delete';

export interface InformerSetOptions {
  resyncMs?: number;
  onError?: (spec: WatchSpec, e: unknown) => void;
  /** Every event of every informer (resync updates included, with old === new). */
  onEvent?: (event: InformerEvent, obj: KubeObject, spec: WatchSpec, old?: KubeObject) => void;
}

/** The identity of a view: same key, same informer. */
export function watchKey(s: WatchSpec): string {
  return [
    s.apiVersion,
    s.kind,
    s.namespace ?? '*',
    formatSelector(s.labelSelector) ?? '',
    s.metadataOnly ? 'meta' : 'full',
  ].join('|');
}

export class InformerSet {
  private readonly client: RestClient;
  private readonly opts: InformerSetOptions;
  private readonly informers = new Map<string, { spec: WatchSpec; informer: Informer }>();

  constructor(client: RestClient, opts: InformerSetOptions = {}) {
    this.client = client;
    this.opts = opts;
  }

  /** The started informer for `spec`, created on first use. */
  ensure(spec: WatchSpec): Informer {
    const key = watchKey(spec);
    const existing = this.informers.get(key);
    if (existing) return existing.informer;
    const o: InformerOptions = {
      target: { apiVersion: spec.apiVersion, kind: spec.kind, namespace: spec.namespace },
    };
    if (spec.labelSelector !== undefined) o.labelSelector = spec.labelSelector;
    if (spec.metadataOnly) o.metadataOnly = true;
    if (this.opts.resyncMs !== undefined) o.resyncMs = this.opts.resyncMs;
    const onError = this.opts.onError;
    if (onError) o.onError = (e) => onError(spec, e);
    const informer = new Informer(this.client, o);
    const onEvent = this.opts.onEvent;
    if (onEvent) {
      informer.addHandlers({
        add: (obj) => onEvent('add', obj, spec),
        update: (old, obj) => onEvent('update', obj, spec, old),
        delete: (obj) => onEvent('delete', obj, spec),
      });
    }
    this.informers.set(key, { spec, informer });
    informer.start();
    return informer;
  }

  has(spec: WatchSpec): boolean {
    return this.informers.has(watchKey(spec));
  }

  specs(): WatchSpec[] {
    return [...this.informers.values()].map((e) => e.spec);
  }

  /** True when every informer has completed its first list. */
  hasSynced(): boolean {
    return [...this.informers.values()].every((e) => e.informer.hasSynced());
  }

  async waitForSync(timeoutMs = 60_000): Promise<void> {
    await Promise.all([...this.informers.values()].map((e) => e.informer.waitForSync(timeoutMs)));
  }

  /** Cuts the error backoff of every informer that has not synced yet (call when a CRD appears). */
  retryUnsynced(): void {
    for (const e of this.informers.values()) if (!e.informer.hasSynced()) e.informer.retryNow();
  }

  /** Stops and forgets one view (e.g. when no Graph uses the kind any more). */
  async release(spec: WatchSpec): Promise<void> {
    const key = watchKey(spec);
    const e = this.informers.get(key);
    if (!e) return;
    this.informers.delete(key);
    await e.informer.stop();
  }

  async stopAll(): Promise<void> {
    const all = [...this.informers.values()];
    this.informers.clear();
    await Promise.all(all.map((e) => e.informer.stop()));
  }
}
