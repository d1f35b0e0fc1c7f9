import { type Environment, Optional } from './celJs.ts';
import { compareValues } from './macros/compare.ts';

/**
 * Operators the engine lacks: ordering of bytes (`b'a' < b'b'`) and heterogeneous numeric equality
 * (`1.0 == 1`, `2u == 2`), which CEL defines as numeric comparison. Registering `double == int`
 * makes the engine register the mirrored and `!=` forms too.
 */
interface UintLike {
  value: bigint;
}

/** Exact equality of two numbers of different CEL kinds (no rounding through double). */
export function numericEquals(a: bigint | number, b: bigint | number): boolean {
  if (typeof a === 'bigint' && typeof b === 'bigint') return a === b;
  const d = typeof a === 'number' ? a : (b as number);
  const i = typeof a === 'bigint' ? a : (b as bigint);
  if (typeof a === 'number' && typeof b === 'number') return a === b;
  return Number.isInteger(d) && BigInt(d) === i;
}

/** CEL equality of two runtime values (numbers across kinds, deep lists and maps, optionals). */
export function celEquals(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  const na = numberOf(a);
  const nb = numberOf(b);
  if (na !== undefined || nb !== undefined)
    return na !== undefined && nb !== undefined && numericEquals(na, nb);
  if (a instanceof Optional || b instanceof Optional) {
    if (!(a instanceof Optional && b instanceof Optional)) return false;
    if (a.hasValue() !== b.hasValue()) return false;
    return !a.hasValue() || celEquals(a.value(), b.value());
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    return (
      Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => celEquals(x, b[i]))
    );
  }
  if (a instanceof Uint8Array || a instanceof Date || b instanceof Uint8Array || b instanceof Date) {
    return compareValues(a, b) === 0;
  }
  const ea = entries(a);
  const eb = entries(b);
  if (ea && eb) {
    if (ea.size !== eb.size) return false;
    for (const [k, v] of ea) if (!eb.has(k) || !celEquals(v, eb.get(k))) return false;
    return true;
  }
  return compareValues(a, b) === 0;
}

function numberOf(v: unknown): bigint | number | undefined {
  if (typeof v === 'bigint' || typeof v === 'number') return v;
  if (typeof v === 'object' && v !== null && v.constructor?.name === 'UnsignedInt')
    return (v as UintLike).value;
  return undefined;
}

function entries(v: unknown): Map<unknown, unknown> | undefined {
  if (v instanceof Map) return v;
  if (typeof v !== 'object' || v === null) return undefined;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null ? new Map(Object.entries(v)) : undefined;
}

export function installOperators(engine: Environment): void {
  const bytesCmp = (a: Uint8Array, b: Uint8Array): number => compareValues(a, b) ?? 0;
  engine.registerOperator('bytes < bytes', (a: Uint8Array, b: Uint8Array) => bytesCmp(a, b) < 0);
  engine.registerOperator('bytes <= bytes', (a: Uint8Array, b: Uint8Array) => bytesCmp(a, b) <= 0);
  engine.registerOperator('bytes > bytes', (a: Uint8Array, b: Uint8Array) => bytesCmp(a, b) > 0);
  engine.registerOperator('bytes >= bytes', (a: Uint8Array, b: Uint8Array) => bytesCmp(a, b) >= 0);
  engine.registerOperator('double == int', (a: number, b: bigint) => numericEquals(a, b));
  engine.registerOperator('uint == int', (a: UintLike, b: bigint) => a.value === b);
  engine.registerOperator('double == uint', (a: number, b: UintLike) => numericEquals(a, b.value));
  engine.registerOperator('optional<dyn> == optional<dyn>', (a: unknown, b: unknown) => celEquals(a, b));
  // cel-go types timestamps and durations as the well-known protobuf messages, which are nullable:
  // `t != null` type-checks (and is true for any value). kro relies on it; strings, ints and lists
  // stay non-nullable, as in cel-go.
  engine.registerOperator('google.protobuf.Timestamp == null', () => false);
  engine.registerOperator('google.protobuf.Duration == null', () => false);
}
