import type { Environment } from '@marcbachmann/cel-js';
import { chargeCost } from '../limits.ts';
import type { CelLibrary } from './library.ts';
import { type CelMap, isCelMap, mapEntries } from './values.ts';

/**
 * kro's maps library. `merge` follows kro pkg/cel/library/maps.go (current version): a new map
 * with every entry of both maps, the argument's value winning on a shared key (the older kro
 * version where the receiver won is superseded). `deepMerge` is specified by
 * design/graph.md §16.4 (no kro source was available to compare): maps merge recursively, lists and scalars from
 * the argument replace the receiver's.
 */

function toRecord(map: CelMap): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of mapEntries(map)) out[String(k)] = v;
  return out;
}

export function mergeMaps(left: CelMap, right: CelMap): Record<string, unknown> {
  const out = toRecord(left);
  for (const [k, v] of mapEntries(right)) out[String(k)] = v;
  return out;
}

export function deepMergeMaps(left: CelMap, right: CelMap): Record<string, unknown> {
  const out = toRecord(left);
  // Nested levels are charged as they are merged (the cost model charged the top level).
  chargeCost(Object.keys(out).length);
  for (const [key, value] of mapEntries(right)) {
    const k = String(key);
    const existing = Object.hasOwn(out, k) ? out[k] : undefined;
    out[k] = isCelMap(existing) && isCelMap(value) ? deepMergeMaps(existing, value) : value;
  }
  return out;
}

export const kroMapsLibrary: CelLibrary = {
  name: 'kro maps',
  install(env: Environment): void {
    // The signature-string form cannot name a map receiver (no comma allowed there). `merge` keeps
    // kro's map(K, V) typing, plus a map(K, dyn) overload: the engine dispatches on the runtime
    // types of dyn values, where cel-go (no runtime type guard) would accept maps whose value types
    // differ. deepMerge takes dyn values since nested maps rarely share one value type.
    const overloads: [string, (a: CelMap, b: CelMap) => Record<string, unknown>, string][] = [
      ['merge', mergeMaps, 'map<K, V>'],
      ['merge', mergeMaps, 'map<K, dyn>'],
      ['deepMerge', deepMergeMaps, 'map<K, dyn>'],
    ];
    for (const [name, handler, type] of overloads) {
      env.registerFunction({
        name,
        receiverType: type,
        returnType: type,
        params: [{ name: 'other', type }],
        handler,
      });
    }
  },
};
