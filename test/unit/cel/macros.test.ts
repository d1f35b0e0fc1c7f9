import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { baseEnvironment, CelCode } from '../../../src/cel/index.ts';
import { errorOf, evalValue, typeOf } from './core.helpers.ts';

const env = baseEnvironment().extend({ variables: { m: 'map<string, int>', l: 'list<int>', d: 'dyn' } });
const vars = {
  m: { a: 1n, b: 2n },
  l: [10n, 20n, 30n],
  d: [
    { n: 'b', p: 2n },
    { n: 'a', p: 1n },
    { n: 'c', p: 1n },
  ],
};
const v = (s: string) => evalValue(env, s, vars);

describe('two-variable comprehensions', () => {
  it('all(k, v, p) over maps and lists', () => {
    assert.equal(v('m.all(k, v, v > 0 && k != "")'), true);
    assert.equal(v('m.all(k, v, v > 1)'), false);
    assert.equal(v('l.all(i, x, x == (i + 1) * 10)'), true);
  });

  it('exists(k, v, p)', () => {
    assert.equal(v('m.exists(k, v, k == "b" && v == 2)'), true);
    assert.equal(v('m.exists(k, v, k == "b" && v == 3)'), false);
    assert.equal(v('[].exists(i, x, true)'), false);
  });

  it('existsOne with two variables and with one', () => {
    assert.equal(v('l.existsOne(i, x, i >= 1)'), false);
    assert.equal(v('l.existsOne(i, x, i == 1)'), true);
    assert.equal(v('l.existsOne(x, x > 25)'), true);
  });

  it('an error is absorbed when another element decides all/exists, like cel-go', () => {
    assert.equal(v('l.all(i, x, x / (i - 1) < 0)'), false);
    assert.equal(v('l.exists(i, x, x / (i - 1) < 0)'), true);
    assert.equal(errorOf(env, 'l.all(i, x, x / (i - 1) > -100)', vars).code, CelCode.DivisionByZero);
  });

  it('transformList with and without a filter', () => {
    assert.deepEqual(v('l.transformList(i, x, i * x)'), [0n, 20n, 60n]);
    assert.deepEqual(v('l.transformList(i, x, i > 0, x)'), [20n, 30n]);
    assert.deepEqual(v('m.transformList(k, x, k + string(x))'), ['a1', 'b2']);
    assert.equal(typeOf(env, 'l.transformList(i, x, string(x))', vars), 'list<string>');
  });

  it('transformMap keeps keys and maps values', () => {
    assert.deepEqual(v('m.transformMap(k, x, x * 10)'), { a: 10n, b: 20n });
    assert.deepEqual(v('m.transformMap(k, x, x > 1, k)'), { b: 'b' });
    assert.equal(typeOf(env, 'm.transformMap(k, x, x * 10)', vars), 'map<string, int>');
    assert.deepEqual(
      v('l.transformMap(i, x, x)'),
      new Map([
        [0n, 10n],
        [1n, 20n],
        [2n, 30n],
      ]),
    );
  });

  it('transformMapEntry builds new entries and rejects duplicate keys', () => {
    assert.deepEqual(v('m.transformMapEntry(k, x, {k + "!": x + 1})'), { 'a!': 2n, 'b!': 3n });
    assert.deepEqual(v('m.transformMapEntry(k, x, x > 1, {k: x})'), { b: 2n });
    const err = errorOf(env, 'm.transformMapEntry(k, x, {"same": x})', vars);
    assert.match(err.message, /key "same" already exists/);
  });

  it('nests and shadows correctly', () => {
    assert.deepEqual(v('[[1, 2], [3]].transformList(i, x, x.transformList(j, y, y + i))'), [[1n, 2n], [4n]]);
    assert.equal(v('m.all(k, x, l.exists(k, x, x == 20))'), true);
  });

  it('rejects bad variables and non-bool predicates', () => {
    assert.equal(errorOf(env, 'm.all(k, k, true)').code, CelCode.Syntax);
    assert.equal(errorOf(env, 'm.all(1, x, true)').code, CelCode.Syntax);
    assert.equal(errorOf(env, 'm.all(k, x, x)', vars).code, CelCode.Type);
    assert.equal(errorOf(env, 'l.transformList(i, x, x, x)', vars).code, CelCode.Type);
    assert.equal(errorOf(env, '"s".all(k, x, true)').code, CelCode.Type);
  });
});

describe('sortBy', () => {
  it('sorts stably by a computed key', () => {
    assert.deepEqual(v('d.sortBy(x, x.p).map(x, x.n)'), ['a', 'c', 'b']);
    assert.deepEqual(v('d.sortBy(x, x.n).map(x, x.n)'), ['a', 'b', 'c']);
    assert.deepEqual(v('[3, 1, 2].sortBy(x, -x)'), [3n, 2n, 1n]);
    assert.deepEqual(v('["b", "a"].sortBy(s, s)'), ['a', 'b']);
    assert.deepEqual(v('[duration("2s"), duration("1s")].sortBy(x, x).map(x, string(x))'), ['1s', '2s']);
    assert.equal(typeOf(env, '[3, 1].sortBy(x, x)'), 'list<int>');
  });

  it('rejects incomparable keys', () => {
    assert.equal(errorOf(env, '[[1]].sortBy(x, x)').code, CelCode.Type);
    assert.equal(errorOf(env, 'd.sortBy(x, x.p == 1 ? 1 : "a")', vars).code, CelCode.Type);
    assert.equal(errorOf(env, '[1, "a"].sortBy(x, dyn(x))').code, CelCode.NoSuchOverload);
  });
});

describe('conversions the engine lacks', () => {
  it('string(timestamp) prints RFC 3339 like cel-go', () => {
    assert.equal(v('string(timestamp("2020-01-01T00:00:00Z"))'), '2020-01-01T00:00:00Z');
    assert.equal(v('string(timestamp("2020-01-01T10:00:00.120+02:00"))'), '2020-01-01T08:00:00.12Z');
  });

  it('string(duration) prints seconds', () => {
    assert.equal(v('string(duration("1.5s"))'), '1.5s');
    assert.equal(v('string(duration("1m"))'), '60s');
    assert.equal(v('string(duration("-1ms"))'), '-0.001s');
  });

  it('int(timestamp) is unix seconds', () => {
    assert.equal(v('int(timestamp("2020-01-01T00:00:00Z"))'), 1577836800n);
    assert.equal(v('int(timestamp("1969-12-31T23:59:59.5Z"))'), -1n);
  });

  it('int(uint) converts and detects overflow', () => {
    assert.equal(v('int(42u)'), 42n);
    assert.equal(errorOf(env, 'int(18446744073709551615u)').code, CelCode.Overflow);
  });

  it('identity conversions of timestamps and durations', () => {
    assert.equal(
      v('timestamp(timestamp("2020-01-01T00:00:00Z")) == timestamp("2020-01-01T00:00:00Z")'),
      true,
    );
    assert.equal(v('duration(duration("1s")) == duration("1s")'), true);
  });
});
