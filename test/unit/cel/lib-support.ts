import assert from 'node:assert/strict';
import { Environment } from '@marcbachmann/cel-js';
import { allLibraries } from '../../../src/cel/lib/index.ts';

/** A fresh engine environment with every kgraph function library, as the CEL core configures it. */
export function libEnv(): Environment {
  const env = new Environment({
    enableOptionalTypes: true,
    homogeneousAggregateLiterals: false,
    unlistedVariablesAreDyn: true,
  });
  for (const library of allLibraries) library.install(env);
  return env;
}

const shared = libEnv();

export function celEval(expr: string, context?: Record<string, unknown>): unknown {
  return shared.evaluate(expr, context);
}

/** Asserts that evaluating `expr` fails with a message containing `fragment`. */
export function assertCelError(
  expr: string,
  fragment: string | RegExp,
  context?: Record<string, unknown>,
): void {
  assert.throws(
    () => shared.evaluate(expr, context),
    (err: unknown) => {
      const message = err instanceof Error ? err.message : String(err);
      if (typeof fragment === 'string' ? message.includes(fragment) : fragment.test(message)) return true;
      assert.fail(`expected error matching ${String(fragment)} for ${expr}, got: ${message}`);
    },
  );
}

/** Asserts that the type checker rejects `expr`. */
export function assertCheckFails(expr: string): void {
  const result = shared.check(expr);
  assert.equal(result.valid, false, `expected ${expr} to fail type checking`);
}

export function hex(value: unknown): string {
  assert.ok(value instanceof Uint8Array, 'expected bytes');
  return Buffer.from(value).toString('hex');
}
