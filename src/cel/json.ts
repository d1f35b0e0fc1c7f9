import { Duration, UnsignedInt } from '@marcbachmann/cel-js/evaluator';
import { Optional } from './celJs.ts';
import { formatDuration, formatTimestamp } from './conversions.ts';
import { durationNanos } from './macros/compare.ts';

/** A JSON value; integers beyond 2^53 are kept as their decimal strings. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * Renders a CEL result as JSON (the `kgraph cel -o json` rules): ints as numbers, as strings beyond
 * 2^53; bytes as base64; timestamps as RFC 3339; durations like "1.5s"; `optional.none()` as null,
 * a present optional as its value; non-finite doubles as "NaN"/"Infinity"/"-Infinity"; values of
 * library types (quantity, url, ip, …) by their string form.
 */
export function toJson(value: unknown): JsonValue {
  if (value === null || value === undefined) return null;
  switch (typeof value) {
    case 'boolean':
    case 'string':
      return value;
    case 'number':
      return Number.isFinite(value) ? value : String(value);
    case 'bigint':
      return value <= MAX_SAFE && value >= -MAX_SAFE ? Number(value) : value.toString();
    default:
      break;
  }
  if (value instanceof UnsignedInt) return toJson(value.value);
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (value instanceof Date) return formatTimestamp(value);
  if (value instanceof Duration) return formatDuration(durationNanos(value) ?? 0n);
  if (value instanceof Optional) return value.hasValue() ? toJson(value.value()) : null;
  if (Array.isArray(value) || value instanceof Set) return [...value].map(toJson);
  if (value instanceof Map) {
    const out: { [key: string]: JsonValue } = {};
    for (const [k, v] of value) out[keyString(k)] = toJson(v);
    return out;
  }
  if (typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    return toJson((value as { toJSON(): unknown }).toJSON()); // structured library values (kro.run.Condition)
  }
  if (typeof value === 'object') {
    const proto = Object.getPrototypeOf(value);
    if (proto === Object.prototype || proto === null) {
      const out: { [key: string]: JsonValue } = {};
      for (const [k, v] of Object.entries(value)) out[k] = toJson(v);
      return out;
    }
  }
  return String(value);
}

function keyString(key: unknown): string {
  const j = toJson(key);
  return typeof j === 'string' ? j : JSON.stringify(j);
}
