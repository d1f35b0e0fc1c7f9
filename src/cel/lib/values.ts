import { Optional } from '@marcbachmann/cel-js';
import { Duration, UnsignedInt } from '@marcbachmann/cel-js/evaluator';
import { celError } from './errors.ts';

/** A CEL map as the engine represents it: a plain object (string keys) or, from callers, a Map. */
export type CelMap = Record<string, unknown> | Map<unknown, unknown>;

export function isCelMap(value: unknown): value is CelMap {
  if (value instanceof Map) return true;
  if (value === null || typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

export function mapEntries(map: CelMap): [unknown, unknown][] {
  return map instanceof Map ? [...map.entries()] : Object.entries(map);
}

/** The CEL type name of a runtime value, for error messages. */
export function celTypeName(value: unknown): string {
  if (value === null || value === undefined) return 'null_type';
  switch (typeof value) {
    case 'bigint':
      return 'int';
    case 'number':
      return 'double';
    case 'string':
      return 'string';
    case 'boolean':
      return 'bool';
  }
  if (value instanceof UnsignedInt) return 'uint';
  if (value instanceof Uint8Array) return 'bytes';
  if (Array.isArray(value)) return 'list';
  if (value instanceof Date) return 'google.protobuf.Timestamp';
  if (value instanceof Duration) return 'google.protobuf.Duration';
  if (value instanceof Optional) return 'optional_type';
  if (isCelMap(value)) return 'map';
  const ctor = (value as { constructor?: { name?: string } }).constructor;
  return ctor?.name ?? 'unknown';
}

/**
 * Compares two strings by Unicode code point, as Go compares UTF-8 strings byte-wise. JavaScript's
 * `<` compares UTF-16 code units, which orders astral characters before U+E000–U+FFFF.
 */
export function compareStrings(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 && y >= 0xd800) {
      x = x < 0xe000 ? x + 0x2000 : x - 0x800;
      y = y < 0xe000 ? y + 0x2000 : y - 0x800;
    }
    return x < y ? -1 : 1;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    if (a[i] !== b[i]) return (a[i] ?? 0) < (b[i] ?? 0) ? -1 : 1;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

type Numeric = { kind: 'int'; v: bigint } | { kind: 'double'; v: number };

function asNumeric(value: unknown): Numeric | undefined {
  if (typeof value === 'bigint') return { kind: 'int', v: value };
  if (value instanceof UnsignedInt) return { kind: 'int', v: value.value };
  if (typeof value === 'number') return { kind: 'double', v: value };
  return undefined;
}

function compareNumeric(a: Numeric, b: Numeric): number | undefined {
  if (a.kind === 'int' && b.kind === 'int') return a.v === b.v ? 0 : a.v < b.v ? -1 : 1;
  const x = a.kind === 'double' ? a.v : undefined;
  const y = b.kind === 'double' ? b.v : undefined;
  if (x !== undefined && y !== undefined) {
    if (Number.isNaN(x) || Number.isNaN(y)) return undefined;
    return x === y ? 0 : x < y ? -1 : 1;
  }
  // int vs double: compare exactly (cel-go compares across numeric types by value).
  const d = (x ?? y) as number;
  const i = (a.kind === 'int' ? a.v : (b as { v: bigint }).v) as bigint;
  if (Number.isNaN(d)) return undefined;
  let r: number;
  if (d === Number.POSITIVE_INFINITY) r = -1;
  else if (d === Number.NEGATIVE_INFINITY) r = 1;
  else {
    const fl = Math.floor(d);
    const bi = BigInt(fl);
    r = i < bi ? -1 : i > bi ? 1 : d > fl ? -1 : 0;
  }
  return a.kind === 'int' ? r : -r;
}

function durationNanos(d: Duration): bigint {
  return BigInt(d.seconds) * 1_000_000_000n + BigInt(d.nanos);
}

/**
 * CEL ordering of two values of an orderable type (numbers across int/uint/double, string, bytes,
 * bool, timestamp, duration). Throws "no such overload" for anything else, as cel-go does.
 */
export function celCompare(a: unknown, b: unknown): number {
  const na = asNumeric(a);
  const nb = asNumeric(b);
  if (na && nb) {
    const r = compareNumeric(na, nb);
    if (r !== undefined) return r;
    throw celError('NaN values cannot be ordered');
  }
  if (typeof a === 'string' && typeof b === 'string') return compareStrings(a, b);
  if (typeof a === 'boolean' && typeof b === 'boolean') return a === b ? 0 : a ? 1 : -1;
  if (a instanceof Uint8Array && b instanceof Uint8Array) return compareBytes(a, b);
  if (a instanceof Date && b instanceof Date) return Math.sign(a.getTime() - b.getTime());
  if (a instanceof Duration && b instanceof Duration) {
    const x = durationNanos(a);
    const y = durationNanos(b);
    return x === y ? 0 : x < y ? -1 : 1;
  }
  const comparable = a as { compareTo?: (o: unknown) => number };
  if (typeof comparable?.compareTo === 'function' && b?.constructor === a?.constructor)
    return comparable.compareTo(b);
  throw celError(`no such overload: ${celTypeName(a)} < ${celTypeName(b)}`);
}

/** CEL equality (heterogeneous numeric equality, deep lists and maps), as cel-go implements `==`. */
export function celEquals(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  const na = asNumeric(a);
  const nb = asNumeric(b);
  if (na && nb) return compareNumeric(na, nb) === 0;
  if (a === null || b === null || a === undefined || b === undefined) return false;
  if (typeof a !== 'object' || typeof b !== 'object') return false;
  if (a instanceof Uint8Array && b instanceof Uint8Array) return compareBytes(a, b) === 0;
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  if (a instanceof Duration && b instanceof Duration) return durationNanos(a) === durationNanos(b);
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((x, i) => celEquals(x, b[i]));
  }
  if (isCelMap(a) && isCelMap(b)) {
    const ea = mapEntries(a);
    const mb = new Map(mapEntries(b).map(([k, v]) => [String(k), v]));
    if (ea.length !== mb.size) return false;
    return ea.every(([k, v]) => mb.has(String(k)) && celEquals(v, mb.get(String(k))));
  }
  const eq = a as { equals?: (o: unknown) => boolean };
  if (typeof eq.equals === 'function' && a.constructor === b.constructor) return eq.equals(b);
  return false;
}
