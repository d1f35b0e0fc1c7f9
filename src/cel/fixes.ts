import { Duration } from '@marcbachmann/cel-js/evaluator';
import { engineError, overrideFunction, overrideMacro, overrideOperator } from './engineOverrides.ts';
import { durationNanos } from './macros/compare.ts';
import { installNullableTernary, legacyNullable, type TypeLike } from './nullableTernary.ts';
import { celEquals } from './operators.ts';
import { installTimezoneAccessors } from './timezones.ts';

/**
 * Fixes of built-in behaviour where the engine deviates from cel-go (design/platform.md §3.6), applied by
 * replacing the built-in handlers (./engineOverrides.ts): integer overflow on negation and division,
 * timestamp/duration range errors, `duration + timestamp` typed as a timestamp, lossy int/double
 * ordering like cel-go, numeric equality inside lists, maps and `in`, `int(double)` range,
 * `string(bytes)` UTF-8 validation, and time-zone offsets in timestamp accessors.
 */
const MIN_INT = -(2n ** 63n);
const TS = 'google.protobuf.Timestamp';
const DUR = 'google.protobuf.Duration';
/** Timestamp range of CEL: 0001-01-01T00:00:00Z … 9999-12-31T23:59:59.999Z (milliseconds). */
const MIN_TS_MS = -62135596800000;
const MAX_TS_MS = 253402300799999;
/** Duration range of google.protobuf.Duration: ±10000 years. */
const MAX_DURATION_SECONDS = 315576000000n;
/** Timestamp differences are Go time.Duration values (int64 nanoseconds) in cel-go. */
const MAX_GO_DURATION_NANOS = 2n ** 63n - 1n;

type Binary = (a: never, b: never, ...rest: never[]) => unknown;

function checkTimestamp(d: unknown): unknown {
  if (
    d instanceof Date &&
    (d.getTime() < MIN_TS_MS || d.getTime() > MAX_TS_MS || Number.isNaN(d.getTime()))
  ) {
    throw engineError('numeric_overflow', 'timestamp overflow: result out of range');
  }
  return d;
}

const DURATION_UNITS = ['ns', 'us', 'µs', 'ms', 's', 'm', 'h'];
const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';

/**
 * The language the engine's duration parser accepts, scanned linearly: an optional '-', then one or
 * more `digits[.digits] unit` parts (the number may be empty, as the engine's pattern allows).
 */
export function durationSyntaxOk(s: string): boolean {
  // Left to the engine's own handling (and its messages): the empty string and a bare zero.
  if (s === '' || /^[-+]?0$/.test(s)) return true;
  let i = s[0] === '-' || s[0] === '+' ? 1 : 0;
  if (i >= s.length) return false;
  while (i < s.length) {
    while (isDigit(s[i])) i++;
    if (s[i] === '.') i++;
    while (isDigit(s[i])) i++;
    const unit = DURATION_UNITS.find((u) => s.startsWith(u, i));
    if (unit === undefined) return false;
    i += unit.length;
  }
  return true;
}

function checkDuration(d: unknown): unknown {
  const nanos = durationNanos(d);
  if (nanos !== undefined) {
    const seconds = nanos / 1_000_000_000n;
    if (seconds > MAX_DURATION_SECONDS || seconds < -MAX_DURATION_SECONDS) {
      throw engineError('numeric_overflow', 'duration overflow: result out of range');
    }
  }
  return d;
}

function installArithmeticFixes(): void {
  overrideOperator(
    '-_int: int',
    (original) =>
      ((a: bigint) => {
        if (a === MIN_INT) throw engineError('numeric_overflow', 'integer overflow: negation of -2^63');
        return (original as (a: bigint) => unknown)(a);
      }) as never,
  );
  overrideOperator(
    'int / int: int',
    (original) =>
      ((a: bigint, b: bigint, ...rest: never[]) => {
        if (a === MIN_INT && b === -1n) throw engineError('numeric_overflow', 'integer overflow: -2^63 / -1');
        return (original as Binary)(a as never, b as never, ...rest);
      }) as never,
  );
  overrideOperator(
    'int % int: int',
    (original) =>
      ((a: bigint, b: bigint, ...rest: never[]) => {
        if (a === MIN_INT && b === -1n) throw engineError('numeric_overflow', 'integer overflow: -2^63 % -1');
        return (original as Binary)(a as never, b as never, ...rest);
      }) as never,
  );
}

function installTimeFixes(): void {
  const wrapTs = (sig: string, returnType?: string) =>
    overrideOperator(
      sig,
      (original) => ((a: never, b: never) => checkTimestamp((original as Binary)(a, b))) as never,
      returnType,
    );
  wrapTs(`${TS} + ${DUR}: ${TS}`);
  wrapTs(`${TS} - ${DUR}: ${TS}`);
  wrapTs(`${DUR} + ${TS}: ${DUR}`, TS);
  for (const op of ['+', '-']) {
    overrideOperator(
      `${DUR} ${op} ${DUR}: ${DUR}`,
      (original) => ((a: never, b: never) => checkDuration((original as Binary)(a, b))) as never,
    );
  }
  overrideOperator(
    `${TS} - ${TS}: ${DUR}`,
    () =>
      ((a: Date, b: Date) => {
        const nanos = BigInt(a.getTime() - b.getTime()) * 1_000_000n;
        if (nanos > MAX_GO_DURATION_NANOS || nanos < -MAX_GO_DURATION_NANOS) {
          throw engineError('numeric_overflow', 'duration overflow: timestamp difference out of range');
        }
        return new Duration(nanos / 1_000_000_000n, Number(nanos % 1_000_000_000n));
      }) as never,
  );
  // cel-go: the millisecond component of the duration, not the total.
  overrideFunction(
    `${DUR}.getMilliseconds(): int`,
    () => ((d: unknown) => ((durationNanos(d) ?? 0n) % 1_000_000_000n) / 1_000_000n) as never,
  );
  overrideFunction(
    `duration(string): ${DUR}`,
    // Go's time.ParseDuration accepts a bare zero ("0", "+0", "-0") without a unit; cel-go and kro do too.
    // The engine's parser scans with an unanchored regex that backtracks cubically on a long string
    // without a unit (seconds for 10 kB): reject what it would reject, in linear time, first.
    (original) =>
      ((s: string) => {
        if (!durationSyntaxOk(s)) {
          throw engineError(
            'invalid_duration',
            `Invalid duration string: ${s.length > 64 ? `${s.slice(0, 64)}…` : s}`,
          );
        }
        return checkDuration((original as (s: string) => unknown)(/^[-+]?0$/.test(s) ? '0s' : s));
      }) as never,
  );
}

function installComparisonFixes(): void {
  // cel-go compares int with double by converting the int to double (lossy near 2^63).
  const ops: Record<string, (x: number, y: number) => boolean> = {
    '<': (x, y) => x < y,
    '<=': (x, y) => x <= y,
    '>': (x, y) => x > y,
    '>=': (x, y) => x >= y,
  };
  for (const [op, cmp] of Object.entries(ops)) {
    overrideOperator(`int ${op} double: bool`, () => ((a: bigint, b: number) => cmp(Number(a), b)) as never);
    overrideOperator(`double ${op} int: bool`, () => ((a: number, b: bigint) => cmp(a, Number(b))) as never);
  }
  overrideOperator(
    'list<V> == list<V>: bool',
    (original) =>
      ((a: unknown, b: unknown, ...rest: never[]) =>
        Array.isArray(a) && Array.isArray(b)
          ? celEquals(a, b)
          : (original as Binary)(a as never, b as never, ...rest)) as never,
  );
  overrideOperator(
    'map<K, V> == map<K, V>: bool',
    () => ((a: unknown, b: unknown) => celEquals(a, b)) as never,
  );
  overrideOperator(
    'V in list<V>: bool',
    () =>
      ((value: unknown, list: Iterable<unknown>) => {
        for (const item of list) if (celEquals(value, item)) return true;
        return false;
      }) as never,
  );
}

function installConversionFixes(): void {
  overrideFunction(
    'int(double): int',
    () =>
      ((v: number) => {
        // ±2^63 are not representable as int64; cel-go rejects both bounds.
        if (!Number.isFinite(v) || v <= -(2 ** 63) || v >= 2 ** 63) {
          throw engineError('numeric_overflow', 'int() type error: integer overflow');
        }
        return BigInt(Math.trunc(v));
      }) as never,
  );
  const utf8 = new TextDecoder('utf-8', { fatal: true });
  overrideFunction(
    'string(bytes): string',
    () =>
      ((b: Uint8Array) => {
        try {
          return utf8.decode(b);
        } catch {
          throw engineError('invalid_conversion', 'string() type error: bytes are not valid UTF-8');
        }
      }) as never,
  );
}

function installOptionalFixes(): void {
  // optional.none() is declared optional<T> with T unbound, which breaks selection and indexing on it.
  overrideFunction('OptionalNamespace.none(): optional<T>', (original) => original, 'optional<dyn>');
  overrideMacro('optional<dyn>.orValue(ast): dyn', (original) => (opts) => {
    const expansion = original(opts);
    const typeCheck = expansion.typeCheck as OrValueTypeCheck | undefined;
    if (typeCheck === undefined) return expansion;
    return { ...expansion, typeCheck: orValueAcceptingNull(typeCheck) };
  });
}

interface OrValueMacro {
  readonly receiver: unknown;
  readonly arg: unknown;
}
interface OrValueChecker {
  readonly dynType: TypeLike;
  check(ast: unknown, ctx: unknown): TypeLike;
}
type OrValueTypeCheck = (check: OrValueChecker, macro: OrValueMacro, ctx: unknown) => TypeLike;

/**
 * `opt.orValue(null)` on an optional timestamp, duration or object: the engine refuses to unify `null`
 * with the value type, cel-go accepts it. Typed `dyn` here (cel-go: `T`): the engine picks `==` by static
 * type, and its timestamp equality would call a null operand unequal to `null`.
 */
function orValueAcceptingNull(typeCheck: OrValueTypeCheck): OrValueTypeCheck {
  return (check, macro, ctx) => {
    try {
      return typeCheck(check, macro, ctx);
    } catch (err) {
      const receiver = check.check(macro.receiver, ctx);
      const value = receiver.kind === 'optional' ? receiver.valueType : undefined;
      const arg = check.check(macro.arg, ctx);
      if (value !== undefined && arg.name === 'null' && legacyNullable(value)) return check.dynType;
      throw err;
    }
  };
}

export function installEngineFixes(): void {
  installOptionalFixes();
  installNullableTernary();
  installArithmeticFixes();
  installTimeFixes();
  installComparisonFixes();
  installConversionFixes();
  installTimezoneAccessors();
}
