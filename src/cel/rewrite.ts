/**
 * Source-level rewrites for CEL syntax the engine's parser lacks (design/platform.md §3.6). Each rewrite
 * produces an equivalent expression the engine parses:
 *
 * - optional entries in list and map literals: `[a, ?b]` → `__kgraph.optionalList([optional.of(a), b])`,
 *   `{'k': v, ?'j': w}` → `__kgraph.optionalMap(['k', 'j'], [optional.of(v), w])`;
 * - backtick-quoted field names: `` x.`a-b` `` → `x["a-b"]`, `` x.?`a-b` `` → `x[?"a-b"]`;
 * - raw bytes literals `br'\a'` and non-ASCII characters in bytes literals (encoded as UTF-8 escapes);
 * - floats without a leading digit: `.5` → `0.5`;
 * - an empty list/map literal used as a receiver: `[].all(…)` → `dyn([]).all(…)` (the engine's
 *   placeholder element type makes overload resolution fail).
 *
 * Positions: every output character maps back to an offset of the original source, so errors point
 * at what the user wrote. Malformed input is returned unchanged for the engine to report.
 */

export interface Rewritten {
  readonly source: string;
  /** Whether anything changed. */
  readonly changed: boolean;
  /** Maps an offset in `source` to an offset in the original text. */
  toOriginal(position: number): number;
}

type Kind = 'ws' | 'ident' | 'number' | 'string' | 'bytes' | 'backtick' | 'punct';

export interface Token {
  readonly kind: Kind;
  readonly text: string;
  readonly pos: number;
}

export class Malformed extends Error {}

const STRING_PREFIX = /^(?:[rR]|[bB]|[bB][rR]|[rR][bB])$/;

export function tokenize(src: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  const lastSignificant = (): Token | undefined => {
    for (let k = out.length - 1; k >= 0; k--) if (out[k]?.kind !== 'ws') return out[k];
    return undefined;
  };
  while (i < src.length) {
    const ch = src[i] as string;
    const start = i;
    if (/\s/.test(ch)) {
      while (i < src.length && /\s/.test(src[i] as string)) i++;
      out.push({ kind: 'ws', text: src.slice(start, i), pos: start });
      continue;
    }
    if (ch === '/' && src[i + 1] === '/') {
      while (i < src.length && src[i] !== '\n') i++;
      out.push({ kind: 'ws', text: src.slice(start, i), pos: start });
      continue;
    }
    if (/[A-Za-z_]/.test(ch)) {
      while (i < src.length && /[A-Za-z0-9_]/.test(src[i] as string)) i++;
      const word = src.slice(start, i);
      if (STRING_PREFIX.test(word) && (src[i] === '"' || src[i] === "'")) {
        i = skipString(src, i, /[rR]/.test(word));
        out.push({ kind: /[bB]/.test(word) ? 'bytes' : 'string', text: src.slice(start, i), pos: start });
      } else {
        out.push({ kind: 'ident', text: word, pos: start });
      }
      continue;
    }
    if (ch === '"' || ch === "'") {
      i = skipString(src, i, false);
      out.push({ kind: 'string', text: src.slice(start, i), pos: start });
      continue;
    }
    if (ch === '`') {
      const end = src.indexOf('`', i + 1);
      if (end === -1) throw new Malformed('unterminated backtick');
      i = end + 1;
      out.push({ kind: 'backtick', text: src.slice(start, i), pos: start });
      continue;
    }
    const leadingDot = ch === '.' && /\d/.test(src[i + 1] ?? '') && !endsOperand(lastSignificant());
    if (/\d/.test(ch) || leadingDot) {
      const m = /^(?:0[xX][0-9a-fA-F]+[uU]?|\d*\.?\d+(?:[eE][+-]?\d+)?[uU]?|\d+(?:[eE][+-]?\d+)?[uU]?)/.exec(
        src.slice(i),
      );
      i += m ? m[0].length : 1;
      out.push({ kind: 'number', text: src.slice(start, i), pos: start });
      continue;
    }
    out.push({ kind: 'punct', text: ch, pos: start });
    i++;
  }
  return out;
}

function skipString(src: string, i: number, raw: boolean): number {
  const q = src[i] as string;
  const triple = src.startsWith(q.repeat(3), i);
  const close = triple ? q.repeat(3) : q;
  let k = i + close.length;
  while (k < src.length) {
    if (!raw && src[k] === '\\') {
      k += 2;
      continue;
    }
    if (src.startsWith(close, k)) return k + close.length;
    k++;
  }
  throw new Malformed('unterminated string');
}

function endsOperand(t: Token | undefined): boolean {
  if (t === undefined) return false;
  if (t.kind === 'punct') return t.text === ')' || t.text === ']' || t.text === '}';
  if (t.kind === 'ident') return t.text !== 'in';
  return true;
}

/** Output with a map from each output character to an original offset. */
class Out {
  text = '';
  readonly map: number[] = [];
  verbatim(text: string, pos: number): void {
    for (let k = 0; k < text.length; k++) this.map.push(pos + k);
    this.text += text;
  }
  /** Synthetic text standing for the original range [start, end): first char → start, last → end - 1. */
  span(text: string, start: number, end: number): void {
    for (let k = 0; k < text.length; k++) this.map.push(k === text.length - 1 ? end - 1 : start);
    this.text += text;
  }
  synthetic(text: string, pos: number): void {
    for (let k = 0; k < text.length; k++) this.map.push(pos);
    this.text += text;
  }
}

function hexBytes(bytes: Uint8Array): string {
  return [...bytes].map((b) => `\\x${b.toString(16).padStart(2, '0')}`).join('');
}

function emitBytes(out: Out, t: Token): void {
  const m = /^([A-Za-z]*)('''|"""|'|")([\s\S]*)\2$/.exec(t.text);
  if (!m) {
    out.verbatim(t.text, t.pos);
    return;
  }
  const [, prefix = '', quote = '"', body = ''] = m;
  if (/[rR]/.test(prefix)) {
    out.synthetic(`b"${hexBytes(new TextEncoder().encode(body))}"`, t.pos);
    return;
  }
  // Non-raw: keep escapes, encode non-ASCII characters as their UTF-8 bytes.
  let text = `b${quote}`;
  for (const c of body) text += c.charCodeAt(0) > 0x7f ? hexBytes(new TextEncoder().encode(c)) : c;
  out.synthetic(`${text}${quote}`, t.pos);
}

function quoteName(name: string): string {
  return `"${name.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

interface Cursor {
  i: number;
}

function nextSignificant(tokens: readonly Token[], from: number): number {
  let k = from;
  while (k < tokens.length && tokens[k]?.kind === 'ws') k++;
  return k;
}

/** Emits tokens until the punct `closer` at depth 0 (not consumed), rewriting as it goes. */
function emitUntil(tokens: readonly Token[], c: Cursor, out: Out, closers: ReadonlySet<string>): void {
  let prev: Token | undefined;
  while (c.i < tokens.length) {
    const t = tokens[c.i] as Token;
    if (t.kind === 'punct' && closers.has(t.text)) return;
    if (t.kind === 'ws') {
      out.verbatim(t.text, t.pos);
      c.i++;
      continue;
    }
    if (t.kind === 'ident' && t.text === 'has' && emitHas(tokens, c, out)) {
      prev = { kind: 'punct', text: ')', pos: t.pos };
      continue;
    }
    if (t.kind === 'bytes') {
      emitBytes(out, t);
    } else if (t.kind === 'number' && t.text.startsWith('.')) {
      out.synthetic('0', t.pos);
      out.verbatim(t.text, t.pos);
    } else if (t.kind === 'punct' && t.text === '.') {
      const n = nextSignificant(tokens, c.i + 1);
      const next = tokens[n];
      const afterQ =
        next?.kind === 'punct' && next.text === '?' ? tokens[nextSignificant(tokens, n + 1)] : undefined;
      if (next?.kind === 'backtick' || afterQ?.kind === 'backtick') {
        const tick = (next?.kind === 'backtick' ? next : afterQ) as Token;
        const optional = next?.kind !== 'backtick';
        out.span(
          `[${optional ? '?' : ''}${quoteName(tick.text.slice(1, -1))}]`,
          t.pos,
          tick.pos + tick.text.length,
        );
        c.i = tokens.indexOf(tick) + 1;
        prev = tick;
        continue;
      }
      out.verbatim(t.text, t.pos);
    } else if (t.kind === 'punct' && (t.text === '(' || t.text === '[' || t.text === '{')) {
      const literal = t.text !== '(' && !(t.text === '[' && endsOperand(prev));
      if (literal) {
        emitLiteral(tokens, c, out);
        prev = { kind: 'punct', text: t.text === '[' ? ']' : '}', pos: t.pos };
        continue;
      }
      const closer = t.text === '(' ? ')' : ']';
      out.verbatim(t.text, t.pos);
      c.i++;
      emitUntil(tokens, c, out, new Set([closer]));
      const close = tokens[c.i];
      if (close === undefined) throw new Malformed('unbalanced brackets');
      out.verbatim(close.text, close.pos);
      prev = close;
      c.i++;
      continue;
    } else {
      out.verbatim(t.text, t.pos);
    }
    prev = t;
    c.i++;
  }
}

/** Index of the punct closing the bracket opened at `openAt`. */
function matching(tokens: readonly Token[], openAt: number): number {
  let depth = 0;
  for (let k = openAt; k < tokens.length; k++) {
    const t = tokens[k] as Token;
    if (t.kind !== 'punct') continue;
    if ('([{'.includes(t.text)) depth++;
    else if (')]}'.includes(t.text) && --depth === 0) return k;
  }
  throw new Malformed('unbalanced brackets');
}

/**
 * `has(x.`a-b`)` and `has({…}.f)`: the engine's has() accepts neither a quoted field nor a literal
 * receiver, so these become `__kgraph.hasField(x, "a-b")` (a map key test; intermediate selections
 * still fail as usual when missing). Returns false, emitting nothing, for every other has().
 */
function emitHas(tokens: readonly Token[], c: Cursor, out: Out): boolean {
  const open = nextSignificant(tokens, c.i + 1);
  if (tokens[open]?.text !== '(' || tokens[open]?.kind !== 'punct') return false;
  const close = matching(tokens, open);
  const significant: number[] = [];
  for (let k = open + 1; k < close; k++) if (tokens[k]?.kind !== 'ws') significant.push(k);
  const last = significant.at(-1);
  const dot = significant.at(-2);
  const first = significant[0];
  if (last === undefined || dot === undefined || first === undefined) return false;
  const field = tokens[last] as Token;
  if (tokens[dot]?.text !== '.' || (field.kind !== 'backtick' && field.kind !== 'ident')) return false;
  const base = tokens[first] as Token;
  const literalBase = base.kind === 'punct' && (base.text === '{' || base.text === '[');
  if (field.kind !== 'backtick' && !literalBase) return false;
  const name = field.kind === 'backtick' ? field.text.slice(1, -1) : field.text;
  const hasToken = tokens[c.i] as Token;
  out.synthetic('__kgraph.hasField(', hasToken.pos);
  emitRange(tokens, open + 1, dot, out);
  out.synthetic(`, ${quoteName(name)})`, field.pos);
  c.i = close + 1;
  return true;
}

interface Element {
  readonly optional: boolean;
  readonly start: number;
  /** Token index of the element's first token after `?`. */
  readonly from: number;
  /** Token index one past the element. */
  readonly to: number;
}

/** Splits a literal's elements at depth-0 commas; `c.i` is at the opening bracket. */
function splitElements(
  tokens: readonly Token[],
  openAt: number,
  closer: string,
): { elements: Element[]; end: number } {
  const elements: Element[] = [];
  let depth = 0;
  let from = openAt + 1;
  let k = openAt + 1;
  const push = (to: number): void => {
    const first = nextSignificant(tokens, from);
    if (first >= to) return; // empty (trailing comma or empty literal)
    const ft = tokens[first] as Token;
    const optional = ft.kind === 'punct' && ft.text === '?';
    elements.push({ optional, start: ft.pos, from: optional ? first + 1 : from, to });
  };
  for (; k < tokens.length; k++) {
    const t = tokens[k] as Token;
    if (t.kind !== 'punct') continue;
    if (t.text === '(' || t.text === '[' || t.text === '{') depth++;
    else if (t.text === ')' || t.text === ']' || t.text === '}') {
      if (depth === 0) {
        if (t.text !== closer) throw new Malformed('unbalanced brackets');
        push(k);
        return { elements, end: k };
      }
      depth--;
    } else if (t.text === ',' && depth === 0) {
      push(k);
      from = k + 1;
    }
  }
  throw new Malformed('unterminated literal');
}

/** Index of the depth-0 `:` separating a map entry's key and value (ternaries skipped). */
function entryColon(tokens: readonly Token[], from: number, to: number): number {
  let depth = 0;
  let pendingTernaries = 0;
  for (let k = from; k < to; k++) {
    const t = tokens[k] as Token;
    if (t.kind !== 'punct') continue;
    if ('([{'.includes(t.text)) depth++;
    else if (')]}'.includes(t.text)) depth--;
    else if (depth === 0 && t.text === '?') pendingTernaries++;
    else if (depth === 0 && t.text === ':') {
      if (pendingTernaries === 0) return k;
      pendingTernaries--;
    }
  }
  throw new Malformed('map entry without ":"');
}

function emitRange(tokens: readonly Token[], from: number, to: number, out: Out): void {
  const slice = tokens.slice(from, to);
  emitUntil(slice, { i: 0 }, out, new Set());
}

function emitLiteral(tokens: readonly Token[], c: Cursor, out: Out): void {
  const open = tokens[c.i] as Token;
  const closer = open.text === '[' ? ']' : '}';
  const { elements, end } = splitElements(tokens, c.i, closer);
  const close = tokens[end] as Token;
  const hasOptional = elements.some((e) => e.optional);
  if (!hasOptional) {
    const after = tokens[nextSignificant(tokens, end + 1)];
    const receiver = elements.length === 0 && after?.kind === 'punct' && after.text === '.';
    if (receiver) out.synthetic('dyn(', open.pos);
    out.verbatim(open.text, open.pos);
    emitRange(tokens, c.i + 1, end, out);
    out.verbatim(close.text, close.pos);
    if (receiver) out.synthetic(')', close.pos);
    c.i = end + 1;
    return;
  }
  if (open.text === '[') {
    out.synthetic('__kgraph.optionalList([', open.pos);
    elements.forEach((e, n) => {
      if (n > 0) out.synthetic(', ', e.start);
      out.synthetic(e.optional ? '(' : 'optional.of(', e.start);
      emitRange(tokens, e.from, e.to, out);
      out.synthetic(')', e.start);
    });
    out.synthetic('])', close.pos);
  } else {
    const split = elements.map((e) => ({ e, colon: entryColon(tokens, e.from, e.to) }));
    out.synthetic('__kgraph.optionalMap([', open.pos);
    split.forEach(({ e, colon }, n) => {
      if (n > 0) out.synthetic(', ', e.start);
      emitRange(tokens, e.from, colon, out);
    });
    out.synthetic('], [', open.pos);
    split.forEach(({ e, colon }, n) => {
      if (n > 0) out.synthetic(', ', e.start);
      out.synthetic(e.optional ? '(' : 'optional.of(', e.start);
      emitRange(tokens, colon + 1, e.to, out);
      out.synthetic(')', e.start);
    });
    out.synthetic('])', close.pos);
  }
  c.i = end + 1;
}

const IDENTITY = (source: string): Rewritten => ({ source, changed: false, toOriginal: (p) => p });

/** Quick filter: only sources containing a construct we rewrite go through the tokenizer. */
const CANDIDATE =
  /[`?]|has\s*\(\s*[[{]|[bB][rR]?['"]|[rR][bB]['"]|(^|[^\w\])}.])\.\d|\[\s*\]|\{\s*\}|[^\x00-\x7f]/;

export function rewriteSource(source: string): Rewritten {
  if (!CANDIDATE.test(source)) return IDENTITY(source);
  let out: Out;
  try {
    const tokens = tokenize(source);
    out = new Out();
    const c = { i: 0 };
    emitUntil(tokens, c, out, new Set());
    if (c.i < tokens.length) return IDENTITY(source);
  } catch (err) {
    if (err instanceof Malformed) return IDENTITY(source);
    throw err;
  }
  if (out.text === source) return IDENTITY(source);
  const map = out.map;
  const length = source.length;
  return {
    source: out.text,
    changed: true,
    toOriginal: (p) => (p >= map.length ? length : (map[p] ?? length)),
  };
}
