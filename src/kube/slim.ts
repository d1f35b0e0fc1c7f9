/**
 * Informer transforms that make cached objects smaller. `managedFields` mirrors the
 * structure of every field once per manager, so it is often as large as the object itself; a cache
 * keeps only what its readers need of it. Both transforms change the object in place (an informer's
 * objects come straight from JSON.parse and are not shared yet) and return it.
 */
import type { KubeObject } from './types.ts';

/** Drops `metadata.managedFields` (for caches whose readers never look at field ownership). */
export function dropManagedFields(obj: KubeObject): KubeObject {
  if (obj.metadata?.managedFields) delete obj.metadata.managedFields;
  return obj;
}

/**
 * Keeps only the managedFields entries of the managers `keep` accepts, without their `time` (what a
 * reader of its own managers' field sets needs); the field is left out when no entry remains.
 */
export function keepManagedFields(keep: (manager: string) => boolean): (obj: KubeObject) => KubeObject {
  return (obj) => {
    const entries = obj.metadata?.managedFields;
    if (!entries) return obj;
    const kept = [];
    for (const e of entries) {
      if (!keep(e.manager ?? '')) continue;
      const { time: _time, ...rest } = e;
      kept.push(rest);
    }
    if (kept.length > 0) obj.metadata.managedFields = kept;
    else delete obj.metadata.managedFields;
    return obj;
  };
}
