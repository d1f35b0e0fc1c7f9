/**
 * The pieces the scanner cuts a string value into: the `${…}` occurrences and, for a template, the
 * literal text between them. Their own module so that the scanner and the template compiler, which
 * both use them, do not import each other.
 */
/** One `${…}` occurrence. */
export interface ScannedExpression {
  /** The CEL source between `${` and its matching `}`, verbatim (not trimmed). */
  readonly source: string;
  /** Offset of the `$` that opens the expression. */
  readonly offset: number;
  /** Offset of the first character of `source` (always `offset + 2`). */
  readonly sourceOffset: number;
  /** Offset just past the closing `}`. */
  readonly end: number;
}

export type TemplatePart =
  | { readonly kind: 'literal'; readonly text: string; readonly offset: number }
  | { readonly kind: 'expression'; readonly expression: ScannedExpression };
