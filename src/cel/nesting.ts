/**
 * Nesting limits checked before and after the engine parses an expression. The engine's parser,
 * checker and evaluator, our source rewrite and our reference walker all recurse over the
 * expression's structure; without a bound a few thousand nested `[` or a `1 + 1 + …` chain of
 * 5,000 terms overflows the JavaScript stack ("Maximum call stack size exceeded"), which is not a
 * diagnostic. Both checks here are iterative.
 *
 * - `checkSourceNesting` runs on the text: brackets `( [ {` and runs of unary operators (`-`, `!`)
 *   count as depth. It runs before our rewrite, which is recursive over brackets.
 * - `astDepthExceeded` runs on the engine AST: left-associative operator chains (`a + b + …`,
 *   `a && b && …`) are parsed in a loop but nest one level per operator.
 */

/** Maximum nesting depth of an expression: the engine parser's own recursion limit (cel-go: 250). */
export const MAX_NESTING_DEPTH = 250;

/** Where the nesting first went beyond the limit (0-based offset into the source). */
export interface NestingExcess {
  readonly position: number;
  readonly depth: number;
}

const OPEN = new Set(['(', '[', '{']);
const CLOSE = new Set([')', ']', '}']);
const STRING_PREFIX = /^(?:[rR]|[bB]|[bB][rR]|[rR][bB])$/;

/** Skips a string literal starting at the quote at `i`; returns the offset after it (or the end). */
function skipString(src: string, i: number, raw: boolean): number {
  const q = src[i] as string;
  const close = src.startsWith(q.repeat(3), i) ? q.repeat(3) : q;
  let k = i + close.length;
  while (k < src.length) {
    if (!raw && src[k] === '\\') {
      k += 2;
      continue;
    }
    if (src.startsWith(close, k)) return k + close.length;
    k++;
  }
  return src.length;
}

/** The first place where brackets plus a run of unary operators nest deeper than `limit`. */
export function checkSourceNesting(src: string, limit = MAX_NESTING_DEPTH): NestingExcess | undefined {
  let depth = 0;
  let unary = 0;
  let i = 0;
  while (i < src.length) {
    const ch = src[i] as string;
    if (ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r') {
      i++;
      continue;
    }
    if (ch === '/' && src[i + 1] === '/') {
      while (i < src.length && src[i] !== '\n') i++;
      continue;
    }
    if (/[A-Za-z_]/.test(ch)) {
      const start = i;
      while (i < src.length && /[A-Za-z0-9_]/.test(src[i] as string)) i++;
      const word = src.slice(start, i);
      if (STRING_PREFIX.test(word) && (src[i] === '"' || src[i] === "'")) {
        i = skipString(src, i, /[rR]/.test(word));
      }
      unary = 0;
      continue;
    }
    if (ch === '"' || ch === "'") {
      i = skipString(src, i, false);
      unary = 0;
      continue;
    }
    if (ch === '`') {
      const end = src.indexOf('`', i + 1);
      i = end === -1 ? src.length : end + 1;
      unary = 0;
      continue;
    }
    if (OPEN.has(ch)) {
      depth++;
      unary = 0;
    } else if (CLOSE.has(ch)) {
      depth = Math.max(0, depth - 1);
      unary = 0;
    } else if (ch === '-' || ch === '!') {
      unary++;
    } else {
      unary = 0;
    }
    if (depth + unary > limit) return { position: i, depth: depth + unary };
    i++;
  }
  return undefined;
}

interface AstLike {
  readonly op: string;
  readonly args: unknown;
  readonly start?: number;
}

function isAst(v: unknown): v is AstLike {
  return typeof v === 'object' && v !== null && 'op' in v && 'args' in v;
}

/** The first AST node deeper than `limit` (iterative walk), with its source start offset. */
export function astDepthExceeded(root: unknown, limit = MAX_NESTING_DEPTH): NestingExcess | undefined {
  const stack: { value: unknown; depth: number }[] = [{ value: root, depth: 1 }];
  while (stack.length > 0) {
    const { value, depth } = stack.pop() as { value: unknown; depth: number };
    if (isAst(value)) {
      if (depth > limit) return { position: value.start ?? 0, depth };
      stack.push({ value: value.args, depth: depth + 1 });
    } else if (Array.isArray(value)) {
      // Argument arrays (and the engine's [key, value] pairs) are not a level of their own.
      for (const item of value) stack.push({ value: item, depth });
    }
  }
  return undefined;
}
