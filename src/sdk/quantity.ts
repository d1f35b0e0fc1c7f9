/**
 * Kubernetes resource quantities as exact fractions (BigInt), for checkContainerResources:
 * `<sign?><digits>[.<digits>][suffix]` with binary (Ki…Ei), decimal (n, u, m, "", k, M, G, T, P, E)
 * or exponent (e/E<int>) suffixes.
 */
export interface Quantity {
  /** value = num / den, den > 0 */
  readonly num: bigint;
  readonly den: bigint;
}

const RE = /^([+-]?)(\d+(?:\.\d*)?|\.\d+)(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?\d+)?$/;
const BIN: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DEC: Record<string, number> = { n: -9, u: -6, m: -3, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };

export function parseQuantity(input: string | number): Quantity | undefined {
  const s = typeof input === 'number' ? String(input) : input.trim();
  const m = RE.exec(s);
  if (!m) return undefined;
  const [, sign, digits, suffix] = m as unknown as [string, string, string, string | undefined];
  const [intPart = '', frac = ''] = digits.split('.');
  let num = BigInt((intPart || '0') + frac);
  let den = 10n ** BigInt(frac.length);
  if (suffix !== undefined) {
    if (suffix in BIN) num *= 2n ** BigInt(BIN[suffix]!);
    else {
      const exp = suffix in DEC ? DEC[suffix]! : Number(suffix.slice(1));
      if (Math.abs(exp) > 1000) return undefined;
      if (exp >= 0) num *= 10n ** BigInt(exp);
      else den *= 10n ** BigInt(-exp);
    }
  }
  if (sign === '-') num = -num;
  return { num, den };
}

export function compareQuantity(a: Quantity, b: Quantity): number {
  const l = a.num * b.den;
  const r = b.num * a.den;
  return l < r ? -1 : l > r ? 1 : 0;
}

const INT64_MAX = 2n ** 63n - 1n;
/** Whether the value, rounded up to a whole base unit, fits in a signed 64-bit integer. */
export function fitsInt64(q: Quantity): boolean {
  const ceil = (q.num + q.den - 1n) / q.den;
  return ceil <= INT64_MAX && -ceil <= INT64_MAX + 1n;
}
