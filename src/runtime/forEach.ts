/**
 * forEach expansion (design/graph.md §8): the cartesian product of the iterator lists, the first
 * iterator outermost. An empty dimension gives no items; more items than the limit is a hard error.
 */
import { canonicalKey } from './canonical.ts';

/** Default item limit per collection (design/graph.md §25, `--rgd-max-collection-size`). */
export const DEFAULT_MAX_COLLECTION_SIZE = 1000;

export interface Dimension {
  name: string;
  values: readonly unknown[];
}

export interface CollectionItem {
  /** Position in the desired order, 0-based. */
  index: number;
  /** Iterator name → value for this item. */
  bindings: Record<string, unknown>;
  /**
   * Identity of the item derived from its iterator values only (not from its position), so an item
   * keeps its key when other items are added or removed around it.
   */
  key: string;
}

export type Expansion =
  | { ok: true; items: CollectionItem[] }
  | { ok: false; reason: 'tooLarge'; count: number; limit: number };

/**
 * Expands the dimensions, outermost first. `dims` must be non-empty (an empty forEach is "not a
 * collection" and handled by the caller). The size is checked before anything is built.
 */
export function expandForEach(dims: readonly Dimension[], limit = DEFAULT_MAX_COLLECTION_SIZE): Expansion {
  if (dims.length === 0) throw new Error('expandForEach: at least one dimension is required');
  let count = 1;
  for (const d of dims) count *= d.values.length;
  if (count > limit) return { ok: false, reason: 'tooLarge', count, limit };
  const items: CollectionItem[] = [];
  if (count === 0) return { ok: true, items };
  const keys = dims.map((d) => d.values.map((v) => canonicalKey(v)));
  const idx = dims.map(() => 0);
  const occurrences = new Map<string, number>();
  for (let n = 0; n < count; n++) {
    const bindings: Record<string, unknown> = {};
    const keyParts: string[] = [];
    for (let d = 0; d < dims.length; d++) {
      const dim = dims[d]!;
      const i = idx[d]!;
      bindings[dim.name] = dim.values[i];
      keyParts.push(`${dim.name}=${keys[d]![i]!}`);
    }
    // Equal values in one list would give equal keys; the occurrence number keeps keys unique.
    let key = keyParts.join(';');
    const seen = occurrences.get(key) ?? 0;
    occurrences.set(key, seen + 1);
    if (seen > 0) key = `${key}#${seen}`;
    items.push({ index: n, bindings, key });
    // Odometer increment: the last dimension varies fastest, so the first is the outermost loop.
    for (let d = dims.length - 1; d >= 0; d--) {
      idx[d] = idx[d]! + 1;
      if (idx[d]! < dims[d]!.values.length) break;
      idx[d] = 0;
    }
  }
  return { ok: true, items };
}
