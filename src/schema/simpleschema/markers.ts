/**
 * Tokenizes the marker part of a SimpleSchema field (`string | required=true default="a b"`).
 * Markers are whitespace-separated `key=value` pairs; a value is either double-quoted (with `\"` and
 * `\\` escapes, other backslashes kept verbatim so regexes survive), or bare, where `[...]` / `{...}`
 * group a JSON value that may contain spaces. Parsing is separate from applying so that syntax errors
 * are reported before any type-specific checks.
 */

export const MARKER_KEYS = [
  'required',
  'default',
  'description',
  'minimum',
  'maximum',
  'enum',
  'pattern',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'uniqueItems',
  'listType',
  'listMapKey',
  'immutable',
  'validation',
] as const;

export type MarkerKey = (typeof MARKER_KEYS)[number];

export interface Marker {
  key: MarkerKey;
  value: string;
  /** Whether the value was written in double quotes (then `default="1"` is the text "1"). */
  quoted: boolean;
}

export type MarkerParseResult =
  | { ok: true; markers: Marker[] }
  | { ok: false; kind: 'unknown-marker' | 'syntax'; message: string };

const KNOWN = new Set<string>(MARKER_KEYS);

function isSpace(ch: string | undefined): boolean {
  return ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r';
}

export function parseMarkers(text: string): MarkerParseResult {
  const markers: Marker[] = [];
  let i = 0;
  const n = text.length;
  const fail = (message: string): MarkerParseResult => ({ ok: false, kind: 'syntax', message });
  while (i < n) {
    while (i < n && isSpace(text[i])) i++;
    if (i >= n) break;
    const keyStart = i;
    while (i < n && text[i] !== '=' && !isSpace(text[i])) i++;
    const key = text.slice(keyStart, i);
    if (text[i] !== '=') return fail(`marker key '${key}' without a value`);
    if (key === '') return fail('empty marker key before "="');
    if (!KNOWN.has(key)) {
      return { ok: false, kind: 'unknown-marker', message: `unknown marker '${key}'` };
    }
    i++; // '='
    if (text[i] === '"') {
      i++;
      let value = '';
      let closed = false;
      while (i < n) {
        const ch = text[i]!;
        if (ch === '\\' && i + 1 < n) {
          const next = text[i + 1]!;
          value += next === '"' || next === '\\' ? next : `\\${next}`;
          i += 2;
          continue;
        }
        if (ch === '"') {
          closed = true;
          i++;
          break;
        }
        value += ch;
        i++;
      }
      if (!closed) return fail(`unclosed quote in value of marker '${key}'`);
      if (i < n && !isSpace(text[i]))
        return fail(`unexpected '${text[i]}' after the quoted value of '${key}'`);
      markers.push({ key: key as MarkerKey, value, quoted: true });
      continue;
    }
    const valueStart = i;
    let depth = 0;
    let inString = false;
    while (i < n) {
      const ch = text[i]!;
      if (inString) {
        if (ch === '\\') i++;
        else if (ch === '"') inString = false;
      } else if (ch === '"') {
        inString = true;
      } else if (ch === '[' || ch === '{') {
        depth++;
      } else if (ch === ']' || ch === '}') {
        depth--;
        if (depth < 0) return fail(`unmatched '${ch}' in value of marker '${key}'`);
      } else if (depth === 0 && isSpace(ch)) {
        break;
      }
      i++;
    }
    if (inString) return fail(`unclosed quote in value of marker '${key}'`);
    if (depth > 0) return fail(`unclosed bracket or brace in value of marker '${key}'`);
    markers.push({ key: key as MarkerKey, value: text.slice(valueStart, i), quoted: false });
  }
  return { ok: true, markers };
}
