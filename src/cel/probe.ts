import { Environment } from './celJs.ts';
import { installOptionalFieldCheck } from './checker.ts';
import { instrumentEvaluator } from './limits.ts';

/**
 * Obtains the engine's evaluator and type checker instances (their classes are not exported) through
 * a throwaway environment with a probe macro, and installs the limit instrumentation and the
 * optional-field check on their prototypes.
 */
export function instrumentEngineOnce(): void {
  let evaluator: object | undefined;
  let checker: object | undefined;
  const probe = new Environment();
  probe.registerFunction('kgraphProbe(ast): bool', () => ({
    typeCheck: (c: { getType(name: string): unknown }) => {
      checker = c;
      return c.getType('bool');
    },
    evaluate: (ev: object) => {
      evaluator = ev;
      return true;
    },
  }));
  probe.evaluate('kgraphProbe(1)');
  if (evaluator === undefined || checker === undefined) {
    throw new Error('cannot instrument the CEL engine: probe macro did not run');
  }
  instrumentEvaluator(evaluator);
  installOptionalFieldCheck(checker);
}
