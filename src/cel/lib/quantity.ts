import type { Environment } from '@marcbachmann/cel-js';
import { celError } from './errors.ts';
import type { CelLibrary } from './library.ts';

/**
 * Kubernetes resource.Quantity (k8s.io/apimachinery/pkg/api/resource/quantity.go, amount.go) and
 * its CEL library (k8s.io/apiserver/pkg/cel/library/quantity.go).
 *
 * We keep Kubernetes' internal representation, not just the value, because results depend on it:
 * a quantity is either an int64Amount (value × 10^scale, from the fast parse path) or an inf.Dec
 * (arbitrary precision, scale −9 after parsing). `isInteger`/`asInteger` use AsInt64(), which is
 * false for any inf.Dec and for a negative scale — so `quantity("1000m").isInteger()` and
 * `quantity("1.5Gi").isInteger()` are false, as in Kubernetes — and `asApproximateFloat` computes
 * float(unscaled) × Pow10(scale) the way Go does. Values are exact BigInts throughout.
 */

type Format = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

/** Decimal SI suffixes and the power of ten each stands for. */
export const DECIMAL_SUFFIX: Readonly<Record<string, number>> = {
  n: -9,
  u: -6,
  m: -3,
  '': 0,
  k: 3,
  M: 6,
  G: 9,
  T: 12,
  P: 15,
  E: 18,
};
/** Binary SI suffixes and the power of two each stands for. */
export const BINARY_SUFFIX: Readonly<Record<string, number>> = {
  Ki: 10,
  Mi: 20,
  Gi: 30,
  Ti: 40,
  Pi: 50,
  Ei: 60,
};
const MAX_INT64 = 9223372036854775807n;
const MIN_INT64 = -9223372036854775808n;
const FORMAT_ERROR =
  "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

const fitsInt64 = (n: bigint): boolean => n >= MIN_INT64 && n <= MAX_INT64;
const pow10 = (n: number): bigint => 10n ** BigInt(n);

// Go's math.Pow10 tables: the product/quotient is what Go computes, not the nearest double to 10^n.
const POW10_TAB = Array.from({ length: 32 }, (_, i) => Number(`1e${i}`));
const POW10_POS32 = Array.from({ length: 10 }, (_, i) => Number(`1e${32 * i}`));
const POW10_NEG32 = Array.from({ length: 11 }, (_, i) => Number(`1e-${32 * i}`));

function goPow10(n: number): number {
  if (n >= 0 && n <= 308) return (POW10_POS32[Math.floor(n / 32)] ?? 0) * (POW10_TAB[n % 32] ?? 0);
  if (n < 0 && n >= -323) return (POW10_NEG32[Math.floor(-n / 32)] ?? 0) / (POW10_TAB[-n % 32] ?? 1);
  return n > 0 ? Number.POSITIVE_INFINITY : 0;
}

export class Quantity {
  constructor(
    /** Unscaled value: the quantity is value × 10^scale. */
    readonly value: bigint,
    readonly scale: number,
    /** True when Kubernetes holds it as an inf.Dec rather than an int64Amount. */
    readonly dec: boolean,
    readonly format: Format,
  ) {}

  static parse(s: string): Quantity {
    if (s === '') throw celError(FORMAT_ERROR);
    if (s === '0') return new Quantity(0n, 0, false, 'DecimalSI');
    // The same language without the ambiguity between the digit groups, which made a failing match
    // backtrack quadratically (a long digit string with a bad suffix).
    if (!/^[+-]?[0-9]*(?:\.[0-9]*)?(?:[eEinumkKMGTP]+[-+]?[0-9]*|[-+][0-9]*)?$/.test(s))
      throw celError(FORMAT_ERROR);
    const m = /^([+-]?)([0-9]*)(?:\.([0-9]*))?([eEinumkKMGTP]*)([-+]?[0-9]*)$/.exec(s);
    if (!m) throw celError(FORMAT_ERROR);
    const negative = m[1] === '-';
    // parseQuantityString strips leading zeros (they do not count towards precision) and reads an
    // empty numerator as "0" — so "+", "." and ".5" are accepted, as in Kubernetes.
    const num = (m[2] ?? '').replace(/^0+/, '') || '0';
    const denom = m[3] ?? '';
    const suffix = (m[4] ?? '') + (m[5] ?? '');

    let base: 10 | 2;
    let exponent: number;
    let format: Format;
    if (suffix in DECIMAL_SUFFIX) {
      [base, exponent, format] = [10, DECIMAL_SUFFIX[suffix] ?? 0, 'DecimalSI'];
    } else if (suffix in BINARY_SUFFIX) {
      [base, exponent, format] = [2, BINARY_SUFFIX[suffix] ?? 0, 'BinarySI'];
    } else if (/^[eE][-+]?[0-9]+$/.test(suffix)) {
      [base, exponent, format] = [10, Number(suffix.slice(1)), 'DecimalExponent'];
    } else {
      throw celError("unable to parse quantity's suffix");
    }

    // Fast path: an int64Amount when the digits fit (ParseQuantity's precision rule).
    let precision: number;
    let scale = 0;
    let mantissa = 1n;
    if (base === 10) {
      scale = exponent;
      precision = 18 - (num.length + denom.length);
    } else if (denom === '') {
      mantissa = 1n << BigInt(exponent);
      precision = 15 - num.length - Math.trunc((exponent * 3) / 10) - 1;
    } else {
      precision = -1;
    }
    if (precision >= 0) {
      scale -= denom.length;
      if (scale >= -9) {
        const result = BigInt(num + denom) * mantissa;
        if (fitsInt64(result)) return new Quantity(negative ? -result : result, scale, false, format);
      }
    }

    // Slow path: inf.Dec, rounded up (away from zero) to nano scale, BinarySI capped at MaxInt64.
    let unscaled = BigInt(num + denom);
    let exp = -denom.length;
    if (base === 10) exp += exponent;
    else unscaled *= 1n << BigInt(exponent);
    if (unscaled !== 0n) {
      if (exp >= -9) unscaled *= pow10(exp + 9);
      else {
        const d = pow10(-9 - exp);
        unscaled = (unscaled + d - 1n) / d;
      }
      exp = -9;
    }
    if (format === 'BinarySI' && unscaled > MAX_INT64 * pow10(-exp)) {
      unscaled = MAX_INT64;
      exp = 0;
    }
    if (format === 'BinarySI' && unscaled > 0n && unscaled < pow10(-exp)) format = 'DecimalSI';
    return new Quantity(negative ? -unscaled : unscaled, exp, true, format);
  }

  /** resource.NewQuantity(n, DecimalExponent). */
  static fromInt(n: bigint): Quantity {
    return new Quantity(n, 0, false, 'DecimalExponent');
  }

  sign(): number {
    return this.value === 0n ? 0 : this.value < 0n ? -1 : 1;
  }

  private at(scale: number): bigint {
    return this.value * pow10(this.scale - scale);
  }

  compareTo(other: Quantity): number {
    const s = Math.min(this.scale, other.scale);
    const a = this.at(s);
    const b = other.at(s);
    return a === b ? 0 : a < b ? -1 : 1;
  }

  equals(other: unknown): boolean {
    return other instanceof Quantity && this.compareTo(other) === 0;
  }

  /** Quantity.Add / Sub: int64Amount arithmetic, falling back to inf.Dec on overflow. */
  add(other: Quantity, subtract = false): Quantity {
    const y = subtract ? new Quantity(-other.value, other.scale, other.dec, other.format) : other;
    const format = this.value === 0n ? other.format : this.format;
    if (!this.dec && !y.dec) {
      if (y.value === 0n) return new Quantity(this.value, this.scale, false, format);
      if (this.value === 0n) return new Quantity(y.value, y.scale, false, format);
      const s = Math.min(this.scale, y.scale);
      const a = this.at(s);
      const b = y.at(s);
      if (fitsInt64(a) && fitsInt64(b) && fitsInt64(a + b)) return new Quantity(a + b, s, false, format);
    }
    const s = Math.min(this.scale, y.scale);
    return new Quantity(this.at(s) + y.at(s), s, true, format);
  }

  /** AsInt64(): only an int64Amount with a non-negative scale converts. */
  asInt64(): bigint | undefined {
    if (this.dec || this.scale < 0) return undefined;
    const v = this.value * pow10(this.scale);
    return fitsInt64(v) ? v : undefined;
  }

  /** AsApproximateFloat64(): float(unscaled) × math.Pow10(scale). */
  asApproximateFloat(): number {
    const base = Number(this.value);
    return this.scale === 0 ? base : base * goPow10(this.scale);
  }

  /** Canonical string (Quantity.String / CanonicalizeBytes). */
  toString(): string {
    if (this.value === 0n) return '0';
    let mant = this.value;
    let exp = this.scale;
    while (mant % 10n === 0n) {
      mant /= 10n;
      exp++;
    }
    let format = this.format;
    if (format === 'BinarySI') {
      const within =
        this.compareTo(Quantity.fromInt(-1024n)) > 0 && this.compareTo(Quantity.fromInt(1024n)) < 0;
      if (within || exp < 0) format = 'DecimalSI';
    }
    if (format === 'BinarySI') {
      let n = mant * pow10(exp);
      let k = 0;
      while (k < 6 && n % 1024n === 0n) {
        n /= 1024n;
        k++;
      }
      return `${n}${['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'][k]}`;
    }
    const r = ((exp % 3) + 3) % 3;
    mant *= pow10(r);
    exp -= r;
    if (format === 'DecimalSI') {
      const suffix = Object.entries(DECIMAL_SUFFIX).find(([, v]) => v === exp);
      if (suffix) return `${mant}${suffix[0]}`;
    }
    return exp === 0 ? `${mant}` : `${mant}e${exp}`;
  }
}

function isQuantity(s: string): boolean {
  try {
    Quantity.parse(s);
    return true;
  } catch {
    return false;
  }
}

function asInteger(q: Quantity): bigint {
  const v = q.asInt64();
  if (v === undefined) throw celError('cannot convert value to integer');
  return v;
}

const Q = 'kubernetes.Quantity';

export const quantityLibrary: CelLibrary = {
  name: 'kubernetes quantity',
  install(env: Environment): void {
    env.registerType(Q, Quantity);
    env.registerFunction(`quantity(string): ${Q}`, (s: string) => Quantity.parse(s));
    env.registerFunction('isQuantity(string): bool', isQuantity);
    // Kubernetes declares `sign` as a global overload; the member form is what its docs show.
    env.registerFunction(`sign(${Q}): int`, (q: Quantity) => BigInt(q.sign()));
    env.registerFunction(`${Q}.sign(): int`, (q: Quantity) => BigInt(q.sign()));
    env.registerFunction(`${Q}.isInteger(): bool`, (q: Quantity) => q.asInt64() !== undefined);
    env.registerFunction(`${Q}.asInteger(): int`, asInteger);
    env.registerFunction(`${Q}.asApproximateFloat(): double`, (q: Quantity) => q.asApproximateFloat());
    env.registerFunction(`${Q}.add(${Q}): ${Q}`, (a: Quantity, b: Quantity) => a.add(b));
    env.registerFunction(`${Q}.add(int): ${Q}`, (a: Quantity, b: bigint) => a.add(Quantity.fromInt(b)));
    env.registerFunction(`${Q}.sub(${Q}): ${Q}`, (a: Quantity, b: Quantity) => a.add(b, true));
    env.registerFunction(`${Q}.sub(int): ${Q}`, (a: Quantity, b: bigint) => a.add(Quantity.fromInt(b), true));
    env.registerFunction(`${Q}.isLessThan(${Q}): bool`, (a: Quantity, b: Quantity) => a.compareTo(b) < 0);
    env.registerFunction(`${Q}.isGreaterThan(${Q}): bool`, (a: Quantity, b: Quantity) => a.compareTo(b) > 0);
    env.registerFunction(`${Q}.compareTo(${Q}): int`, (a: Quantity, b: Quantity) => BigInt(a.compareTo(b)));
    env.registerOperator(`${Q} == ${Q}`, (a: Quantity, b: Quantity) => a.equals(b));
  },
};
