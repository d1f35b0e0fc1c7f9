/** The shard map's encoding in its ConfigMap (design/sharding.md §3): round trip, size, refusals. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  decodeShardMap,
  encodeShardMap,
  ShardMapError,
  shardMapOf,
} from '../../../../src/controller/host/shardMapStore.ts';
import {
  emptyShardMap,
  nextShardMap,
  withChildrenLabelling,
} from '../../../../src/controller/host/shardPlan.ts';

describe('shard map encoding', () => {
  it('round-trips a map with drains, compactly', () => {
    const three = nextShardMap(emptyShardMap(), ['replica-a_1', 'replica-b_2', 'replica-c_3'], new Map());
    const draining = nextShardMap(
      three,
      ['replica-a_1', 'replica-b_2', 'replica-c_3', 'replica-d_4'],
      new Map(),
    );
    const text = encodeShardMap(draining);
    assert.deepEqual(decodeShardMap(text), draining);
    assert.ok(text.length < 20_000, `${text.length} bytes`);
  });

  it('refuses what is not a map: the replica then reconciles nothing', () => {
    assert.throws(() => decodeShardMap('{'), ShardMapError);
    assert.throws(() => decodeShardMap('{"epoch":1,"owners":[],"buckets":[]}'), /0 buckets, not 1024/);
    const bad = JSON.parse(encodeShardMap(emptyShardMap())) as { buckets: unknown[] };
    bad.buckets[3] = [7, 0, -1, 0];
    assert.throws(() => decodeShardMap(JSON.stringify(bad)), /bucket 3 names no owner/);
    assert.throws(
      () =>
        shardMapOf({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'kgraph-shards' }, data: {} }),
      (e: unknown) => e instanceof ShardMapError && e.code === 'ShardMapUnreadable',
    );
    assert.equal(shardMapOf(undefined), undefined);
  });

  it('keeps the children phase: set while children are labelled, absent once they all carry a bucket', () => {
    const assigned = nextShardMap(emptyShardMap(), ['a', 'b'], new Map());
    const labelling = withChildrenLabelling(assigned, true);
    assert.equal(labelling.epoch, assigned.epoch + 1, 'a phase change is a new epoch');
    assert.equal(withChildrenLabelling(labelling, true), labelling, 'no change, same map');
    assert.deepEqual(decodeShardMap(encodeShardMap(labelling)), labelling);
    // A plan keeps the phase; clearing it drops the key from the stored text.
    const replanned = nextShardMap(labelling, ['a', 'b', 'c'], new Map());
    assert.equal(replanned.labellingChildren, true);
    const filtered = withChildrenLabelling(replanned, false);
    assert.equal(filtered.labellingChildren, undefined);
    assert.ok(!encodeShardMap(filtered).includes('labellingChildren'));
    assert.equal(decodeShardMap(encodeShardMap(filtered)).labellingChildren, undefined);
  });
});
