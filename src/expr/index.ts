/**
 * The expression layer: `${…}` scanning, standalone vs template classification, template
 * compilation to one CEL concatenation, and the value-tree walker (design/graph.md §6).
 */
export { type ExprCode, ExprCodes } from './codes.ts';
export {
  hasExpression,
  isStandalone,
  type LiteralValue,
  type ScannedExpression,
  type ScannedValue,
  type ScanResult,
  type StandaloneValue,
  scanValue,
  type TemplatePart,
  type TemplateValue,
} from './scan.ts';
export { type CompiledTemplate, compileTemplate, quoteCelString, type TemplateSegment } from './template.ts';
export {
  type ExpressionField,
  findExpressions,
  formatPath,
  type PathSegment,
  type WalkOptions,
  type WalkResult,
} from './walk.ts';
