import type { Environment } from '@marcbachmann/cel-js';
import { Duration, UnsignedInt } from '@marcbachmann/cel-js/evaluator';
import { formatFixed, formatScientific, formatShortestFixed } from './decimal.ts';
import { celError } from './errors.ts';
import type { CelLibrary } from './library.ts';
import { celTypeName, compareStrings, isCelMap, mapEntries } from './values.ts';

/**
 * `string.format(list)` following cel-go's formatting_v2.go (the formatter kro gets with the
 * latest strings extension): clauses %s %d %f %e %b %o %x %X and %%, an optional `.N` precision for
 * %f and %e (default 6). %s renders lists as `[a, b]` and maps as `{k: v}` sorted by key, strings
 * unquoted, doubles in shortest fixed notation, durations in seconds (`1.5s`), timestamps in
 * RFC 3339 (UTC).
 */

function formatError(message: string): Error {
  return celError(`error during formatting: ${message}`);
}

function specialDouble(x: number): string | undefined {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Number.POSITIVE_INFINITY) return 'Infinity';
  if (x === Number.NEGATIVE_INFINITY) return '-Infinity';
  return undefined;
}

function isTypeValue(v: unknown): v is { name: string } {
  return (
    typeof v === 'object' &&
    v !== null &&
    (v as { constructor?: { name?: string } }).constructor?.name === 'Type' &&
    typeof (v as { name?: unknown }).name === 'string'
  );
}

function rfc3339(d: Date): string {
  return d
    .toISOString()
    .replace(/\.?0+Z$/, 'Z')
    .replace(/\.Z$/, 'Z');
}

function durationSeconds(d: Duration): string {
  const nanos = BigInt(d.seconds) * 1_000_000_000n + BigInt(d.nanos);
  return formatShortestFixed(Number(nanos) / 1e9);
}

const decoder = new TextDecoder();

export function formatString(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'bigint') return v.toString();
  if (v instanceof UnsignedInt) return v.value.toString();
  if (typeof v === 'number') return specialDouble(v) ?? formatShortestFixed(v);
  if (v === null) return 'null';
  if (v instanceof Uint8Array) return decoder.decode(v);
  if (v instanceof Duration) return `${durationSeconds(v)}s`;
  if (v instanceof Date) return rfc3339(v);
  // cel-go names the null type null_type; the engine names it null.
  if (isTypeValue(v)) return v.name === 'null' ? 'null_type' : v.name;
  if (Array.isArray(v)) return `[${v.map(formatString).join(', ')}]`;
  if (isCelMap(v)) {
    const entries = mapEntries(v).map(([k, val]) => [formatString(k), formatString(val)] as const);
    entries.sort((a, b) => compareStrings(a[0], b[0]));
    return `{${entries.map(([k, val]) => `${k}: ${val}`).join(', ')}}`;
  }
  throw formatError(
    `string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps, was given ${celTypeName(v)}`,
  );
}

function formatDecimal(v: unknown): string {
  if (typeof v === 'bigint') return v.toString();
  if (v instanceof UnsignedInt) return v.value.toString();
  if (typeof v === 'number') return specialDouble(v) ?? formatShortestFixed(v);
  throw formatError(
    `decimal clause can only be used on ints, uints, and doubles, was given ${celTypeName(v)}`,
  );
}

function toDouble(v: unknown, problem: string): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  if (v instanceof UnsignedInt) return Number(v.value);
  throw formatError(`${problem}, was given ${celTypeName(v)}`);
}

function formatInteger(v: unknown, radix: number, problem: string, allowBool: boolean): string {
  if (typeof v === 'bigint') return v.toString(radix);
  if (v instanceof UnsignedInt) return v.value.toString(radix);
  if (allowBool && typeof v === 'boolean') return v ? '1' : '0';
  throw formatError(`${problem}, was given ${celTypeName(v)}`);
}

function formatHex(v: unknown, upper: boolean): string {
  let s: string;
  if (typeof v === 'bigint' || v instanceof UnsignedInt) s = formatInteger(v, 16, '', false);
  else if (typeof v === 'string') s = Buffer.from(v, 'utf8').toString('hex');
  else if (v instanceof Uint8Array) s = Buffer.from(v).toString('hex');
  else
    throw formatError(
      `only ints, uints, bytes, and strings can be formatted as hex, was given ${celTypeName(v)}`,
    );
  return upper ? s.toUpperCase() : s;
}

/** Guard against hostile precisions (cel-go also caps them; its exact limit is not reproduced). */
const MAX_PRECISION = 100;

function clauseError(message: string): Error {
  return celError(`could not parse formatting clause: ${message}`);
}

/** Parses an optional `.N` precision at `i`; returns the precision and the index after it. */
function parsePrecision(format: string, i: number): [number | undefined, number] {
  if (format[i] !== '.') return [undefined, i];
  let j = i + 1;
  while (j < format.length && /[0-9]/.test(format[j] ?? '')) j++;
  if (j >= format.length)
    throw clauseError('error while parsing precision: could not find end of precision specifier');
  const digits = format.slice(i + 1, j);
  if (digits === '') {
    throw clauseError(
      'error while parsing precision: error while converting precision to integer: strconv.Atoi: parsing "": invalid syntax',
    );
  }
  const precision = Number(digits);
  if (precision > MAX_PRECISION) {
    throw clauseError(
      `error while parsing precision: precision ${precision} exceeds maximum allowed precision ${MAX_PRECISION}`,
    );
  }
  return [precision, j];
}

export function celFormat(format: string, args: readonly unknown[]): string {
  let out = '';
  let argIndex = 0;
  for (let i = 0; i < format.length; i++) {
    const c = format[i];
    if (c !== '%') {
      out += c;
      continue;
    }
    if (format[i + 1] === '%') {
      out += '%';
      i++;
      continue;
    }
    // cel-go fetches the argument before looking at the clause.
    if (argIndex >= args.length) throw celError(`index ${argIndex} out of range`);
    if (i + 1 >= format.length) throw celError('unexpected end of string');
    const [precision, at] = parsePrecision(format, i + 1);
    const verb = format[at] ?? '';
    if (!'sdfeboxX'.includes(verb)) throw clauseError(`unrecognized formatting clause "${verb}"`);
    i = at;
    const arg = args[argIndex++];
    switch (verb) {
      case 's':
        out += formatString(arg);
        break;
      case 'd':
        out += formatDecimal(arg);
        break;
      case 'f': {
        const x = toDouble(arg, 'fixed-point clause can only be used on ints, uints, and doubles');
        out += specialDouble(x) ?? formatFixed(x, precision ?? 6);
        break;
      }
      case 'e': {
        const x = toDouble(arg, 'scientific clause can only be used on ints, uints, and doubles');
        out += specialDouble(x) ?? formatScientific(x, precision ?? 6);
        break;
      }
      case 'b':
        out += formatInteger(arg, 2, 'only ints, uints, and bools can be formatted as binary', true);
        break;
      case 'o':
        out += formatInteger(arg, 8, 'octal clause can only be used on ints and uints', false);
        break;
      default:
        out += formatHex(arg, verb === 'X');
    }
  }
  return out;
}

export const formatLibrary: CelLibrary = {
  name: 'cel-go strings format',
  install(env: Environment): void {
    env.registerFunction('string.format(list<dyn>): string', (f: string, args: unknown[]) =>
      celFormat(f, args),
    );
  },
};
