/**
 * A canonical text form of engine values, used for stable identities and change detection.
 * Map keys are sorted, so two equal values always give the same text; type tags keep `1` (int),
 * `1.0` (double) and `"1"` (string) apart.
 */
export function canonicalKey(value: unknown): string {
  return write(value);
}

function write(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  switch (typeof v) {
    case 'string':
      return JSON.stringify(v);
    case 'bigint':
      return `${v.toString()}i`;
    case 'number':
      return Number.isFinite(v) ? `${v}d` : `"${String(v)}"d`;
    case 'boolean':
      return v ? 'true' : 'false';
    default:
      break;
  }
  if (Array.isArray(v)) return `[${v.map(write).join(',')}]`;
  if (v instanceof Uint8Array) return `b"${Buffer.from(v).toString('base64')}"`;
  if (v instanceof Date) return `t"${v.toISOString()}"`;
  if (v instanceof Map) {
    const entries = [...v.entries()].map(([k, val]) => [write(k), write(val)] as const);
    entries.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    return `{${entries.map(([k, val]) => `${k}:${val}`).join(',')}}`;
  }
  if (typeof v === 'object') {
    const proto: unknown = Object.getPrototypeOf(v);
    if (proto !== Object.prototype && proto !== null && v.toString !== Object.prototype.toString) {
      // Library values (quantity, semver, ip, optional, …): their canonical text, tagged by type.
      return `${v.constructor?.name ?? 'object'}${JSON.stringify(String(v))}`;
    }
    const keys = Object.keys(v).sort();
    const rec = v as Record<string, unknown>;
    return `{${keys.map((k) => `${JSON.stringify(k)}:${write(rec[k])}`).join(',')}}`;
  }
  return JSON.stringify(String(v));
}
