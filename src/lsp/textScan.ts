/**
 * Reading `${…}` straight from the editor's text. The compiler works on parsed values; an editor needs
 * answers while the text is half typed (an unclosed `${`, a document that does not parse), so these
 * scanners read characters, with the compiler's rules for braces and string literals.
 */

export interface TextExpression {
  /** Offset of the `$`. */
  start: number;
  /** Offset of the first character of the CEL source. */
  sourceStart: number;
  /** Offset just past the closing `}`. */
  end: number;
  source: string;
}

/** Where the CEL source starting at `from` ends (the offset of its closing `}`), or -1. */
function closingBrace(text: string, from: number, limit: number): number {
  let depth = 0;
  for (let i = from; i < limit; i++) {
    const c = text[i];
    if (c === '"' || c === "'") {
      const q = c;
      i++;
      while (i < limit && text[i] !== q) {
        if (text[i] === '\\') i++;
        if (text[i] === '\n') return -1;
        i++;
      }
    } else if (c === '{') depth++;
    else if (c === '}') {
      if (depth === 0) return i;
      depth--;
    }
  }
  return -1;
}

/** Every closed `${…}` of the text, in order. */
export function expressionsIn(text: string): TextExpression[] {
  const out: TextExpression[] = [];
  let i = text.indexOf('${');
  while (i >= 0) {
    const close = closingBrace(text, i + 2, Math.min(text.length, i + 4096));
    if (close < 0) {
      i = text.indexOf('${', i + 2);
      continue;
    }
    out.push({ start: i, sourceStart: i + 2, end: close + 1, source: text.slice(i + 2, close) });
    i = text.indexOf('${', close + 1);
  }
  return out;
}

/**
 * The expression the cursor is in: an open `${` before it on its line whose source has not closed
 * before the cursor. `prefix` is the CEL text from the `${` to the cursor.
 */
export function expressionAt(
  text: string,
  offset: number,
): { sourceStart: number; prefix: string } | undefined {
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  let i = text.lastIndexOf('${', offset - 2);
  while (i >= lineStart) {
    const close = closingBrace(text, i + 2, offset);
    if (close < 0) return { sourceStart: i + 2, prefix: text.slice(i + 2, offset) };
    i = text.lastIndexOf('${', i - 1);
  }
  // An expression that spans lines (a block scalar): a closed one around the cursor.
  for (const e of expressionsIn(text))
    if (e.sourceStart <= offset && offset < e.end)
      return { sourceStart: e.sourceStart, prefix: text.slice(e.sourceStart, offset) };
  return undefined;
}

export interface Identifier {
  name: string;
  /** Offset in the CEL source. */
  offset: number;
  /** Preceded by `.`: a field or method, not a variable. */
  member: boolean;
}

/** The identifiers of a CEL source, string literals skipped. */
export function identifiersIn(source: string): Identifier[] {
  const out: Identifier[] = [];
  const re = /"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|[A-Za-z_][A-Za-z0-9_]*/g;
  for (const m of source.matchAll(re)) {
    const w = m[0];
    if (w.startsWith('"') || w.startsWith("'")) continue;
    let j = m.index - 1;
    while (j >= 0 && /\s/.test(source[j]!)) j--;
    const member = source[j] === '.' || (source[j] === '?' && source[j - 1] === '.');
    out.push({ name: w, offset: m.index, member });
  }
  return out;
}

/** The member chain before the cursor: `a.b[0].c` + `.` + partial `d` → chain [a, b, [], c]. */
export interface MemberContext {
  /** Undefined when the receiver is not a plain path (a call's result, a literal). */
  chain: string[] | undefined;
  partial: string;
  afterDot: boolean;
}

export function memberContext(prefix: string): MemberContext {
  const partial = /[A-Za-z_][A-Za-z0-9_]*$/.exec(prefix)?.[0] ?? '';
  let i = prefix.length - partial.length;
  if (prefix[i - 1] === '?' && prefix[i - 2] === '.') i--;
  if (prefix[i - 1] !== '.') return { chain: undefined, partial, afterDot: false };
  i--;
  const chain: string[] = [];
  for (;;) {
    while (i > 0 && /\s/.test(prefix[i - 1]!)) i--;
    const c = prefix[i - 1];
    if (c === ']') {
      let depth = 0;
      let j = i - 1;
      for (; j >= 0; j--) {
        if (prefix[j] === ']') depth++;
        else if (prefix[j] === '[' && --depth === 0) break;
      }
      if (j < 0) return { chain: undefined, partial, afterDot: true };
      chain.unshift('[]');
      i = j;
      continue;
    }
    const m = /[A-Za-z_][A-Za-z0-9_]*$/.exec(prefix.slice(0, i));
    if (!m) return { chain: chain.length === 0 || c === ')' ? undefined : chain, partial, afterDot: true };
    chain.unshift(m[0]);
    i -= m[0].length;
    if (prefix[i - 1] === '?' && prefix[i - 2] === '.') i--;
    if (prefix[i - 1] === '.') {
      i--;
      continue;
    }
    break;
  }
  return { chain, partial, afterDot: true };
}

/** The identifier under (or just before) an offset. */
export function wordAt(
  text: string,
  offset: number,
): { word: string; start: number; end: number } | undefined {
  let s = offset;
  while (s > 0 && /[A-Za-z0-9_]/.test(text[s - 1]!)) s--;
  let e = offset;
  while (e < text.length && /[A-Za-z0-9_]/.test(text[e]!)) e++;
  if (s === e) return undefined;
  return { word: text.slice(s, e), start: s, end: e };
}
