import { EvaluationError } from '@marcbachmann/cel-js';

/**
 * Errors raised by library functions. They are the engine's EvaluationError so that the engine
 * attaches the position of the failing call, exactly as for its built-in functions. Messages follow
 * cel-go / Kubernetes / kro wording where users may match on them.
 */
export function celError(message: string): EvaluationError {
  return new EvaluationError(message);
}
