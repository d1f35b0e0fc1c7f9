/**
 * The `${…}` scanner (design/graph.md §6.1–6.2). It finds the CEL expressions embedded in one
 * YAML string value and classifies the value as literal, standalone or string template. It does
 * not parse CEL: it only needs enough lexical knowledge (braces and string literals) to find
 * where each expression ends, so that `${ {'a': '}'}['a'] }` and quoting layers
 * (`${'${inner}'}`, design/graph.md §14.4) work.
 *
 * Offsets are UTF-16 code-unit offsets into the value (JavaScript string indices). Diagnostics
 * carry them in `location.offset`, relative to the value: callers that know where the value
 * sits in a file rebase them.
 */
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: messages quote kgraph ${…} syntax, not JS templates
import type { Diagnostic } from '../diag/diagnostic.ts';
import { ExprCodes } from './codes.ts';
import type { ScannedExpression, TemplatePart } from './parts.ts';
import { type CompiledTemplate, compileTemplate } from './template.ts';

export type { ScannedExpression, TemplatePart } from './parts.ts';

/** A value without any expression: it is used as is. */
export interface LiteralValue {
  readonly kind: 'literal';
  readonly value: string;
}

/** The whole value is exactly one `${expr}`: the result replaces the field, with any type. */
export interface StandaloneValue {
  readonly kind: 'standalone';
  readonly value: string;
  readonly expression: ScannedExpression;
}

/** Literal text and expressions: one CEL string concatenation whose parts must all be strings. */
export interface TemplateValue {
  readonly kind: 'template';
  readonly value: string;
  readonly parts: readonly TemplatePart[];
  readonly expressions: readonly ScannedExpression[];
  readonly compiled: CompiledTemplate;
}

export type ScannedValue = LiteralValue | StandaloneValue | TemplateValue;

export type ScanResult =
  | { readonly ok: true; readonly value: ScannedValue }
  | { readonly ok: false; readonly diagnostic: Diagnostic };

/** Prefixes that may precede a CEL string literal (case-insensitive); `r` makes it raw. */
const LITERAL_PREFIXES = new Set(['r', 'b', 'rb', 'br']);

/** True when `value` contains at least one `${` (cheap pre-check before scanning). */
export function hasExpression(value: string): boolean {
  return value.includes('${');
}

/** True when the value is exactly one `${…}` with nothing around it. */
export function isStandalone(value: string): boolean {
  const s = scanValue(value);
  return s.ok && s.value.kind === 'standalone';
}

/** Scans one string value. Stops at the first error. */
export function scanValue(value: string): ScanResult {
  const parts: TemplatePart[] = [];
  const expressions: ScannedExpression[] = [];
  let literalStart = 0;
  let searchFrom = 0;
  for (;;) {
    const open = value.indexOf('${', searchFrom);
    if (open < 0) break;
    const end = findExpressionEnd(value, open);
    if (!end.ok) return end;
    const source = value.slice(open + 2, end.close);
    if (source.trim() === '') {
      return fail(
        ExprCodes.empty,
        'empty expression: `${}` contains nothing to evaluate',
        open,
        end.close + 1 - open,
      );
    }
    if (open > literalStart)
      parts.push({ kind: 'literal', text: value.slice(literalStart, open), offset: literalStart });
    const expression: ScannedExpression = {
      source,
      offset: open,
      sourceOffset: open + 2,
      end: end.close + 1,
    };
    parts.push({ kind: 'expression', expression });
    expressions.push(expression);
    literalStart = searchFrom = end.close + 1;
  }
  if (expressions.length === 0) return { ok: true, value: { kind: 'literal', value } };
  if (literalStart < value.length)
    parts.push({ kind: 'literal', text: value.slice(literalStart), offset: literalStart });
  const first = expressions[0]!;
  if (expressions.length === 1 && first.offset === 0 && first.end === value.length) {
    return { ok: true, value: { kind: 'standalone', value, expression: first } };
  }
  return {
    ok: true,
    value: { kind: 'template', value, parts, expressions, compiled: compileTemplate(parts) },
  };
}

type EndResult = { ok: true; close: number } | { ok: false; diagnostic: Diagnostic };

/** Finds the `}` that closes the expression opened by the `${` at `open`. */
function findExpressionEnd(value: string, open: number): EndResult {
  let depth = 0;
  let i = open + 2;
  while (i < value.length) {
    const c = value[i]!;
    if (c === '"' || c === "'") {
      const after = skipStringLiteral(value, i, false);
      if (after < 0) return unterminatedString(open, i);
      i = after;
      continue;
    }
    if (isIdentStart(c)) {
      let j = i + 1;
      while (j < value.length && isIdentPart(value[j]!)) j++;
      const next = value[j];
      const word = value.slice(i, j).toLowerCase();
      if ((next === '"' || next === "'") && LITERAL_PREFIXES.has(word)) {
        const after = skipStringLiteral(value, j, word.includes('r'));
        if (after < 0) return unterminatedString(open, i);
        i = after;
      } else {
        i = j;
      }
      continue;
    }
    if (c === '$' && value[i + 1] === '{') {
      return fail(
        ExprCodes.nested,
        'nested expression: `${` inside an expression must be inside a string literal (e.g. ' +
          "`${'${inner}'}` defers it to a stamped child Graph)",
        i,
        2,
      );
    }
    if (c === '{') depth++;
    else if (c === '}') {
      if (depth === 0) return { ok: true, close: i };
      depth--;
    }
    i++;
  }
  return fail(
    ExprCodes.unterminated,
    'unterminated expression: `${` has no matching `}`',
    open,
    value.length - open,
  );
}

/**
 * Skips the CEL string literal whose opening quote is at `quote` (single, double or tripled).
 * Returns the offset after the closing quote, or -1 when it is not closed. Escapes are honoured
 * in non-raw literals: a backslash always consumes the next character.
 */
function skipStringLiteral(value: string, quote: number, raw: boolean): number {
  const q = value[quote]!;
  const triple = q + q + q;
  const isTriple = value.startsWith(triple, quote);
  let j = quote + (isTriple ? 3 : 1);
  while (j < value.length) {
    const c = value[j]!;
    if (c === '\\' && !raw) {
      j += 2;
      continue;
    }
    if (isTriple) {
      if (value.startsWith(triple, j)) return j + 3;
    } else if (c === q) {
      return j + 1;
    }
    j++;
  }
  return -1;
}

function unterminatedString(open: number, literal: number): { ok: false; diagnostic: Diagnostic } {
  return fail(
    ExprCodes.unterminated,
    `unterminated expression: the string literal at offset ${literal} is not closed, so \`\${\` has no matching \`}\``,
    open,
    literal + 1 - open,
  );
}

function fail(
  code: string,
  message: string,
  offset: number,
  length: number,
): { ok: false; diagnostic: Diagnostic } {
  return {
    ok: false,
    diagnostic: {
      severity: 'error',
      code,
      message: `${message} (at offset ${offset})`,
      location: { offset, length },
    },
  };
}

function isIdentStart(c: string): boolean {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === '_';
}

function isIdentPart(c: string): boolean {
  return isIdentStart(c) || (c >= '0' && c <= '9');
}
