/**
 * The cluster as the controller's later passes of one reconcile see it (design/rgd.md §19.9): the
 * observed snapshot with the objects a pass applied laid over it — an applied object is the live one
 * with the desired fields merged in (its status as it was), a created one is the desired object alone
 * (no status yet, so whatever waits for its readiness keeps waiting). Pure.
 */
import { isRecord } from '../diag/record.ts';
import { identityKey, identityOf, type KubeObject, type ObservedState } from '../runtime/observed.ts';
import { matchesSelector } from '../runtime/selector.ts';

export class OverlayState implements ObservedState {
  private readonly base: ObservedState;
  private readonly written = new Map<string, KubeObject>();

  constructor(base: ObservedState) {
    this.base = base;
  }

  /** Records what a pass applied: `live` merged with `desired`, or `desired` for a creation. */
  write(desired: KubeObject, live: KubeObject | undefined): void {
    const id = identityOf(desired);
    if (!id) return;
    this.written.set(identityKey(id), live ? (merge(live, desired) as KubeObject) : desired);
  }

  get: ObservedState['get'] = (id, reader) => this.written.get(identityKey(id)) ?? this.base.get(id, reader);

  list: ObservedState['list'] = (apiVersion, kind, namespace, selector, reader) => {
    const keyOf = (o: KubeObject) => {
      const id = identityOf(o);
      return id ? identityKey(id) : '';
    };
    const out = this.base
      .list(apiVersion, kind, namespace, selector, reader)
      .map((o) => this.written.get(keyOf(o)) ?? o)
      .filter((o) => matchesSelector(selector, labelsOf(o)));
    const seen = new Set(out.map(keyOf));
    for (const [key, o] of this.written) {
      if (seen.has(key) || o.apiVersion !== apiVersion || o.kind !== kind) continue;
      const ns = isRecord(o.metadata) ? o.metadata.namespace : undefined;
      if (namespace !== undefined && ns !== namespace) continue;
      if (matchesSelector(selector, labelsOf(o))) out.push(o);
    }
    return out;
  };

  servedType: ObservedState['servedType'] = (apiVersion, kind) => this.base.servedType(apiVersion, kind);
}

/** Server-side apply as a merge of maps; lists and scalars of the desired object replace. */
function merge(live: unknown, desired: unknown): unknown {
  if (!isRecord(live) || !isRecord(desired)) return desired;
  const out: Record<string, unknown> = { ...live };
  for (const [k, v] of Object.entries(desired)) out[k] = merge(live[k], v);
  return out;
}

function labelsOf(o: KubeObject): Record<string, string> {
  const labels = isRecord(o.metadata) && isRecord(o.metadata.labels) ? o.metadata.labels : {};
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(labels)) if (typeof v === 'string') out[k] = v;
  return out;
}
