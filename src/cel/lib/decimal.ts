/**
 * Exact decimal rendering of IEEE doubles, for Go-compatible number formatting. JavaScript's
 * toFixed rounds ties away from zero (0.125 → "0.13") where Go's fmt rounds the exact binary value
 * half to even ("0.12"), and toExponential has the same issue; so we expand the double exactly.
 */

/** |x| = digits × 10^exp exactly (x finite). */
function exact(x: number): { digits: bigint; exp: number } {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, Math.abs(x));
  const hi = view.getUint32(0);
  const lo = view.getUint32(4);
  const e = (hi >>> 20) & 0x7ff;
  let m = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  let e2: number;
  if (e === 0) e2 = -1074;
  else {
    m |= 1n << 52n;
    e2 = e - 1075;
  }
  if (e2 >= 0) return { digits: m << BigInt(e2), exp: 0 };
  return { digits: m * 5n ** BigInt(-e2), exp: e2 };
}

/** Divides by 10^k rounding half to even. */
function divRoundEven(n: bigint, k: number): bigint {
  if (k <= 0) return n * 10n ** BigInt(-k);
  const d = 10n ** BigInt(k);
  const q = n / d;
  const r = n % d;
  const twice = r * 2n;
  if (twice > d || (twice === d && q % 2n === 1n)) return q + 1n;
  return q;
}

function sign(x: number): string {
  return x < 0 || Object.is(x, -0) ? '-' : '';
}

/** Go fmt `%.{prec}f`. */
export function formatFixed(x: number, prec: number): string {
  const { digits, exp } = exact(x);
  const scaled = divRoundEven(digits, -(exp + prec));
  let s = scaled.toString();
  if (prec > 0) {
    s = s.padStart(prec + 1, '0');
    s = `${s.slice(0, -prec)}.${s.slice(-prec)}`;
  }
  return sign(x) + s;
}

/** Go fmt `%.{prec}e` (exponent with at least two digits). */
export function formatScientific(x: number, prec: number): string {
  let mant: string;
  let e10: number;
  if (x === 0) {
    mant = '0'.repeat(prec + 1);
    e10 = 0;
  } else {
    const { digits, exp } = exact(x);
    const len = digits.toString().length;
    let r = divRoundEven(digits, len - (prec + 1));
    e10 = len - 1 + exp;
    if (r.toString().length > prec + 1) {
      r /= 10n;
      e10 += 1;
    }
    mant = r.toString();
  }
  const body = prec > 0 ? `${mant[0]}.${mant.slice(1)}` : mant;
  const es = Math.abs(e10).toString().padStart(2, '0');
  return `${sign(x)}${body}e${e10 < 0 ? '-' : '+'}${es}`;
}

/** Go strconv.FormatFloat(x, 'f', -1, 64): shortest round-trip digits, never an exponent. */
export function formatShortestFixed(x: number): string {
  const s = Math.abs(x).toString();
  const m = /^(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(s);
  if (!m) return s;
  const intPart = m[1] ?? '';
  const frac = m[2] ?? '';
  const e = Number(m[3] ?? '0');
  let digits = intPart + frac;
  let point = intPart.length + e;
  if (point <= 0) {
    digits = '0'.repeat(1 - point) + digits;
    point = 1;
  } else if (point > digits.length) {
    digits = digits.padEnd(point, '0');
  }
  const whole = digits.slice(0, point).replace(/^0+(?=\d)/, '');
  const rest = digits.slice(point).replace(/0+$/, '');
  return sign(x) + (rest ? `${whole}.${rest}` : whole);
}
