/** The shard map's planning (design/sharding.md §3): balance, minimal movement, drains and crashes. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  emptyShardMap,
  nextShardMap,
  type ShardMap,
  servedBuckets,
  shardSummary,
} from '../../../../src/controller/host/shardPlan.ts';

const counts = (m: ShardMap): Record<string, number> => {
  const out: Record<string, number> = {};
  for (const e of m.buckets) if (e.phase === 'active') out[e.owner] = (out[e.owner] ?? 0) + 1;
  return out;
};
/** Acknowledges the map's epoch for every replica and plans again: the drains complete. */
const settle = (m: ShardMap, live: string[]): ShardMap =>
  nextShardMap(m, live, new Map(live.map((r) => [r, m.epoch])));

describe('shard plan', () => {
  it('assigns every bucket of an empty map at once, balanced', () => {
    const m = nextShardMap(emptyShardMap(), ['a', 'b', 'c'], new Map());
    assert.deepEqual(counts(m), { a: 342, b: 341, c: 341 });
    assert.equal(m.epoch, 1);
    assert.ok(m.buckets.every((e) => e.phase === 'active'));
    // Nothing to change: the same map.
    assert.equal(nextShardMap(m, ['a', 'b', 'c'], new Map()), m);
  });

  it('a new replica takes a quarter through drains, and only that quarter moves', () => {
    const three = nextShardMap(emptyShardMap(), ['a', 'b', 'c'], new Map());
    const draining = nextShardMap(three, ['a', 'b', 'c', 'd'], new Map());
    const moving = draining.buckets.filter((e) => e.phase === 'draining');
    assert.equal(moving.length, 256);
    assert.ok(moving.every((e) => e.next === 'd'));
    assert.deepEqual(servedBuckets(draining, 'd'), []);
    assert.equal(servedBuckets(draining, 'a').length, 342 - moving.filter((e) => e.owner === 'a').length);
    assert.deepEqual(shardSummary(draining).get('d'), { active: 0, draining: 0, incoming: 256 });
    // Unacknowledged, the drains wait (and the map stays as it is).
    assert.equal(nextShardMap(draining, ['a', 'b', 'c', 'd'], new Map([['a', three.epoch]])), draining);
    const four = settle(draining, ['a', 'b', 'c', 'd']);
    assert.deepEqual(counts(four), { a: 256, b: 256, c: 256, d: 256 });
    let moved = 0;
    four.buckets.forEach((e, b) => {
      if (e.owner !== three.buckets[b]?.owner) moved++;
    });
    assert.equal(moved, 256);
  });

  it("a lost replica's buckets go to the others at once; no other bucket moves", () => {
    const three = nextShardMap(emptyShardMap(), ['a', 'b', 'c'], new Map());
    const two = nextShardMap(three, ['a', 'c'], new Map());
    assert.ok(two.buckets.every((e) => e.phase === 'active'));
    assert.deepEqual(counts(two), { a: 512, c: 512 });
    two.buckets.forEach((e, b) => {
      const before = three.buckets[b]?.owner;
      if (before !== 'b') assert.equal(e.owner, before);
    });
  });

  it('a replica lost while draining: its buckets skip the drain', () => {
    const three = nextShardMap(emptyShardMap(), ['a', 'b', 'c'], new Map());
    const draining = nextShardMap(three, ['a', 'b', 'c', 'd'], new Map());
    const after = nextShardMap(draining, ['a', 'c', 'd'], new Map());
    for (const e of after.buckets) if (e.phase === 'draining') assert.notEqual(e.owner, 'b');
    assert.ok(after.buckets.every((e) => e.owner !== 'b' && e.owner !== ''));
    const settled = settle(after, ['a', 'c', 'd']);
    const c = counts(settled);
    assert.equal((c.a ?? 0) + (c.c ?? 0) + (c.d ?? 0), 1024);
    assert.ok(
      Object.values(c).every((n) => n === 341 || n === 342),
      JSON.stringify(c),
    );
  });

  it('without live replicas every bucket is unowned; they are assigned when one comes', () => {
    const one = nextShardMap(emptyShardMap(), ['a'], new Map());
    const none = nextShardMap(one, [], new Map());
    assert.ok(none.buckets.every((e) => e.owner === ''));
    assert.deepEqual(counts(nextShardMap(none, ['z'], new Map())), { z: 1024 });
  });
});
