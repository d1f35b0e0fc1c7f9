import type { Environment } from '@marcbachmann/cel-js';
import { overrideBuiltin } from '../engineOverrides.ts';
import { chargeCost, checkStringLength } from '../limits.ts';
import { celError } from './errors.ts';
import type { CelLibrary } from './library.ts';
import { ensureNamespace } from './namespaces.ts';

/**
 * cel-go strings extension (ext/strings.go, as kro enables it: latest version).
 * Indices count Unicode code points (Go runes), not UTF-16 units. The engine's own `indexOf`,
 * `lastIndexOf`, `substring`, `split`, `lowerAscii`, `upperAscii` and `trim` differ from cel-go on
 * non-BMP text, non-ASCII letters and Unicode spaces, so they are replaced (see ../engineOverrides.ts).
 */

const runes = (s: string): string[] => Array.from(s);

/** Code points of `s` before UTF-16 offset `unit` (a surrogate pair counts once). */
function runesBefore(s: string, unit: number): number {
  let n = 0;
  for (let i = 0; i < unit; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < unit) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

/** UTF-16 offset of code point `rune` of `s`. */
function unitOfRune(s: string, rune: number): number {
  let i = 0;
  for (let n = 0; n < rune && i < s.length; n++) {
    const c = s.charCodeAt(i);
    const d = s.charCodeAt(i + 1);
    i += c >= 0xd800 && c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff ? 2 : 1;
  }
  return i;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Code-point index search with the native (linear) UTF-16 search: for a well-formed pattern a UTF-16
 * match always starts on a code-point boundary. A pattern with lone surrogates takes the rune-by-rune
 * path, which is O(n·m) and charged as such before it runs.
 */
function indexOfOffset(str: string, sub: string, offset: bigint): bigint {
  if (sub === '') return offset;
  const len = runesBefore(str, str.length);
  if (offset < 0n || offset >= BigInt(len)) throw celError(`index out of range: ${offset}`);
  if (LONE_SURROGATE.test(sub)) {
    const rs = runes(str);
    const subs = runes(sub);
    chargeCost(Math.ceil((rs.length * subs.length) / 8));
    for (let i = Number(offset); i < rs.length - (subs.length - 1); i++) {
      if (subs.every((r, j) => rs[i + j] === r)) return BigInt(i);
    }
    return -1n;
  }
  const at = str.indexOf(sub, unitOfRune(str, Number(offset)));
  return at === -1 ? -1n : BigInt(runesBefore(str, at));
}

function lastIndexOfOffset(str: string, sub: string, offset: bigint): bigint {
  if (sub === '') return offset;
  const len = runesBefore(str, str.length);
  if (offset < 0n || offset >= BigInt(len)) throw celError(`index out of range: ${offset}`);
  const subLen = runesBefore(sub, sub.length);
  let off = Number(offset);
  if (off > len - subLen) off = len - subLen;
  if (off < 0) return -1n;
  if (LONE_SURROGATE.test(sub)) {
    const rs = runes(str);
    const subs = runes(sub);
    chargeCost(Math.ceil((rs.length * subs.length) / 8));
    for (let i = off; i >= 0; i--) {
      if (subs.every((r, j) => rs[i + j] === r)) return BigInt(i);
    }
    return -1n;
  }
  const at = str.lastIndexOf(sub, unitOfRune(str, off));
  return at === -1 ? -1n : BigInt(runesBefore(str, at));
}

/** Without an offset, a pattern longer than the string is simply absent (cel-spec: ''.lastIndexOf('@@') == -1). */
function lastIndexOf(str: string, sub: string): bigint {
  const len = runes(str).length;
  if (sub === '') return BigInt(len);
  if (runes(sub).length > len) return -1n;
  return lastIndexOfOffset(str, sub, BigInt(len - 1));
}

function charAt(str: string, index: bigint): string {
  const rs = runes(str);
  if (index < 0n || index > BigInt(rs.length)) throw celError(`index out of range: ${index}`);
  return rs[Number(index)] ?? '';
}

function substring(str: string, start: bigint, end?: bigint): string {
  const rs = runes(str);
  const len = BigInt(rs.length);
  if (end === undefined) {
    if (start < 0n || start > len) throw celError(`index out of range: ${start}`);
    return rs.slice(Number(start)).join('');
  }
  if (start > end) throw celError(`invalid substring range. start: ${start}, end: ${end}`);
  if (start < 0n || start > len) throw celError(`index out of range: ${start}`);
  if (end < 0n || end > len) throw celError(`index out of range: ${end}`);
  return rs.slice(Number(start), Number(end)).join('');
}

/** Go's strings.Replace: n < 0 replaces all; an empty `old` matches before every rune and at the end. */
export function goReplace(s: string, old: string, rep: string, n: bigint): string {
  if (old === rep || n === 0n) return s;
  let count = 0;
  if (old === '') count = runes(s).length + 1;
  else for (let i = s.indexOf(old); i !== -1; i = s.indexOf(old, i + old.length)) count++;
  if (count === 0) return s;
  const limit = n < 0n || BigInt(count) < n ? count : Number(n);
  // Before building: `''.replace('', …)` style inputs can multiply the length.
  checkStringLength(s.length + limit * (rep.length - old.length));
  let out = '';
  let start = 0;
  for (let i = 0; i < limit; i++) {
    let j = start;
    if (old === '') {
      if (i > 0) j += (s.codePointAt(start) ?? 0) > 0xffff ? 2 : 1;
    } else {
      j = s.indexOf(old, start);
    }
    out += s.slice(start, j) + rep;
    start = j + old.length;
  }
  return out + s.slice(start);
}

/** Go's strings.SplitN (n < 0: all parts; n == 0: none); an empty separator splits into runes. */
export function goSplitN(s: string, sep: string, n: bigint): string[] {
  if (n === 0n) return [];
  if (sep === '') {
    const rs = runes(s);
    if (n < 0n || n >= BigInt(rs.length)) return rs;
    const k = Number(n);
    return [...rs.slice(0, k - 1), rs.slice(k - 1).join('')];
  }
  const parts = s.split(sep);
  if (n < 0n || BigInt(parts.length) <= n) return parts;
  const k = Number(n);
  return [...parts.slice(0, k - 1), parts.slice(k - 1).join(sep)];
}

// Go's unicode.IsSpace: JavaScript's trim() also strips U+FEFF and keeps U+0085.
const GO_SPACE = '\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const TRIM = new RegExp(`^[${GO_SPACE}]+|[${GO_SPACE}]+$`, 'g');

const QUOTE_ESCAPES: Record<string, string> = {
  '\x07': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\v': '\\v',
  '\\': '\\\\',
  '"': '\\"',
};

/** Replaces lone surrogates by U+FFFD, as Go's range over an invalid UTF-8 string yields RuneError. */
export function wellFormed(s: string): string {
  return s.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}

/** cel-go strings.quote: CEL escapes for control characters, quotes and backslashes; other runes verbatim. */
export function celQuote(s: string): string {
  return `"${wellFormed(s).replace(/[\x07\b\f\n\r\t\v\\"]/g, (c) => QUOTE_ESCAPES[c] ?? c)}"`;
}

export const stringsLibrary: CelLibrary = {
  name: 'cel-go strings',
  install(env: Environment): void {
    overrideBuiltin('string.indexOf(string): int', (s: string, sub: string) => indexOfOffset(s, sub, 0n));
    overrideBuiltin('string.indexOf(string, int): int', indexOfOffset);
    overrideBuiltin('string.lastIndexOf(string): int', lastIndexOf);
    overrideBuiltin('string.lastIndexOf(string, int): int', lastIndexOfOffset);
    overrideBuiltin('string.substring(int): string', (s: string, start: bigint) => substring(s, start));
    overrideBuiltin('string.substring(int, int): string', substring);
    overrideBuiltin('string.lowerAscii(): string', (s: string) =>
      s.replace(/[A-Z]+/g, (m) => m.toLowerCase()),
    );
    overrideBuiltin('string.upperAscii(): string', (s: string) =>
      s.replace(/[a-z]+/g, (m) => m.toUpperCase()),
    );
    overrideBuiltin('string.trim(): string', (s: string) => s.replace(TRIM, ''));
    overrideBuiltin('string.split(string): list<string>', (s: string, sep: string) => goSplitN(s, sep, -1n));
    overrideBuiltin('string.split(string, int): list<string>', goSplitN);

    env.registerFunction('string.charAt(int): string', charAt);
    env.registerFunction('string.replace(string, string): string', (s: string, o: string, r: string) =>
      goReplace(s, o, r, -1n),
    );
    env.registerFunction('string.replace(string, string, int): string', goReplace);
    env.registerFunction('string.reverse(): string', (s: string) => runes(s).reverse().join(''));
    const ns = ensureNamespace(env, 'strings');
    env.registerFunction(`${ns}.quote(string): string`, (_ns: unknown, s: string) => celQuote(s));
  },
};
