import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { overrideBuiltin, overrideFunction } from '../../../src/cel/engineOverrides.ts';
import { baseEnvironment, CelCode, compile, evaluate } from '../../../src/cel/index.ts';
import { CLOCK_START_UNITS } from '../../../src/cel/limits.ts';

// The per-evaluation bookkeeping of the limits was cut (src/cel/limits.ts `runMetered`,
// `meteredHandler`, the clock read late): these tests hold that small expressions are still metered
// unit for unit, size-checked and timed, i.e. that no evaluation skips the limits because it is small.

const env = baseEnvironment().extend({
  variables: { schema: 'dyn', deployment: 'dyn', s: 'string', n: 'list<int>' },
});
const vars = {
  schema: {
    metadata: { name: 'web', labels: { team: 'a' } },
    spec: { name: 'web', replicas: 3n, image: 'x' },
  },
  deployment: { status: { availableReplicas: 3n } },
  s: 'x'.repeat(1000),
  n: Array.from({ length: 100 }, (_, i) => BigInt(i)),
};
const NO_CLOCK = Number.POSITIVE_INFINITY;

function program(source: string) {
  const compiled = compile(source, env);
  assert.ok(compiled.ok, source);
  return compiled.value;
}

describe('limits on small expressions', () => {
  // Minimal budgets: one unit per AST node evaluated below the root (the root is evaluated directly,
  // its value size-checked), plus each call's formula minus the "1 +" its node's step paid, plus what
  // it produced (src/cel/costs.ts).
  const exact: [source: string, units: number, why: string][] = [
    ['schema.spec.name', 2, 'schema, .spec'],
    ['-schema.spec.replicas', 3, 'schema, .spec, .replicas'],
    ['!(schema.spec.replicas > 1)', 5, '>, schema, .spec, .replicas, 1'],
    ['deployment.status.availableReplicas == schema.spec.replicas', 6, 'two reads of 3 nodes'],
    ['schema.spec.replicas > 2 ? schema.spec.replicas * 2 : 1', 10, '>: 5 nodes, *: 5 nodes'],
    [
      'has(schema.metadata.labels) && has(schema.metadata.labels.team) && has(schema.spec.image)',
      7,
      'the && tree and the has() operands',
    ],
    ['s + s', 66, '2 reads + ⌈2000/64⌉ = 32 for + + 32 for the 2,000 characters produced'],
    ['n + n', 402, '2 reads + 200 for + + 200 elements produced'],
    ['s.startsWith("xx")', 18, '2 nodes + ⌈1002/64⌉ = 16'],
  ];
  for (const [source, units, why] of exact) {
    it(`${source} costs exactly ${units} units (${why})`, () => {
      const p = program(source);
      const at = evaluate(p, vars, { limits: { maxCost: units, maxDurationMs: NO_CLOCK } });
      assert.equal(at.ok, true, at.ok ? '' : at.error.message);
      const below = evaluate(p, vars, { limits: { maxCost: units - 1, maxDurationMs: NO_CLOCK } });
      assert.equal(below.ok, false);
      if (!below.ok) assert.equal(below.error.code, CelCode.CostLimit);
      // The same through the default wall clock (read late, see limits.ts) and the default budget.
      assert.deepEqual(evaluate(p, vars, { limits: { maxCost: units } }), at);
      assert.deepEqual(evaluate(p, vars), at);
    });
  }

  it('a read, an operator result and the root are size-checked', () => {
    const tight = { limits: { maxStringLength: 999, maxListLength: 99, maxDurationMs: NO_CLOCK } };
    for (const source of ['s', 's.size()', '[n][0].size()', 'n.size()']) {
      const r = evaluate(program(source), vars, tight);
      assert.equal(r.ok, false, source);
      if (!r.ok) assert.equal(r.error.code, CelCode.SizeLimit, source);
    }
    const roomy = { limits: { maxStringLength: 1000, maxListLength: 100, maxDurationMs: NO_CLOCK } };
    assert.deepEqual(evaluate(program('s.size() + n.size()'), vars, roomy), { ok: true, value: 1100n });
    for (const source of ['s + "y"', '(s + s).size()', 'n + [1]', '(n + n).size()']) {
      const r = evaluate(program(source), vars, roomy);
      assert.equal(r.ok, false, source);
      if (!r.ok) assert.equal(r.error.code, CelCode.SizeLimit, source);
    }
  });

  it('the wall clock starts within the first units and stops a longer evaluation', () => {
    assert.ok(CLOCK_START_UNITS <= 256);
    const zero = { limits: { maxDurationMs: 0 } };
    // About 10,000 units: the clock is read at CLOCK_START_UNITS (the budget starts) and 4096 units later.
    const long = evaluate(program('n.map(a, n.map(b, a + b)).size()'), vars, zero);
    assert.equal(long.ok, false);
    if (!long.ok) assert.equal(long.error.code, CelCode.TimeLimit);
    // Under the first clock read nothing is timed, as before (the clock was read every 4096 units).
    assert.deepEqual(evaluate(program('n.map(a, a).size()'), vars, zero), { ok: true, value: 100n });
  });

  it('limits objects are merged over the defaults once per object', () => {
    // Its exact cost is 403 units.
    const p = program('n.map(a, a + 1).size()');
    const small = { limits: { maxCost: 402 } };
    const large = { limits: { maxCost: 403 } };
    for (let i = 0; i < 3; i++) {
      const r = evaluate(p, vars, small);
      assert.equal(r.ok, false);
      if (!r.ok) assert.equal(r.error.code, CelCode.CostLimit);
      assert.deepEqual(evaluate(p, vars, large), { ok: true, value: 100n });
      assert.deepEqual(evaluate(p, vars, { limits: {} }), { ok: true, value: 100n });
    }
  });

  it('an override made after a call was dispatched takes effect (the dispatch cache is reset)', () => {
    const p = program('dyn(s).endsWith("x")');
    assert.deepEqual(evaluate(p, vars), { ok: true, value: true });
    overrideBuiltin('string.endsWith(string): bool', () => false);
    try {
      assert.deepEqual(evaluate(p, vars), { ok: true, value: false });
    } finally {
      overrideFunction('string.endsWith(string): bool', (original) => original);
    }
    assert.deepEqual(evaluate(p, vars), { ok: true, value: true });
  });
});
