import assert from 'node:assert/strict';
import { type CelEnvironment, type CelError, evaluateSource } from '../../../src/cel/index.ts';

/** Evaluates and returns the value, failing the test with the CEL error otherwise. */
export function evalValue(env: CelEnvironment, source: string, vars: Record<string, unknown> = {}): unknown {
  const r = evaluateSource(source, env, vars);
  if (!r.ok) assert.fail(`${source}: ${r.error.code} ${r.error.message}`);
  return r.value.value;
}

export function typeOf(env: CelEnvironment, source: string, vars: Record<string, unknown> = {}): string {
  const r = evaluateSource(source, env, vars);
  if (!r.ok) assert.fail(`${source}: ${r.error.code} ${r.error.message}`);
  return r.value.type;
}

/** Evaluates and returns the error, failing the test if the expression succeeds. */
export function errorOf(env: CelEnvironment, source: string, vars: Record<string, unknown> = {}): CelError {
  const r = evaluateSource(source, env, vars);
  if (r.ok) assert.fail(`${source}: expected an error, got ${String(r.value.value)}`);
  return r.error;
}
