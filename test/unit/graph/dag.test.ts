import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { analyseDag } from '../../../src/graph/dag.ts';

describe('analyseDag', () => {
  test('topological order breaks ties by declaration order', () => {
    // c depends on a; b and a are independent; declared c, b, a.
    const r = analyseDag({ ids: ['c', 'b', 'a'], deps: [[2], [], []], isDef: [false, false, false] });
    assert.deepEqual(
      r.order.map((i) => ['c', 'b', 'a'][i]),
      ['b', 'a', 'c'],
    );
    assert.deepEqual(r.cycles, []);
  });

  test('apply layers: 1 + max(deps); defs do not add a layer (design/graph.md §7.3)', () => {
    // d0 (def) ← t1 ← t2; d3 (def, depends on t1); t4 depends on d3.
    const r = analyseDag({
      ids: ['d0', 't1', 't2', 'd3', 't4'],
      deps: [[], [0], [1], [1], [3]],
      isDef: [true, false, false, true, false],
    });
    assert.deepEqual(r.layer, [0, 1, 2, 1, 2]);
  });

  test('names each cycle, starting at the node declared first', () => {
    const r = analyseDag({
      ids: ['a', 'b', 'c', 'd', 'e', 'f'],
      // a ↔ b; c → d → e → c; f alone.
      deps: [[1], [0], [3], [4], [2], []],
      isDef: [false, false, false, false, false, false],
    });
    assert.deepEqual(r.cycles, [
      ['a', 'b', 'a'],
      ['c', 'd', 'e', 'c'],
    ]);
    assert.deepEqual(r.order, []);
  });

  test('a self-loop is a cycle of one', () => {
    const r = analyseDag({ ids: ['x'], deps: [[0]], isDef: [false] });
    assert.deepEqual(r.cycles, [['x', 'x']]);
  });

  test('a long chain stays linear and deep graphs do not overflow the stack', () => {
    const n = 20000;
    const ids = Array.from({ length: n }, (_, i) => `n${i}`);
    const deps = ids.map((_, i) => (i === 0 ? [] : [i - 1]));
    const r = analyseDag({ ids, deps, isDef: ids.map(() => false) });
    assert.equal(r.order.length, n);
    assert.equal(r.layer[n - 1], n);
    const cyc = analyseDag({ ids, deps: ids.map((_, i) => [(i + n - 1) % n]), isDef: ids.map(() => false) });
    assert.equal(cyc.cycles.length, 1);
    assert.equal(cyc.cycles[0]!.length, n + 1);
  });
});
