/**
 * Ordering of CEL values for sortBy keys: numbers (int, uint, double, compared across kinds),
 * strings (by code point, as Go compares UTF-8 bytes), bools, bytes, timestamps and durations.
 * Returns undefined when the two values are not comparable.
 */
export function compareValues(a: unknown, b: unknown): number | undefined {
  const na = numeric(a);
  const nb = numeric(b);
  if (na !== undefined && nb !== undefined) return compareNumeric(na, nb);
  if (typeof a === 'string' && typeof b === 'string') return compareCodePoints(a, b);
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  if (a instanceof Date && b instanceof Date) return Math.sign(a.getTime() - b.getTime());
  if (a instanceof Uint8Array && b instanceof Uint8Array) return compareBytes(a, b);
  const da = durationNanos(a);
  const db = durationNanos(b);
  if (da !== undefined && db !== undefined) return da < db ? -1 : da > db ? 1 : 0;
  return undefined;
}

function numeric(v: unknown): bigint | number | undefined {
  if (typeof v === 'bigint' || typeof v === 'number') return v;
  if (typeof v === 'object' && v !== null && v.constructor?.name === 'UnsignedInt') {
    const inner = (v as { value?: unknown }).value;
    if (typeof inner === 'bigint') return inner;
  }
  return undefined;
}

function compareNumeric(a: bigint | number, b: bigint | number): number {
  if (typeof a === 'bigint' && typeof b === 'bigint') return a < b ? -1 : a > b ? 1 : 0;
  const x = Number(a);
  const y = Number(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

export function compareCodePoints(a: string, b: string): number {
  const ia = a[Symbol.iterator]();
  const ib = b[Symbol.iterator]();
  for (;;) {
    const x = ia.next();
    const y = ib.next();
    if (x.done || y.done) return x.done && y.done ? 0 : x.done ? -1 : 1;
    const cx = x.value.codePointAt(0) ?? 0;
    const cy = y.value.codePointAt(0) ?? 0;
    if (cx !== cy) return cx < cy ? -1 : 1;
  }
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return (a[i] ?? 0) - (b[i] ?? 0);
  return a.length - b.length;
}

/** Total nanoseconds of an engine Duration (seconds: bigint, nanos: number). */
export function durationNanos(v: unknown): bigint | undefined {
  if (typeof v !== 'object' || v === null || v.constructor?.name !== 'Duration') return undefined;
  const { seconds, nanos } = v as { seconds?: unknown; nanos?: unknown };
  if (typeof seconds !== 'bigint' || typeof nanos !== 'number') return undefined;
  return seconds * 1_000_000_000n + BigInt(nanos);
}
