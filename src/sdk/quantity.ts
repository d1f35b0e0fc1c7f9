/**
 * Kubernetes resource quantities for the SDK's checks (checkContainerResources): the exact
 * implementation of the CEL library (src/cel/lib/quantity.ts, Kubernetes' own parsing rules, inf.Dec
 * precision), not a second one. These helpers only adapt it: a parse that says
 * `undefined` instead of throwing, a comparison, and the int64 range check.
 */
import { Quantity } from '../cel/lib/quantity.ts';

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
