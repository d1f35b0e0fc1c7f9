import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { baseEnvironment, CelCode, compile, evaluate } from '../../../src/cel/index.ts';
import { fuzzHostileExpressions, HOSTILE_EXPRESSIONS } from '../../support/hostileCel.ts';

const env = baseEnvironment().extend({ undeclaredAreDyn: true });
const LIMIT_CODES = new Set<string>([CelCode.CostLimit, CelCode.SizeLimit, CelCode.TimeLimit]);

/** CPU milliseconds (user + system) of one evaluation under the default limits, wall clock off. */
function runOne(source: string): { cpuMs: number; outcome: string } {
  const program = compile(source, env);
  if (!program.ok) {
    assert.ok(program.error.position >= 0 && program.error.position <= source.length, source);
    return { cpuMs: 0, outcome: program.error.code };
  }
  const before = process.cpuUsage();
  const result = evaluate(program.value, {}, { limits: { maxDurationMs: Number.POSITIVE_INFINITY } });
  const used = process.cpuUsage(before);
  const cpuMs = (used.user + used.system) / 1000;
  if (result.ok) return { cpuMs, outcome: 'value' };
  const { code, position, end } = result.error;
  assert.match(code, /^KG1\d{3}$/, source);
  assert.ok(position >= 0 && end >= position && position <= source.length, `${source}: ${position}-${end}`);
  return { cpuMs, outcome: code };
}

describe('hostile CEL expressions end in < 1 s CPU with a value or a located error', () => {
  it('the corpus (the issue’s bombs, every library with huge inputs)', () => {
    let worst = { cpuMs: 0, source: '' };
    for (const source of HOSTILE_EXPRESSIONS) {
      const { cpuMs, outcome } = runOne(source);
      assert.ok(cpuMs < 1000, `${cpuMs.toFixed(0)} ms CPU: ${source.slice(0, 120)} → ${outcome}`);
      if (cpuMs > worst.cpuMs) worst = { cpuMs, source };
    }
    // The two bombs of the issue: one is now linear, the other refused before it is built.
    assert.equal(runOne('lists.range(100000).distinct().size()').outcome, 'value');
    assert.ok(LIMIT_CODES.has(runOne('lists.range(1000000)').outcome));
  });

  it('a seeded fuzz corpus (200 expressions, seed 10)', () => {
    for (const source of fuzzHostileExpressions(10, 200)) {
      const { cpuMs, outcome } = runOne(source);
      assert.ok(cpuMs < 1000, `${cpuMs.toFixed(0)} ms CPU: ${source.slice(0, 160)} → ${outcome}`);
    }
  });
});
