/**
 * The only module that names the classes of the CEL engine (@marcbachmann/cel-js). Everything else in
 * kgraph goes through the facade in ./index.ts; libraries inside src/cel receive an `Environment` to
 * register into.
 */

export type { ASTNode, EnvironmentOptions, TypeCheckResult } from '@marcbachmann/cel-js';
export { Environment, EvaluationError, Optional, ParseError } from '@marcbachmann/cel-js';
