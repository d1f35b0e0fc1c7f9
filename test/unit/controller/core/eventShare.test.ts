/**
 * A sharded replica's part of the fleet's event budget (design/sharding.md §7): the process bucket
 * shrinks with the replica's share, so R replicas write about as many events as one would.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { EventRecorder } from '../../../../src/controller/core/events/recorder.ts';
import { unreachableClient } from '../../../support/unreachableClient.ts';

describe('event budget share', () => {
  // Writes go nowhere (port 1): only the recorder's own accounting is looked at.
  const client = unreachableClient();
  after(() => client.close());

  const burst = (share: number | undefined): number => {
    const t = 1_000_000; // the clock stands still: no refill
    const r = new EventRecorder(client, { now: () => t, maxPending: 10_000 });
    if (share !== undefined) r.setShare(share);
    for (let i = 0; i < 200; i++)
      r.emit({
        regarding: { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'ns', name: `o${i}` },
        type: 'Normal',
        reason: 'Applied',
        action: 'Reconcile',
        note: 'x',
      });
    return 200 - r.stats.dropped;
  };

  it('a whole process takes the full burst; a quarter share a quarter of it; no share one token', () => {
    assert.equal(burst(undefined), 100);
    assert.equal(burst(1), 100);
    assert.equal(burst(0.25), 25);
    assert.equal(burst(0), 1);
  });
});
