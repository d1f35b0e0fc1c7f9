/**
 * Diagnostic codes of the `${…}` scanner (design/graph.md §6.1). Kept in one place so that
 * codes are never reused for another meaning; the CEL layer uses other KG1xxx codes.
 */
export const ExprCodes = {
  /** `${` without its matching `}` (possibly because a string literal inside is not closed). */
  unterminated: 'KG1001',
  /** `${` inside an expression but outside a string literal. */
  nested: 'KG1002',
  /** `${}` or `${   }`: nothing to evaluate. */
  empty: 'KG1003',
  /** A map key contains `${`: keys are never evaluated (design/graph.md §6.3), so it stays literal text. */
  keyNotEvaluated: 'KG1004',
} as const;

export type ExprCode = (typeof ExprCodes)[keyof typeof ExprCodes];
