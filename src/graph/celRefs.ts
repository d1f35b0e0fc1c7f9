/**
 * Lexical reference extraction from one CEL expression: the root identifiers it reads, with the static
 * field selection after each root, and the global functions it calls.
 *
 * Why lexical: dependencies must be known for every expression, including ones whose types cannot be
 * checked (dynamic nodes, schemaless regions), and they must not depend on the type checker. The
 * extraction understands CEL's lexical structure (string literals of every form, comments are not
 * part of CEL), selection chains with optional access (`a.?b`), macros that bind variables
 * (`l.map(x, …)`, `cel.bind(v, …)`, two-variable comprehensions) and namespaced functions
 * (`optional.of`, `lists.range`, …). When the CEL facade (src/cel) parses an expression, its syntax
 * errors are reported separately; this module never throws.
 */

export interface CelRootRef {
  /** The identifier as written. */
  name: string;
  /** Static field selection after the root, cut at the first index, call or dynamic part. */
  fields: string[];
  /** True when the chain uses optional selection (`.?f`) anywhere. */
  optional: boolean;
  /** Offset of the identifier inside the expression source. */
  offset: number;
}

export interface CelRefs {
  refs: CelRootRef[];
  /** Global and namespaced function names called (`omit`, `runtime.newCondition`, `string`, …). */
  functions: string[];
}

/** Macros and comprehension-like methods whose leading identifier arguments are bound variables. */
const BINDING_METHODS = new Set([
  'all',
  'exists',
  'exists_one',
  'existsOne',
  'map',
  'filter',
  'sortBy',
  'transformList',
  'transformMap',
  'transformMapEntry',
  'optMap',
  'optFlatMap',
]);

/** Namespaces of functions: `ns.fn(…)` is a call, not a reference to a variable `ns`. */
const FUNCTION_NAMESPACES = new Set([
  'cel',
  'optional',
  'lists',
  'strings',
  'base64',
  'json',
  'hash',
  'random',
  'runtime',
  'math',
  'sets',
  'ip',
  'regex',
]);

const KEYWORDS = new Set(['true', 'false', 'null', 'in']);
/** Type identifiers that may appear bare (`type(x) == string`). */
const TYPE_NAMES = new Set([
  'int',
  'uint',
  'double',
  'bool',
  'string',
  'bytes',
  'list',
  'map',
  'null_type',
  'type',
  'dyn',
]);

type TokKind = 'ident' | 'string' | 'number' | 'punct';
interface Tok {
  kind: TokKind;
  text: string;
  offset: number;
}

export function tokenize(src: string): Tok[] {
  const toks: Tok[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      i++;
      continue;
    }
    if (isIdentStart(c)) {
      let j = i + 1;
      while (j < src.length && isIdentPart(src[j]!)) j++;
      const word = src.slice(i, j);
      const next = src[j];
      if ((next === '"' || next === "'") && /^(r|b|rb|br)$/i.test(word)) {
        const end = skipString(src, j, /r/i.test(word));
        toks.push({ kind: 'string', text: src.slice(i, end), offset: i });
        i = end;
        continue;
      }
      toks.push({ kind: 'ident', text: word, offset: i });
      i = j;
      continue;
    }
    if (c === '"' || c === "'") {
      const end = skipString(src, i, false);
      toks.push({ kind: 'string', text: src.slice(i, end), offset: i });
      i = end;
      continue;
    }
    if (c >= '0' && c <= '9') {
      let j = i + 1;
      while (j < src.length && /[0-9a-fA-FxXuU.eE]/.test(src[j]!)) {
        // A '.' followed by an identifier start is a selection on a number literal; stop there.
        if (src[j] === '.' && !/[0-9]/.test(src[j + 1] ?? '')) break;
        j++;
      }
      toks.push({ kind: 'number', text: src.slice(i, j), offset: i });
      i = j;
      continue;
    }
    if (c === '.' && src[i + 1] === '?') {
      toks.push({ kind: 'punct', text: '.?', offset: i });
      i += 2;
      continue;
    }
    if (c === '[' && src[i + 1] === '?') {
      toks.push({ kind: 'punct', text: '[?', offset: i });
      i += 2;
      continue;
    }
    toks.push({ kind: 'punct', text: c, offset: i });
    i++;
  }
  return toks;
}

function skipString(src: string, quote: number, raw: boolean): number {
  const q = src[quote]!;
  const triple = src.startsWith(q + q + q, quote);
  let j = quote + (triple ? 3 : 1);
  while (j < src.length) {
    const c = src[j]!;
    if (c === '\\' && !raw) {
      j += 2;
      continue;
    }
    if (triple ? src.startsWith(q + q + q, j) : c === q) return j + (triple ? 3 : 1);
    j++;
  }
  return src.length;
}

function isIdentStart(c: string): boolean {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === '_';
}
function isIdentPart(c: string): boolean {
  return isIdentStart(c) || (c >= '0' && c <= '9');
}

interface Group {
  open: string;
  /** Variables bound for the extent of this group (macro arguments). */
  bound: Set<string>;
}

/** Extracts root references and called functions from one CEL expression. */
export function extractReferences(src: string): CelRefs {
  const toks = tokenize(src);
  const refs: CelRootRef[] = [];
  const functions: string[] = [];
  const stack: Group[] = [];
  const isBound = (name: string): boolean => stack.some((g) => g.bound.has(name));

  for (let i = 0; i < toks.length; i++) {
    const t = toks[i]!;
    if (t.kind === 'punct') {
      if (t.text === '(' || t.text === '[' || t.text === '[?' || t.text === '{') {
        const bound = new Set<string>();
        // `.method(` of a binding macro, or `cel.bind(`: leading `ident ,` arguments are bound.
        const prev = toks[i - 1];
        const prev2 = toks[i - 2];
        if (t.text === '(' && prev?.kind === 'ident' && (prev2?.text === '.' || prev2?.text === '.?')) {
          const isBind = prev.text === 'bind' && toks[i - 3]?.text === 'cel';
          if (BINDING_METHODS.has(prev.text) || isBind) {
            let k = i + 1;
            while (toks[k]?.kind === 'ident' && toks[k + 1]?.text === ',') {
              bound.add(toks[k]!.text);
              k += 2;
              if (isBind) break;
            }
          }
        }
        stack.push({ open: t.text, bound });
      } else if (t.text === ')' || t.text === ']' || t.text === '}') {
        stack.pop();
      }
      continue;
    }
    if (t.kind !== 'ident') continue;
    const prev = toks[i - 1];
    // A selected field or a method name, handled by the chain of its root.
    if (prev && (prev.text === '.' || prev.text === '.?')) continue;
    const next = toks[i + 1];
    // A key of a map or struct literal: `{key: v}`.
    if (next?.text === ':' && stack[stack.length - 1]?.open === '{') continue;
    if (KEYWORDS.has(t.text)) continue;
    if (next?.text === '(') {
      functions.push(t.text);
      continue;
    }
    if (
      FUNCTION_NAMESPACES.has(t.text) &&
      next?.text === '.' &&
      toks[i + 2]?.kind === 'ident' &&
      toks[i + 3]?.text === '('
    ) {
      functions.push(`${t.text}.${toks[i + 2]!.text}`);
      i += 2;
      continue;
    }
    if (TYPE_NAMES.has(t.text)) continue;
    if (isBound(t.text)) continue;
    // A root reference: collect the static selection chain.
    const fields: string[] = [];
    let optional = false;
    let k = i + 1;
    while (k < toks.length) {
      const sel = toks[k]!;
      const field = toks[k + 1];
      if ((sel.text === '.' || sel.text === '.?') && field?.kind === 'ident') {
        // `.name(` is a method call: the chain ends before it.
        if (toks[k + 2]?.text === '(') break;
        if (sel.text === '.?') optional = true;
        fields.push(field.text);
        k += 2;
        continue;
      }
      if (sel.text === '[?') optional = true;
      break;
    }
    if (toks[k]?.text === '[?') optional = true;
    refs.push({ name: t.text, fields, optional, offset: t.offset });
  }
  return { refs, functions };
}
