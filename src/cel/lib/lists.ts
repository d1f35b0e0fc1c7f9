import type { Environment } from '@marcbachmann/cel-js';
import { UnsignedInt } from '@marcbachmann/cel-js/evaluator';
import { chargeCost, checkListLength } from '../limits.ts';
import { celError } from './errors.ts';
import type { CelLibrary } from './library.ts';
import { ensureNamespace } from './namespaces.ts';
import { celCompare, celEquals, celTypeName } from './values.ts';

/**
 * cel-go lists extension (ext/lists.go, latest version as kro enables it): slice, flatten, sort,
 * distinct, reverse and lists.range. `sortBy` takes a lambda and is a macro (owned by the core).
 */

function slice(list: unknown[], start: bigint, end: bigint): unknown[] {
  if (start < 0n || end < 0n)
    throw celError(`cannot slice(${start}, ${end}), negative indexes not supported`);
  if (start > end) {
    throw celError(`cannot slice(${start}, ${end}), start index must be less than or equal to end index`);
  }
  if (end > BigInt(list.length))
    throw celError(`cannot slice(${start}, ${end}), list is length ${list.length}`);
  return list.slice(Number(start), Number(end));
}

function flatten(list: unknown[], depth: bigint): unknown[] {
  if (depth < 0n) throw celError('level must be non-negative');
  const out: unknown[] = [];
  flattenInto(out, list, depth);
  return out;
}

/** Nested lists are charged per element as they are copied, and the output is size-checked as it grows. */
function flattenInto(out: unknown[], list: readonly unknown[], depth: bigint): void {
  chargeCost(list.length);
  checkListLength(out.length + list.length);
  for (const item of list) {
    if (Array.isArray(item) && depth > 0n) flattenInto(out, item, depth - 1n);
    else out.push(item);
  }
}

/**
 * cel-go's @sortByAssociatedKeys (behind `sort()` and `sortBy`): keys must all have the type of
 * the first key, which must be orderable. Go's sort.Slice is not stable for more than 12 elements;
 * we sort stably, so only the relative order of elements with equal keys beyond that size can differ.
 */
export function sortByKeys<T>(list: readonly T[], keys: readonly unknown[]): T[] {
  if (list.length !== keys.length) {
    throw celError(
      `@sortByAssociatedKeys() expected a list of the same size as the associated keys list, but got ${list.length} and ${keys.length} elements respectively`,
    );
  }
  if (list.length === 0) return [...list];
  const first = celTypeName(keys[0]);
  if (!ORDERABLE.has(first)) throw celError('list elements must be comparable');
  if (keys.some((k) => celTypeName(k) !== first)) throw celError('list elements must have the same type');
  const order = keys.map((_, i) => i).sort((a, b) => celCompare(keys[a], keys[b]));
  return order.map((i) => list[i] as T);
}

export function sortList<T>(list: readonly T[]): T[] {
  return sortByKeys(list, list);
}

/**
 * A key under which CEL-equal scalars coincide (1 == 1.0 == 1u; NaN equals nothing), or undefined for
 * values that need celEquals (lists, maps, bytes, timestamps, …).
 */
function scalarKey(item: unknown): string | undefined {
  if (typeof item === 'string') return `s${item}`;
  if (typeof item === 'boolean') return item ? 't' : 'f';
  if (typeof item === 'bigint') return `n${item}`;
  if (item instanceof UnsignedInt) return `n${item.value}`;
  if (typeof item === 'number') {
    if (Number.isNaN(item)) return undefined;
    return Number.isInteger(item) ? `n${BigInt(item)}` : `d${item}`;
  }
  return undefined;
}

/**
 * First occurrences in order. Scalars are hashed (linear: the 100,000-element `lists.range(…)
 * .distinct()` that took minutes when every element was compared with every kept one); other values
 * are compared with the kept non-scalars, each comparison charged before it runs.
 */
function distinct(list: unknown[]): unknown[] {
  const out: unknown[] = [];
  const seen = new Set<string>();
  const others: unknown[] = [];
  for (const item of list) {
    const key = scalarKey(item);
    if (key !== undefined) {
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(item);
      continue;
    }
    if (typeof item === 'number') {
      out.push(item); // NaN
      continue;
    }
    let found = false;
    for (const x of others) {
      chargeCost(1 + sizeOfShallow(item));
      if (celEquals(x, item)) {
        found = true;
        break;
      }
    }
    if (!found) {
      others.push(item);
      out.push(item);
    }
  }
  return out;
}

function sizeOfShallow(v: unknown): number {
  if (Array.isArray(v) || v instanceof Uint8Array) return v.length;
  if (v !== null && typeof v === 'object') return Object.keys(v).length;
  return 0;
}

const ORDERABLE = new Set([
  'int',
  'uint',
  'double',
  'bool',
  'string',
  'bytes',
  'google.protobuf.Timestamp',
  'google.protobuf.Duration',
]);

function range(n: bigint): bigint[] {
  if (n < 0n) throw celError(`lists.range: size must be non-negative, got ${n}`);
  if (n > 10_000_000n) throw celError(`lists.range: size ${n} exceeds maximum allowed (10000000)`);
  // Before allocating (the cost model has charged n already).
  checkListLength(Number(n));
  const out: bigint[] = [];
  for (let i = 0n; i < n; i++) out.push(i);
  return out;
}

export const listsLibrary: CelLibrary = {
  name: 'cel-go lists',
  install(env: Environment): void {
    env.registerFunction('list<A>.slice(int, int): list<A>', slice);
    env.registerFunction('list<dyn>.flatten(): list<dyn>', (l: unknown[]) => flatten(l, 1n));
    env.registerFunction('list<dyn>.flatten(int): list<dyn>', flatten);
    env.registerFunction('list<A>.sort(): list<A>', sortList);
    env.registerFunction('list<A>.distinct(): list<A>', distinct);
    env.registerFunction('list<A>.reverse(): list<A>', (l: unknown[]) => [...l].reverse());
    const ns = ensureNamespace(env, 'lists');
    env.registerFunction(`${ns}.range(int): list<int>`, (_ns: unknown, n: bigint) => range(n));
  },
};
