/**
 * Structural equality of JSON values as the API server stores them: a bigint and a number holding the
 * same integer are equal (large integers decode as bigints). Pure.
 */

import { isRecord } from '../../diag/record.ts';

type Json = unknown;

export function scalarEqual(a: Json, b: Json): boolean {
  if (a === b) return true;
  if ((typeof a === 'bigint' || typeof a === 'number') && (typeof b === 'bigint' || typeof b === 'number')) {
    return String(a) === String(b);
  }
  return false;
}

export function jsonEqual(a: Json, b: Json): boolean {
  if (Array.isArray(a))
    return Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  if (isRecord(a)) {
    if (!isRecord(b)) return false;
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => k in b && jsonEqual(a[k], b[k]));
  }
  return scalarEqual(a, b);
}
