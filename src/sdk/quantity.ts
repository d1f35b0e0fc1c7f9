/**
 * Kubernetes resource quantities for the SDK's checks (checkContainerResources): the exact
 * implementation of the CEL library (src/cel/lib/quantity.ts, Kubernetes' own parsing rules, inf.Dec
 * precision), not a second one. These helpers only adapt it: a parse that says
 * `undefined` instead of throwing, a comparison, and the int64 range check.
 */
import { BINARY_SUFFIX, DECIMAL_SUFFIX, Quantity } from '../cel/lib/quantity.ts';

export { Quantity };

/** The quantity, or undefined when `input` is not one (`1.5Gi`, `250m`, `2e3`; a number as its decimal text). */
export function parseQuantity(input: string | number): Quantity | undefined {
  const s = typeof input === 'number' ? String(input) : input.trim();
  try {
    return Quantity.parse(s);
  } catch {
    return undefined;
  }
}

export function compareQuantity(a: Quantity, b: Quantity): number {
  return a.compareTo(b);
}

const INT64_MAX = 2n ** 63n - 1n;

/** Whether the value, rounded up to a whole base unit, fits in a signed 64-bit integer. */
export function fitsInt64(q: Quantity): boolean {
  let whole: bigint;
  if (q.scale >= 0) whole = q.value * 10n ** BigInt(q.scale);
  else {
    const d = 10n ** BigInt(-q.scale);
    // Rounded up (towards +infinity), as the API server does.
    whole = q.value >= 0n ? (q.value + d - 1n) / d : q.value / d;
  }
  return whole <= INT64_MAX && -whole <= INT64_MAX + 1n;
}

/**
 * Whether the quantity as written, rounded up to a whole base unit, fits in a signed 64-bit integer.
 * Parsing caps a binary-suffixed quantity at 2^63-1 (`8Ei` and `100000000000Ei` read as the maximum,
 * as in Kubernetes), so the check reads the text: a quantity must fit whatever its suffix.
 */
export function writtenFitsInt64(input: string | number): boolean {
  const text = typeof input === 'number' ? String(input) : input.trim();
  const q = parseQuantity(text);
  if (!q) return false;
  const m = /^([+-]?)([0-9]*)(?:\.([0-9]*))?(.*)$/.exec(text);
  if (!m) return fitsInt64(q);
  const digits = BigInt(`${m[2] ?? ''}${m[3] ?? ''}` || '0');
  if (digits === 0n) return true;
  const suffix = m[4] ?? '';
  let exponent = -(m[3] ?? '').length;
  let factor = 1n;
  if (suffix in BINARY_SUFFIX) factor = 1n << BigInt(BINARY_SUFFIX[suffix] ?? 0);
  else if (suffix in DECIMAL_SUFFIX) exponent += DECIMAL_SUFFIX[suffix] ?? 0;
  else exponent += Number(suffix.slice(1));
  // Anything scaled up by more than 10^40 is far outside the range; no need to build the number.
  if (exponent > 40) return false;
  let whole = digits * factor;
  if (exponent >= 0) whole *= 10n ** BigInt(exponent);
  else {
    const d = 10n ** BigInt(-exponent);
    whole = (whole + d - 1n) / d;
  }
  return m[1] === '-' ? whole <= INT64_MAX + 1n : whole <= INT64_MAX;
}
