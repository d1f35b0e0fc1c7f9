/**
 * kgraph's CEL facade. Nothing outside src/cel imports the engine (@marcbachmann/cel-js) directly.
 *
 *   const env = baseEnvironment().extend({ variables: { schema: 'dyn' } });
 *   const program = compile('schema.spec.name + "-x"', env);          // parse + check
 *   if (program.ok) evaluate(program.value, { schema: {...} });        // CelResult<unknown>
 */

export { CEL_MACROS, type CelFunctionInfo, celFunctionCatalog } from './catalog.ts';
export { check, normalizeTypeName } from './check.ts';
export { CelCode, type CelCodeValue } from './codes.ts';
export {
  baseEnvironment,
  buildRootEnvironment,
  CelEnvironment,
  type CelType,
  type ExtendOptions,
} from './environment.ts';
export {
  CelAbort,
  type CelError,
  type CelErrorKind,
  type CelResult,
  celError,
  formatWithCaret,
} from './errors.ts';
export { type JsonValue, toJson } from './json.ts';
export { type CelLimits, chargeCost, defaultLimits } from './limits.ts';
export { type ParsedExpression, parse } from './parse.ts';
export {
  compile,
  type EvaluateOptions,
  evaluate,
  evaluateSource,
  type Program,
  type Variables,
} from './program.ts';
export {
  listReferences,
  type PathStep,
  type Reference,
  type ReferenceOptions,
  referencedRoots,
} from './references.ts';
