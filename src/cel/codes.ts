/**
 * Diagnostic codes of the CEL facade (KG11xx). The `${…}` scanner in src/expr owns KG10xx.
 * A code is never reused for another meaning.
 */
export const CelCode = {
  /** The expression does not parse. */
  Syntax: 'KG1101',
  /** The expression parses but does not type-check (unknown field, no matching overload, …). */
  Type: 'KG1102',
  /** An identifier that is not declared in the environment. */
  UnknownIdentifier: 'KG1103',
  /** Data pending: a missing variable, map key, field or list index. Soft; retry when data arrives. */
  DataPending: 'KG1110',
  /** A genuine evaluation error not covered by a more specific code. */
  Evaluation: 'KG1120',
  /** Integer overflow or a value out of range. */
  Overflow: 'KG1121',
  /** A conversion (int(), duration(), timestamp(), …) that cannot convert its input. */
  Conversion: 'KG1122',
  /** Division or modulo by zero. */
  DivisionByZero: 'KG1123',
  /** No overload matches the runtime argument types. */
  NoSuchOverload: 'KG1124',
  /** The evaluation cost budget was exhausted. */
  CostLimit: 'KG1130',
  /** The wall-clock guard fired. */
  TimeLimit: 'KG1131',
  /** An intermediate string or list grew beyond the size limit. */
  SizeLimit: 'KG1132',
  /** The expression is too large or too deeply nested to parse. */
  ParseLimit: 'KG1133',
  /** Something our layer does not implement (named in the message). */
  Unsupported: 'KG1140',
} as const;

export type CelCodeValue = (typeof CelCode)[keyof typeof CelCode];
