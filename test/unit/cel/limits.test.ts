import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { baseEnvironment, CelCode, compile, evaluate } from '../../../src/cel/index.ts';

const env = baseEnvironment().extend({ variables: { n: 'list<int>' } });
const hundred = Array.from({ length: 100 }, (_, i) => BigInt(i));

function run(source: string, limits?: Parameters<typeof evaluate>[2]) {
  const program = compile(source, env);
  assert.ok(program.ok, source);
  const started = performance.now();
  // Cost and size limits are deterministic; the wall clock (tested on its own below) is off so that
  // a loaded machine cannot turn a cost-limit case into a time-limit one.
  const result = evaluate(
    program.value,
    { n: hundred },
    limits ?? { limits: { maxDurationMs: Number.POSITIVE_INFINITY } },
  );
  return { result, ms: performance.now() - started };
}

describe('evaluation limits', () => {
  it('nested comprehensions stop at the cost budget', () => {
    const { result, ms } = run('n.map(a, n.map(b, n.map(c, a * b + c))).size()');
    assert.equal(result.ok, false);
    if (result.ok) return;
    assert.equal(result.error.code, CelCode.CostLimit);
    assert.equal(result.error.kind, 'limit');
    assert.match(result.error.message, /cost limit exceeded/);
    assert.ok(ms < 5_000, `stopped in ${ms} ms`);
  });

  it('nested lists.range comprehensions fail with a limit error instead of hanging', () => {
    const { result, ms } = run('lists.range(1000).map(i, lists.range(1000).map(j, i + j)).size()');
    assert.equal(result.ok, false);
    if (!result.ok) assert.equal(result.error.code, CelCode.CostLimit);
    assert.ok(ms < 5_000, `stopped in ${ms} ms`);
    const big = run('lists.range(5000000).size()');
    assert.equal(big.result.ok, false);
    // Charged before it is built: the cost budget (5,000,001 units) or the list limit stops it.
    if (!big.result.ok)
      assert.ok([CelCode.CostLimit, CelCode.SizeLimit].includes(big.result.error.code as never));
  });

  it('a limit error swallowed by || or a quantifier still fails the evaluation', () => {
    const viaOr = run('n.map(a, n.map(b, n.map(c, a * b + c))).size() > 0 || true');
    assert.equal(viaOr.result.ok, false);
    const viaExists = run('n.exists(a, n.map(b, n.map(c, a * b + c)).size() < 0)');
    assert.equal(viaExists.result.ok, false);
    if (!viaExists.result.ok) assert.equal(viaExists.result.error.code, CelCode.CostLimit);
  });

  it("a string a function builds is charged by its length at building speed, an operator's at scan speed", () => {
    // Three replaces build 100, 1,000 and 10,000 characters: ≈ 1,530 units when the output is charged at
    // 8 characters a unit (≈ 320 at scan speed, which let 300 × 300 such chains run for over a second).
    const chain =
      "'aaaaaaaaaa'.replace('a', 'aaaaaaaaaa').replace('a', 'aaaaaaaaaa').replace('a', 'aaaaaaaaaa')";
    const tight = { limits: { maxCost: 1_300, maxDurationMs: Number.POSITIVE_INFINITY } };
    const built = run(`${chain}.size()`, tight).result;
    assert.equal(built.ok, false);
    if (!built.ok) assert.equal(built.error.code, CelCode.CostLimit);
    const roomy = run(`${chain}.size()`, {
      limits: { maxCost: 2_000, maxDurationMs: Number.POSITIVE_INFINITY },
    });
    assert.deepEqual(roomy.result.ok && roomy.result.value, 10_000n);
    // `+` joins two 10,000-character strings natively: 2 × ⌈20,000/64⌉ = 626 units more (its formula and
    // the output at scan speed; 2,813 if the output were charged at building speed).
    const joined = run(`cel.bind(s, ${chain}, s + s).size()`, {
      limits: { maxCost: 2_500, maxDurationMs: Number.POSITIVE_INFINITY },
    });
    assert.deepEqual(joined.result.ok && joined.result.value, 20_000n);
  });

  it('doubling strings stop at the size limit', () => {
    // cel.bind(s30, s29+s29, … cel.bind(s1, s0+s0, s30)) would build 2^30 characters.
    let expr = 's30.size()';
    for (let i = 30; i >= 1; i--) expr = `cel.bind(s${i}, s${i - 1} + s${i - 1}, ${expr})`;
    expr = `cel.bind(s0, "xx", ${expr})`;
    const { result } = run(expr);
    assert.equal(result.ok, false);
    if (result.ok) return;
    assert.equal(result.error.code, CelCode.SizeLimit);
  });

  it('the wall-clock guard fires when the cost budget is generous', () => {
    const { result, ms } = run('n.map(a, n.map(b, n.map(c, a * b + c))).size()', {
      limits: { maxCost: Number.MAX_SAFE_INTEGER, maxDurationMs: 50, maxListLength: 10_000_000 },
    });
    assert.equal(result.ok, false);
    if (result.ok) return;
    assert.equal(result.error.code, CelCode.TimeLimit);
    assert.ok(ms < 2_000, `stopped in ${ms} ms`);
  });

  it('ordinary expressions are unaffected and limits can be disabled', () => {
    const { result } = run('n.map(a, a * 2).filter(x, x > 10).size()');
    assert.deepEqual(result, { ok: true, value: 94n });
    const small = run('n.map(a, n.map(b, a + b)).size()', { limits: false });
    assert.deepEqual(small.result, { ok: true, value: 100n });
  });

  it('a budget is per evaluation, not cumulative', () => {
    const program = compile('n.map(a, n.map(b, a + b)).size()', env);
    assert.ok(program.ok);
    for (let i = 0; i < 5; i++) {
      assert.deepEqual(evaluate(program.value, { n: hundred }, { limits: { maxCost: 50_000 } }), {
        ok: true,
        value: 100n,
      });
    }
  });
});
