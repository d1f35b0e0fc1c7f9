import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertCelError, assertCheckFails, celEval } from './lib-support.ts';

// cel-go ext/lists.go (latest version, as kro enables it).
describe('cel-go lists extension', () => {
  it('slice', () => {
    assert.deepEqual(celEval('[1, 2, 3, 4].slice(1, 3)'), [2n, 3n]);
    assert.deepEqual(celEval('[1, 2].slice(2, 2)'), []);
    assertCelError('[1, 2].slice(-1, 1)', 'cannot slice(-1, 1), negative indexes not supported');
    assertCelError(
      '[1, 2].slice(2, 1)',
      'cannot slice(2, 1), start index must be less than or equal to end index',
    );
    assertCelError('[1, 2].slice(0, 3)', 'cannot slice(0, 3), list is length 2');
  });

  it('flatten with and without depth', () => {
    assert.deepEqual(celEval('[1, [2, 3], [4]].flatten()'), [1n, 2n, 3n, 4n]);
    assert.deepEqual(celEval('[1, [2, [3, 4]]].flatten()'), [1n, 2n, [3n, 4n]]);
    assert.deepEqual(celEval('[1, 2, [], [], [3, 4]].flatten()'), [1n, 2n, 3n, 4n]);
    assert.deepEqual(celEval('[1, [2, [3, [4]]]].flatten(2)'), [1n, 2n, 3n, [4n]]);
    assert.deepEqual(celEval('[1, [2]].flatten(0)'), [1n, [2n]]);
    assertCelError('[1, [2]].flatten(-1)', 'level must be non-negative');
  });

  it('sort orders comparable elements of one type', () => {
    assert.deepEqual(celEval('[3, 1, 2].sort()'), [1n, 2n, 3n]);
    assert.deepEqual(celEval('["b", "c", "a"].sort()'), ['a', 'b', 'c']);
    assert.deepEqual(celEval('["\\uffff", "😀", "a"].sort()'), ['a', '\uffff', '😀']);
    assert.deepEqual(celEval('[true, false].sort()'), [false, true]);
    assert.deepEqual(celEval('[2.5, -1.0].sort()'), [-1, 2.5]);
    assert.deepEqual(celEval('[].sort()'), []);
    assertCelError('[1, "b"].sort()', 'list elements must have the same type');
    assertCelError('[[1, 2, 3]].sort()', 'list elements must be comparable');
  });

  it('distinct keeps first occurrences, with CEL equality', () => {
    assert.deepEqual(celEval('[1, 2, 2, 3, 3, 3].distinct()'), [1n, 2n, 3n]);
    assert.deepEqual(celEval('["b", "b", "c", "a", "c"].distinct()'), ['b', 'c', 'a']);
    assert.deepEqual(celEval('[1, "b", 2, "b"].distinct()'), [1n, 'b', 2n]);
    assert.deepEqual(celEval('[[1], [1], [2]].distinct()'), [[1n], [2n]]);
  });

  it('reverse and lists.range', () => {
    assert.deepEqual(celEval('[5, 3, 1, 2].reverse()'), [2n, 1n, 3n, 5n]);
    assert.deepEqual(celEval('lists.range(5)'), [0n, 1n, 2n, 3n, 4n]);
    assert.deepEqual(celEval('lists.range(0)'), []);
    assertCelError('lists.range(-1)', 'lists.range: size must be non-negative, got -1');
    assertCelError('lists.range(10000001)', 'exceeds maximum allowed (10000000)');
    assert.equal(celEval('lists.range(3).map(i, i * 2)[2]'), 4n);
    assertCheckFails('lists.range("3")');
  });
});

// k8s.io/apiserver/pkg/cel/library/lists.go
describe('Kubernetes lists library', () => {
  it('isSorted', () => {
    assert.equal(celEval('[1, 2, 2, 3].isSorted()'), true);
    assert.equal(celEval('[3, 1].isSorted()'), false);
    assert.equal(celEval('["a", "b"].isSorted()'), true);
    assert.equal(celEval('[].isSorted()'), true);
  });

  it('sum of ints, doubles, uints and durations', () => {
    assert.equal(celEval('[1, 2, 3].sum()'), 6n);
    assert.equal(celEval('[1.5, 2.0].sum()'), 3.5);
    assert.equal(celEval('[1u, 2u].sum() == 3u'), true);
    assert.equal(celEval('[duration("1s"), duration("500ms")].sum() == duration("1.5s")'), true);
    assert.equal(celEval('xs.sum()', { xs: [] }), 0n);
    assertCelError('[9223372036854775807, 1].sum()', 'overflow');
  });

  it('min and max', () => {
    assert.equal(celEval('[3, 1, 2].min()'), 1n);
    assert.equal(celEval('[3, 1, 2].max()'), 3n);
    assert.equal(celEval('["b", "a"].min()'), 'a');
    assertCelError('xs.min()', 'min called on empty list', { xs: [] });
    assertCelError('xs.max()', 'max called on empty list', { xs: [] });
  });

  it('indexOf and lastIndexOf', () => {
    assert.equal(celEval('[1, 2, 1].indexOf(1)'), 0n);
    assert.equal(celEval('[1, 2, 1].lastIndexOf(1)'), 2n);
    assert.equal(celEval('[1, 2].indexOf(5)'), -1n);
    assert.equal(celEval('[[1], [2]].indexOf([2])'), 1n);
    assert.equal(celEval('["a", "b", "a"].lastIndexOf("a")'), 2n);
  });

  it('includes (lists library version 1)', () => {
    assert.equal(celEval('[1, 2, 3].includes(2)'), true);
    assert.equal(celEval('[1, 2, 3].includes(4)'), false);
    assert.equal(celEval('[[1], [2]].includes([2])'), true);
    assert.equal(celEval('"a".includes("a")'), true);
  });
});

// kro pkg/cel/library/lists.go (kubernetes-sigs/kro); examples are kro's doc comments.
describe('kro lists library', () => {
  it('setAtIndex', () => {
    assert.deepEqual(celEval('lists.setAtIndex([1, 2, 3], 1, 99)'), [1n, 99n, 3n]);
    assert.deepEqual(celEval('lists.setAtIndex(["a", "b", "c"], 0, "z")'), ['z', 'b', 'c']);
    assertCelError('lists.setAtIndex([1, 2, 3], 3, 0)', 'lists.setAtIndex: index 3 out of bounds [0, 3)');
    assertCelError('lists.setAtIndex([1], -1, 0)', 'lists.setAtIndex: index -1 out of bounds [0, 1)');
  });

  it('insertAtIndex', () => {
    assert.deepEqual(celEval('lists.insertAtIndex([1, 2, 3], 1, 99)'), [1n, 99n, 2n, 3n]);
    assert.deepEqual(celEval('lists.insertAtIndex([1, 2, 3], 0, 99)'), [99n, 1n, 2n, 3n]);
    assert.deepEqual(celEval('lists.insertAtIndex([1, 2, 3], 3, 99)'), [1n, 2n, 3n, 99n]);
    assertCelError(
      'lists.insertAtIndex([1, 2, 3], 4, 99)',
      'lists.insertAtIndex: index 4 out of bounds [0, 3]',
    );
  });

  it('removeAtIndex', () => {
    assert.deepEqual(celEval('lists.removeAtIndex([1, 2, 3], 1)'), [1n, 3n]);
    assert.deepEqual(celEval('lists.removeAtIndex([1, 2, 3], 0)'), [2n, 3n]);
    assert.deepEqual(celEval('lists.removeAtIndex([1, 2, 3], 2)'), [1n, 2n]);
    assertCelError('lists.removeAtIndex([], 0)', 'lists.removeAtIndex: index 0 out of bounds [0, 0)');
  });

  it('accepts values of another type in a dyn list', () => {
    assert.deepEqual(celEval('lists.setAtIndex(xs, 0, "a")', { xs: [1n, 2n] }), ['a', 2n]);
    assert.deepEqual(celEval('lists.insertAtIndex(xs, 1, "a")', { xs: [1n, 2n] }), [1n, 'a', 2n]);
  });

  it('does not modify its input', () => {
    const xs = [1n, 2n];
    celEval('lists.setAtIndex(xs, 0, 5)', { xs });
    assert.deepEqual(xs, [1n, 2n]);
  });
});
