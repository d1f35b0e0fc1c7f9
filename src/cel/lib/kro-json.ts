import { type Environment, Optional } from '@marcbachmann/cel-js';
import { Duration, UnsignedInt } from '@marcbachmann/cel-js/evaluator';
import { chargeCost } from '../limits.ts';
import { celError } from './errors.ts';
import type { CelLibrary } from './library.ts';
import { ensureNamespace } from './namespaces.ts';
import { isOmit } from './omit.ts';
import { celTypeName, compareStrings, isCelMap, mapEntries } from './values.ts';

/**
 * kro's JSON library, following kro pkg/cel/library/json.go and pkg/cel/conversion (GoNativeType),
 * so output is byte-identical to Go's encoding/json:
 * - json.unmarshal decodes into Go `any`: every JSON number becomes a double (float64);
 * - json.marshal sorts object keys (byte order), escapes <, >, & and U+2028/U+2029 (Go's HTML-safe
 *   default), writes \b \f \n \r \t and \u00XX for other control characters, bytes as base64,
 *   doubles in Go's format (exponent below 1e-6 and from 1e21, e-7 not e-07), durations as Go
 *   duration strings (metav1.Duration), timestamps as RFC 3339 seconds in UTC (metav1.Time), an
 *   empty optional as null, and omit() as {} (Go marshals the empty sentinel struct).
 */

export function jsonUnmarshal(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw celError(
      `json.unmarshal failed to parse JSON: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  const check = (v: unknown): void => {
    chargeCost(1);
    if (typeof v === 'number' && !Number.isFinite(v)) {
      throw celError('json.unmarshal failed to parse JSON: number out of range for float64');
    }
    if (Array.isArray(v)) v.forEach(check);
    else if (v !== null && typeof v === 'object') Object.values(v).forEach(check);
  };
  check(value);
  return value;
}

const HEX = '0123456789abcdef';
/** metav1.Time renders Go's zero time (0001-01-01T00:00:00Z) as null. */
const GO_ZERO_TIME = Date.parse('0001-01-01T00:00:00Z');

function quoteJson(s: string): string {
  // Character by character: charged before, at code-point speed (../costs.ts).
  chargeCost(Math.ceil(s.length / 8));
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0) ?? 0;
    if (ch === '"' || ch === '\\') out += `\\${ch}`;
    else if (ch === '\b') out += '\\b';
    else if (ch === '\f') out += '\\f';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (c < 0x20 || ch === '<' || ch === '>' || ch === '&') out += `\\u00${HEX[c >> 4]}${HEX[c & 0xf]}`;
    else if (c === 0x2028 || c === 0x2029) out += `\\u${c.toString(16)}`;
    else if (c >= 0xd800 && c <= 0xdfff) out += '\ufffd';
    else out += ch;
  }
  return `${out}"`;
}

function goFloat(x: number): string {
  if (!Number.isFinite(x))
    throw celError(`json.marshal failed to encode value: json: unsupported value: ${x}`);
  if (Object.is(x, -0)) return '-0';
  return String(x);
}

/** Go's strconv-style fraction: v / 10^prec digits without trailing zeros. */
function fraction(v: bigint, prec: number): [string, bigint] {
  let digits = '';
  let u = v;
  let print = false;
  for (let i = 0; i < prec; i++) {
    const d = u % 10n;
    print ||= d !== 0n;
    if (print) digits = d.toString() + digits;
    u /= 10n;
  }
  return [print ? `.${digits}` : '', u];
}

/** Go's time.Duration.String(). */
export function goDuration(d: Duration): string {
  let u = BigInt(d.seconds) * 1_000_000_000n + BigInt(d.nanos);
  const neg = u < 0n;
  if (neg) u = -u;
  let s: string;
  if (u === 0n) return '0s';
  if (u < 1_000_000_000n) {
    const [unit, prec] = u < 1000n ? ['ns', 0] : u < 1_000_000n ? ['µs', 3] : ['ms', 6];
    const [frac, whole] = fraction(u, prec as number);
    s = `${whole}${frac}${unit}`;
  } else {
    const [frac, secs] = fraction(u, 9);
    s = `${secs % 60n}${frac}s`;
    const mins = secs / 60n;
    if (mins > 0n) {
      s = `${mins % 60n}m${s}`;
      const hours = mins / 60n;
      if (hours > 0n) s = `${hours}h${s}`;
    }
  }
  return neg ? `-${s}` : s;
}

export function jsonMarshal(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number') return goFloat(value);
  if (typeof value === 'string') return quoteJson(value);
  if (value instanceof UnsignedInt) return value.value.toString();
  if (value instanceof Uint8Array) return `"${Buffer.from(value).toString('base64')}"`;
  if (value instanceof Duration) return quoteJson(goDuration(value));
  if (value instanceof Date) {
    if (value.getTime() === GO_ZERO_TIME) return 'null';
    return quoteJson(value.toISOString().replace(/\.\d+Z$/, 'Z'));
  }
  if (value instanceof Optional) return value.hasValue() ? jsonMarshal(value.value()) : 'null';
  if (isOmit(value)) return '{}';
  if (Array.isArray(value)) {
    chargeCost(value.length);
    return `[${value.map(jsonMarshal).join(',')}]`;
  }
  if (isCelMap(value)) {
    const entries = mapEntries(value).map(([k, v]) => {
      if (typeof k !== 'string') {
        throw celError(`json.marshal failed to convert value: map key must be string, got ${celTypeName(k)}`);
      }
      return [k, v] as const;
    });
    chargeCost(entries.length * Math.ceil(Math.log2(entries.length + 1)));
    entries.sort((a, b) => compareStrings(a[0], b[0]));
    return `{${entries.map(([k, v]) => `${quoteJson(k)}:${jsonMarshal(v)}`).join(',')}}`;
  }
  throw celError(`json.marshal failed to convert value: unsupported type: ${celTypeName(value)}`);
}

export const kroJsonLibrary: CelLibrary = {
  name: 'kro json',
  install(env: Environment): void {
    const ns = ensureNamespace(env, 'json');
    env.registerFunction(`${ns}.unmarshal(string): dyn`, (_ns: unknown, s: string) => jsonUnmarshal(s));
    env.registerFunction(`${ns}.marshal(dyn): string`, (_ns: unknown, v: unknown) => jsonMarshal(v));
  },
};
