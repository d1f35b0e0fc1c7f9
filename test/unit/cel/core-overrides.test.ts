import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { baseEnvironment, CelCode } from '../../../src/cel/index.ts';
import { errorOf, evalValue } from './core.helpers.ts';

/** Built-in behaviour fixed by replacing engine handlers (src/cel/fixes.ts, src/cel/engineOverrides.ts). */
const env = baseEnvironment();
const v = (s: string) => evalValue(env, s);

describe('engine fixes', () => {
  it('integer overflow on negation, division and modulo of -2^63', () => {
    assert.equal(errorOf(env, '-(-9223372036854775808)').code, CelCode.Overflow);
    assert.equal(errorOf(env, '(-9223372036854775808) / -1').code, CelCode.Overflow);
    assert.equal(errorOf(env, '(-9223372036854775808) % -1').code, CelCode.Overflow);
    assert.equal(v('-(5)'), -5n);
    assert.equal(v('7 / -2'), -3n);
    assert.equal(errorOf(env, '1 / 0').code, CelCode.DivisionByZero);
  });

  it('timestamp and duration range errors', () => {
    assert.equal(errorOf(env, 'timestamp("9999-12-31T23:59:59Z") + duration("1s")').code, CelCode.Overflow);
    assert.equal(errorOf(env, 'timestamp("0001-01-01T00:00:00Z") - duration("1s")').code, CelCode.Overflow);
    assert.equal(errorOf(env, 'duration("320000000000s")').code, CelCode.Overflow);
    assert.equal(
      errorOf(env, 'duration("200000000000s") + duration("200000000000s")').code,
      CelCode.Overflow,
    );
    assert.equal(
      errorOf(env, 'timestamp("9999-12-31T23:59:59Z") - timestamp("0001-01-01T00:00:00Z")').code,
      CelCode.Overflow,
    );
    assert.equal(
      v('timestamp("2020-01-01T00:00:10Z") - timestamp("2020-01-01T00:00:00Z") == duration("10s")'),
      true,
    );
  });

  it('duration + timestamp is a timestamp', () => {
    assert.equal(
      v('duration("120s") + timestamp("2009-02-13T23:01:00Z") == timestamp("2009-02-13T23:03:00Z")'),
      true,
    );
  });

  it('duration getMilliseconds is the millisecond component, like cel-go', () => {
    assert.equal(v('duration("123.321456789s").getMilliseconds()'), 321n);
  });

  it('int/double ordering converts the int to double, like cel-go', () => {
    assert.equal(v('dyn(9223372036854775807) < 9223372036854775808.0'), false);
    assert.equal(v('dyn(9223372036854775807) >= 9223372036854775808.0'), true);
    assert.equal(v('1 < 1.5'), true);
  });

  it('numeric equality across kinds inside lists, maps and in', () => {
    assert.equal(v('[1.0, 2.0, 3] == [1u, 2, 3u]'), true);
    assert.equal(v('dyn(3u) in [5, 4, 3]'), true);
    assert.equal(v('dyn(3.0) in [5u, 3u]'), true);
    assert.equal(v('dyn(3.5) in [3, 4]'), false);
    assert.equal(v('{"a": dyn(1)} == {"a": dyn(1.0)}'), true);
    assert.equal(v('["a"] == ["b"]'), false);
  });

  it('int(double) rejects values outside int64', () => {
    assert.equal(errorOf(env, 'int(9223372036854775807.0)').code, CelCode.Overflow);
    assert.equal(errorOf(env, 'int(-9223372036854775808.0)').code, CelCode.Overflow);
    assert.equal(errorOf(env, 'int(1e99)').code, CelCode.Overflow);
    assert.equal(v('int(-2.7)'), -2n);
  });

  it('string(bytes) requires valid UTF-8', () => {
    assert.equal(errorOf(env, "string(b'\\000\\xff')").kind, 'evaluation');
    assert.equal(v("string(b'\\303\\277')"), 'ÿ');
  });

  it('timestamp accessors accept fixed offsets and IANA zones', () => {
    const ts = 'timestamp("2009-02-13T23:31:30Z")';
    assert.equal(v(`${ts}.getDayOfMonth("+11:00")`), 13n);
    assert.equal(v(`${ts}.getHours("02:00")`), 1n);
    assert.equal(v(`${ts}.getFullYear("-09:30")`), 2009n);
    assert.equal(v(`${ts}.getMinutes("Asia/Kathmandu")`), 16n);
    assert.equal(v(`${ts}.getDayOfYear("US/Central")`), 43n);
    const e = errorOf(env, `${ts}.getHours("Nowhere/Zone")`);
    assert.match(e.message, /invalid time zone/);
    assert.ok(e.end > ts.length, 'covers the call');
  });
});
