import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { baseEnvironment, CelCode, check } from '../../../src/cel/index.ts';
import { errorOf, evalValue, typeOf } from './core.helpers.ts';

const env = baseEnvironment().extend({ variables: { o: 'dyn' } });
const vars = { o: { a: 1n, s: '', list: [] } };
const v = (s: string) => evalValue(env, s, vars);

describe('optionals', () => {
  it('optional field and index access with orValue/hasValue/value/or', () => {
    assert.equal(v('o.?a.orValue(0)'), 1n);
    assert.equal(v('o.?b.orValue(0)'), 0n);
    assert.equal(v('o.?b.hasValue()'), false);
    assert.equal(v('o[?"a"].value()'), 1n);
    assert.equal(v('o.?b.or(o.?a).value()'), 1n);
    assert.equal(v('o.list[?0].orValue(7)'), 7n);
  });

  it('optMap maps a present value and passes none through', () => {
    assert.equal(v('optional.of(2).optMap(x, x * 3).value()'), 6n);
    assert.equal(v('optional.none().optMap(x, x * 3).hasValue()'), false);
    assert.equal(v('o.?a.optMap(x, x + 1).orValue(0)'), 2n);
    assert.equal(v('o.?b.optMap(x, x + 1).orValue(0)'), 0n);
    assert.equal(typeOf(env, 'optional.of(2).optMap(x, string(x))'), 'optional<string>');
  });

  it('optFlatMap chains optionals', () => {
    assert.equal(v('optional.of(2).optFlatMap(x, x > 1 ? optional.of(x) : optional.none()).value()'), 2n);
    assert.equal(
      v('optional.of(1).optFlatMap(x, x > 1 ? optional.of(x) : optional.none()).hasValue()'),
      false,
    );
    assert.equal(v('optional.none().optFlatMap(x, optional.of(x)).hasValue()'), false);
    assert.equal(errorOf(env, 'optional.of(1).optFlatMap(x, x)').code, CelCode.Type);
    assert.equal(errorOf(env, '"s".optMap(x, x)').code, CelCode.Type);
  });

  it('optional.ofNonZeroValue treats zero values as none', () => {
    for (const zero of ['0', '0u', '0.0', '""', 'b""', '[]', '{}', 'false', 'null', 'duration("0s")']) {
      assert.equal(v(`optional.ofNonZeroValue(${zero}).hasValue()`), false, zero);
    }
    for (const nonZero of ['1', '"x"', '[0]', '{"a": 0}', 'true', 'duration("1s")']) {
      assert.equal(v(`optional.ofNonZeroValue(${nonZero}).hasValue()`), true, nonZero);
    }
    assert.equal(v('optional.ofNonZeroValue(o.s).orValue("default")'), 'default');
  });

  it('orValue(null) on an optional timestamp, duration or object is accepted (dyn, null when absent), as cel-go does', () => {
    // kro's dependency_readiness scenario: `job1.status.?completionTime.orValue(null) != null`.
    const job = baseEnvironment().extend({
      setup: (e) =>
        e.registerType({ name: 'JobStatus', schema: { completionTime: 'google.protobuf.Timestamp' } }),
      variables: { status: 'JobStatus' },
    });
    const done = new Date('2026-01-02T03:04:05Z');
    const source = 'status.?completionTime.orValue(null) != null';
    assert.deepEqual(check(source, job), { ok: true, value: 'bool' });
    assert.equal(evalValue(job, source, { status: {} }), false);
    assert.equal(evalValue(job, source, { status: { completionTime: done } }), true);
    assert.equal(evalValue(job, 'status.?completionTime.orValue(null) == null', { status: {} }), true);
    assert.deepEqual(check('status.?completionTime.orValue(null)', job), { ok: true, value: 'dyn' });
    assert.equal(evalValue(job, 'status.?completionTime.orValue(null)', { status: {} }), null);
    assert.deepEqual(check('optional.of(duration("1s")).orValue(null)', env), { ok: true, value: 'dyn' });
    assert.deepEqual(check('optional.of(status).orValue(null)', job), { ok: true, value: 'dyn' });
    // Not nullable in cel-go either: scalars, lists and maps.
    for (const value of ['1', '"s"', '[1]', '{"a": 1}']) {
      assert.equal(errorOf(env, `optional.of(${value}).orValue(null)`).code, CelCode.Type, value);
    }
  });

  it('a ternary joins null with a timestamp, duration or object (dyn), as cel-go does', () => {
    const job = baseEnvironment().extend({
      setup: (e) =>
        e.registerType({ name: 'JobStatus', schema: { completionTime: 'google.protobuf.Timestamp' } }),
      variables: { status: 'JobStatus', done: 'bool' },
    });
    const at = new Date('2026-01-02T03:04:05Z');
    const source = 'done ? timestamp("2026-01-02T03:04:05Z") : null';
    assert.deepEqual(check(source, job), { ok: true, value: 'dyn' });
    assert.deepEqual(check('done ? null : duration("1s")', job), { ok: true, value: 'dyn' });
    assert.deepEqual(check('done ? status : null', job), { ok: true, value: 'dyn' });
    assert.deepEqual(evalValue(job, source, { done: true, status: {} }), at);
    assert.equal(evalValue(job, source, { done: false, status: {} }), null);
    assert.equal(evalValue(job, `(${source}) == null`, { done: false, status: {} }), true);
    assert.equal(evalValue(job, `(${source}) != null`, { done: true, status: {} }), true);
    // Not nullable in cel-go either: scalars, lists and maps.
    for (const value of ['1', '"s"', '[1]', '{"a": 1}']) {
      assert.equal(errorOf(job, `done ? ${value} : null`).code, CelCode.Type, value);
    }
  });

  it('optional entries in list and map literals (rewritten by our layer)', () => {
    assert.deepEqual(v('[?o.?a, ?o.?missing, 3]'), [1n, 3n]);
    assert.deepEqual(v('{?"x": o.?a, ?"y": o.?missing}'), { x: 1n });
  });
});
