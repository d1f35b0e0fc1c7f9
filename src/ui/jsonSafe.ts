/**
 * Engine values may hold BigInt (exact integers); the page gets JSON. Integers that fit a double
 * become numbers, larger ones decimal strings, so nothing is lost silently and JSON.stringify works.
 */
export function jsonSafe(v: unknown): unknown {
  if (typeof v === 'bigint') {
    return v <= BigInt(Number.MAX_SAFE_INTEGER) && v >= BigInt(Number.MIN_SAFE_INTEGER)
      ? Number(v)
      : String(v);
  }
  if (Array.isArray(v)) return v.map(jsonSafe);
  if (typeof v === 'object' && v !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = jsonSafe(x);
    return out;
  }
  return v;
}
