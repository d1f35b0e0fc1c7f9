/**
 * What the API server stores for what we apply: the "nothing changed" check
 * compares a desired object with an observed one, and the server rewrites some values on the way in.
 * Known rewrites, undone here so that an unchanged desired object compares equal:
 *
 * - resource quantities are stored in canonical form (`1000m` → `1`, `0.5` → `500m`,
 *   `1024Mi` → `1Gi`, a number `2` → `"2"`): equal when both sides are the same quantity;
 * - a Secret's `stringData` is write-only: the server merges it into `data` (base64) and drops it,
 *   while our manager still owns `f:stringData`; the observed object is given back a `stringData`
 *   for every desired key whose `data` decodes to the desired text;
 * - keys of associative lists include defaulted fields (`k:{"port":80,"protocol":"TCP"}` for a
 *   port applied without a protocol): ownership.ts matches a desired item whose missing key fields
 *   the server filled in;
 * - empty maps and lists are dropped (`data: {}` stores no `data`).
 *
 * A value equal only after one of these rewrites is safe to treat as unchanged because our manager
 * owns the field: any other writer changing it would have taken the field away from us. What is not
 * known here is decided by one server-side dry-run apply (applyMemory.ts). Pure.
 */
import { Quantity } from '../../cel/lib/quantity.ts';
import { isRecord } from '../../diag/record.ts';

function quantityOf(v: unknown): Quantity | undefined {
  let s: string;
  if (typeof v === 'string') s = v;
  else if (typeof v === 'bigint' || (typeof v === 'number' && Number.isFinite(v))) s = String(v);
  else return undefined;
  if (s === '' || s.length > 64) return undefined;
  try {
    return Quantity.parse(s);
  } catch {
    return undefined;
  }
}

/**
 * Desired scalar `d` and observed scalar `o` hold the same stored value: equal, the same number
 * (BigInt or not), or the same resource quantity in two spellings (one side at least a string).
 */
export function storedScalarEqual(d: unknown, o: unknown): boolean {
  if (d === o) return true;
  const dn = typeof d === 'bigint' || typeof d === 'number';
  const on = typeof o === 'bigint' || typeof o === 'number';
  if (dn && on) return String(d) === String(o);
  if (typeof o !== 'string' || !(dn || typeof d === 'string')) return false;
  const qd = quantityOf(d);
  const qo = quantityOf(o);
  return qd !== undefined && qo !== undefined && qd.compareTo(qo) === 0;
}

/** An empty map or list, which the server does not store. */
export function isEmptyContainer(v: unknown): boolean {
  return (Array.isArray(v) && v.length === 0) || (isRecord(v) && Object.keys(v).length === 0);
}

function decodeBase64(s: unknown): string | undefined {
  if (typeof s !== 'string') return undefined;
  const buf = Buffer.from(s, 'base64');
  return buf.toString('base64') === s ? buf.toString('utf8') : undefined;
}

/**
 * The observed object as the apply of `desired` sees it: write-only fields the server folded
 * elsewhere are restored when what they became is what desired asks for (Secret `stringData`).
 */
export function observedAsApplied(
  desired: Record<string, unknown>,
  observed: Record<string, unknown>,
): Record<string, unknown> {
  if (desired.apiVersion !== 'v1' || desired.kind !== 'Secret' || !isRecord(desired.stringData))
    return observed;
  if (observed.stringData !== undefined) return observed;
  const data = isRecord(observed.data) ? observed.data : {};
  const restored: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(desired.stringData)) {
    const text = decodeBase64(data[k]);
    if (text !== undefined && text === v) restored[k] = v;
  }
  return { ...observed, stringData: restored };
}
