/**
 * The prune-storm guard (design/planes.md §12.3): three prunes of one object within the window hold the
 * instance (the second is reported as a repeat); prunes spread wider than the window, or of different
 * objects, do not; a new generation or the end of the hold releases it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PruneStormGuard, stormMessage } from '../../../../src/controller/planes/pruneStorm.ts';

describe('PruneStormGuard', () => {
  const opts = { threshold: 3, windowMs: 1_000, holdMs: 10_000 };

  it('holds an instance after the same object is pruned 3 times within the window', () => {
    const g = new PruneStormGuard(opts);
    assert.deepEqual(g.record('i', 'provider', ['configmap/a -n x'], 1, 0), {});
    assert.deepEqual(g.record('i', 'provider', ['configmap/a -n x'], 1, 300), {
      repeated: 'configmap/a -n x',
    });
    const s = g.record('i', 'provider', ['configmap/a -n x'], 1, 600).storm;
    assert.ok(s);
    assert.equal(s.object, 'configmap/a -n x');
    assert.equal(s.prunes, 3);
    assert.deepEqual(g.held('i', 1, 700), s);
    assert.match(stormMessage(s), /^configmap\/a -n x on the provider plane was pruned 3 times within 1 s/);
    assert.equal(g.held('other', 1, 700), undefined);
  });

  it('ignores prunes spread wider than the window, and different objects or planes', () => {
    const g = new PruneStormGuard(opts);
    for (const t of [0, 600, 1_200, 1_800, 2_400])
      assert.equal(g.record('i', 'provider', ['configmap/a'], 1, t).storm, undefined);
    assert.deepEqual(g.record('i', 'provider', ['configmap/b'], 1, 2_500), {});
    assert.deepEqual(g.record('i', 'host', ['configmap/b'], 1, 2_600), {});
    assert.deepEqual(g.record('i', 'provider', ['configmap/c'], 1, 2_700), {});
    assert.equal(g.held('i', 1, 2_800), undefined);
  });

  it('releases the hold on a new generation or when the hold ends', () => {
    const g = new PruneStormGuard(opts);
    for (const t of [0, 1, 2]) g.record('i', 'host', ['configmap/a'], 4, t);
    assert.ok(g.held('i', 4, 10));
    assert.equal(g.held('i', 5, 10), undefined, 'a new generation releases it');
    assert.equal(g.heldCount, 0);
    for (const t of [20, 21, 22]) g.record('i', 'host', ['configmap/a'], 5, t);
    assert.ok(g.held('i', 5, 9_000));
    assert.equal(g.held('i', 5, 10_022), undefined, 'the hold ends');
    // The history starts afresh: one more prune is not a storm.
    assert.deepEqual(g.record('i', 'host', ['configmap/a'], 5, 10_030), {});
  });
});
