/** `kgraph get shards` text output (docs/cli/get.md): one line per replica, the map's summary first. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatShards } from '../../../src/cli/shards.ts';

describe('kgraph get shards', () => {
  it('prints the map summary and a column per fact', () => {
    const text = formatShards({
      namespace: 'kgraph-system',
      epoch: 7,
      unowned: 0,
      unlabelled: 2,
      labellingChildren: false,
      rows: [
        {
          replica: 'a_1',
          coordinator: true,
          renewedSecondsAgo: 1,
          served: 512,
          draining: 0,
          incoming: 0,
          acked: 7,
          objects: 40,
        },
        {
          replica: 'b_2',
          coordinator: false,
          renewedSecondsAgo: undefined,
          served: 256,
          draining: 256,
          incoming: 0,
          acked: undefined,
          objects: 21,
        },
      ],
    });
    assert.equal(
      text,
      [
        'shard map kgraph-system/kgraph-shards: epoch 7, 256 bucket(s) being handed over, 0 unowned; 2 object(s) without a bucket yet',
        'REPLICA            LEASE           BUCKETS  DRAINING  INCOMING  ACKED  OBJECTS',
        'a_1 (coordinator)  renewed 1s ago  512      0         0         7      40',
        'b_2                none            256      256       0         -      21',
      ].join('\n'),
    );
  });

  it('says when children without a bucket are being labelled', () => {
    const text = formatShards({
      namespace: 'kgraph-system',
      epoch: 3,
      unowned: 0,
      unlabelled: 0,
      labellingChildren: true,
      rows: [],
    });
    assert.match(
      text.split('\n')[0] ?? '',
      /0 object\(s\) without a bucket yet; children without a bucket being labelled \(child caches unfiltered\)$/,
    );
  });
});
