/**
 * Compiles a string template (design/graph.md §6.2) to ONE CEL concatenation:
 * `prefix-${a}-${b}` becomes `"prefix-" + (a) + "-" + (b)`. The type checker then requires every
 * part to be a string, exactly as the spec asks. A source map leads CEL offsets (from parse or
 * type errors) back to offsets in the original YAML value.
 */
import type { TemplatePart } from './parts.ts';

/** One piece of the generated CEL source and the range of the value it came from. */
export interface TemplateSegment {
  readonly kind: 'literal' | 'expression' | 'glue';
  /** Range in the generated CEL source. */
  readonly celStart: number;
  readonly celEnd: number;
  /** Range in the YAML value (for expressions: the CEL source inside `${…}`). */
  readonly valueStart: number;
  readonly valueEnd: number;
}

export interface CompiledTemplate {
  /** The CEL source of the whole template. */
  readonly cel: string;
  readonly segments: readonly TemplateSegment[];
  /**
   * Maps an offset in `cel` to an offset in the value. Inside an expression the mapping is exact;
   * inside a quoted literal or the `+` glue it points at the start of the nearest part.
   */
  toValueOffset(celOffset: number): number;
}

export function compileTemplate(parts: readonly TemplatePart[]): CompiledTemplate {
  const segments: TemplateSegment[] = [];
  let cel = '';
  const push = (kind: TemplateSegment['kind'], text: string, valueStart: number, valueEnd: number) => {
    segments.push({ kind, celStart: cel.length, celEnd: cel.length + text.length, valueStart, valueEnd });
    cel += text;
  };
  // Two leading expressions would otherwise be added to each other with their own types
  // (`${1}${2}` would type-check as int 3); a leading "" forces string concatenation.
  if (parts[0]?.kind === 'expression' && parts[1]?.kind === 'expression') {
    const at = parts[0].expression.offset;
    push('glue', '"" + ', at, at);
  }
  parts.forEach((part, index) => {
    if (index > 0) {
      const at = part.kind === 'literal' ? part.offset : part.expression.offset;
      push('glue', ' + ', at, at);
    }
    if (part.kind === 'literal') {
      push('literal', quoteCelString(part.text), part.offset, part.offset + part.text.length);
      return;
    }
    const e = part.expression;
    const start = e.sourceOffset;
    push('glue', '(', e.offset, start);
    push('expression', e.source, start, start + e.source.length);
    // A `//` comment would swallow the closing parenthesis; a newline ends it.
    push('glue', e.source.includes('//') ? '\n)' : ')', e.end - 1, e.end);
  });
  return { cel, segments, toValueOffset: (celOffset) => mapOffset(segments, celOffset) };
}

function mapOffset(segments: readonly TemplateSegment[], celOffset: number): number {
  for (const s of segments) {
    if (celOffset >= s.celStart && celOffset < s.celEnd) {
      return s.kind === 'expression' ? s.valueStart + (celOffset - s.celStart) : s.valueStart;
    }
  }
  const last = segments[segments.length - 1];
  return last ? last.valueEnd : 0;
}

/** Writes `text` as a double-quoted CEL string literal that evaluates to exactly `text`. */
export function quoteCelString(text: string): string {
  let out = '"';
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (ch === '\\') out += '\\\\';
    else if (ch === '"') out += '\\"';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (code < 0x20 || code === 0x7f) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}
