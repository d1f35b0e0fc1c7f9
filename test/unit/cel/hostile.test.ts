import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { baseEnvironment, CelCode, compile, evaluate } from '../../../src/cel/index.ts';
import { fuzzHostileExpressions, HOSTILE_EXPRESSIONS } from '../../support/hostileCel.ts';

const env = baseEnvironment().extend({ undeclaredAreDyn: true });
const LIMIT_CODES = new Set<string>([CelCode.CostLimit, CelCode.SizeLimit, CelCode.TimeLimit]);

/**
 * The outcome of one evaluation under the default cost and size limits with the wall clock off, so
 * only the deterministic limits can stop it: a value, or a located KG1xxx error. How fast each ends
 * is measured in bench/hostile-cel.bench.ts (median CPU per expression), not here; the tests'
 * timeouts only catch an expression that the limits fail to stop at all.
 */
function runOne(source: string): { outcome: string } {
  const program = compile(source, env);
  if (!program.ok) {
    assert.ok(program.error.position >= 0 && program.error.position <= source.length, source);
    return { outcome: program.error.code };
  }
  const result = evaluate(program.value, {}, { limits: { maxDurationMs: Number.POSITIVE_INFINITY } });
  if (result.ok) return { outcome: 'value' };
  const { code, position, end } = result.error;
  assert.match(code, /^KG1\d{3}$/, source);
  assert.ok(position >= 0 && end >= position && position <= source.length, `${source}: ${position}-${end}`);
  return { outcome: code };
}

describe('hostile CEL expressions are stopped by the cost and size limits with a value or a located error', () => {
  it('the corpus (the issue’s bombs, every library with huge inputs)', { timeout: 60_000 }, () => {
    for (const source of HOSTILE_EXPRESSIONS) runOne(source);
    // The two bombs of the issue: one is now linear, the other refused before it is built.
    assert.equal(runOne('lists.range(100000).distinct().size()').outcome, 'value');
    assert.ok(LIMIT_CODES.has(runOne('lists.range(1000000)').outcome));
  });

  it('a seeded fuzz corpus (200 expressions, seed 10)', { timeout: 60_000 }, () => {
    for (const source of fuzzHostileExpressions(10, 200)) runOne(source);
  });
});
