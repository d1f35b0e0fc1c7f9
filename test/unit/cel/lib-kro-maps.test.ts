import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertCheckFails, celEval } from './lib-support.ts';

// kro pkg/cel/library/maps.go; the merge cases are kro's maps_test.go (argument wins).
describe('kro maps library', () => {
  it('merge (kro maps_test.go cases)', () => {
    assert.equal(celEval('{}.merge({}) == {}'), true);
    assert.equal(celEval("{}.merge({'a': 1}) == {'a': 1}"), true);
    assert.equal(celEval("{}.merge({'a': 2.1}) == {'a': 2.1}"), true);
    assert.equal(celEval("{}.merge({'a': 'foo'}) == {'a': 'foo'}"), true);
    assert.equal(celEval("{'a': 1}.merge({}) == {'a': 1}"), true);
    assert.equal(celEval("{'a': 1}.merge({'b': 2}) == {'a': 1, 'b': 2}"), true);
    assert.equal(celEval("{'a': 1}.merge({'a': 2, 'b': 2}) == {'a': 2, 'b': 2}"), true);
    assertCheckFails('{}.merge([])');
  });

  it('merge accepts dyn maps whose value types differ', () => {
    assert.deepEqual(celEval('m.merge({"z": 1})', { m: { a: { b: 1n } } }), { a: { b: 1n }, z: 1n });
    assert.deepEqual(celEval('{"a": "x"}.merge(dyn({"b": 1}))'), { a: 'x', b: 1n });
  });

  it('merge is shallow', () => {
    assert.deepEqual(celEval("{'a': {'x': 1}}.merge({'a': {'y': 2}})"), { a: { y: 2n } });
  });

  it('deepMerge merges nested maps and replaces lists and scalars', () => {
    assert.deepEqual(celEval("{'a': {'x': 1, 'l': [1]}, 'k': 1}.deepMerge({'a': {'y': 2, 'l': [2]}})"), {
      a: { x: 1n, y: 2n, l: [2n] },
      k: 1n,
    });
    assert.deepEqual(celEval("{'a': {'x': 1}}.deepMerge({'a': 'scalar'})"), { a: 'scalar' });
    assert.deepEqual(celEval("{'a': 'scalar'}.deepMerge({'a': {'x': 1}})"), { a: { x: 1n } });
    assert.deepEqual(celEval('{}.deepMerge({})'), {});
  });

  it('does not modify its inputs', () => {
    const left = { a: { x: 1n } };
    celEval('l.deepMerge({"a": {"y": 2}})', { l: left });
    assert.deepEqual(left, { a: { x: 1n } });
  });
});
