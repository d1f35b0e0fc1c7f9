import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Condition } from '../../../../src/controller/core/conditions.ts';
import { watchesHealthyInput, withWatchesHealthy } from '../../../../src/controller/rgd/watchesHealthy.ts';

const builtin = (type: string): Condition => ({
  type,
  status: 'True',
  reason: 'R',
  message: '',
  observedGeneration: 1,
  lastTransitionTime: '2026-01-01T00:00:00Z',
});
const now = () => '2026-02-02T00:00:00Z';

describe('WatchesHealthy (design/rgd.md §20.5)', () => {
  it('is True when every watch has listed, and names pending and blocked kinds otherwise (blocked first)', () => {
    assert.deepEqual(watchesHealthyInput({ pending: [], blocked: [] }), {
      status: 'True',
      reason: 'WatchesSynced',
      message: 'every resource the instance reads is watched',
    });
    assert.deepEqual(watchesHealthyInput({ pending: ['Widget.example.com/v1'], blocked: [] }), {
      status: 'False',
      reason: 'WatchesPending',
      message: 'waiting for the watches of Widget.example.com/v1 to sync',
    });
    const blocked = watchesHealthyInput({
      pending: ['Widget.example.com/v1'],
      blocked: ['Gadget.example.com/v1: the API server does not serve this kind'],
    });
    assert.equal(blocked.reason, 'WatchBlocked');
    assert.equal(
      blocked.message,
      'cannot watch Gadget.example.com/v1: the API server does not serve this kind',
    );
  });

  it('comes after the built-ins, keeps its transition time while unchanged, and leaves authored conditions alone', () => {
    const four = ['InstanceManaged', 'GraphResolved', 'ResourcesReady', 'Ready'].map(builtin);
    const input = watchesHealthyInput({ pending: [], blocked: [] });
    const first = withWatchesHealthy(four, [], input, 1, now);
    assert.deepEqual(
      first.map((c) => c.type),
      ['InstanceManaged', 'GraphResolved', 'ResourcesReady', 'Ready', 'WatchesHealthy'],
    );
    assert.equal(first[4]?.lastTransitionTime, now());
    const later = withWatchesHealthy(four, first, input, 2, () => '2026-03-03T00:00:00Z');
    assert.equal(later[4]?.lastTransitionTime, now());
    assert.equal(later[4]?.observedGeneration, 2);
    const authored = [builtin('Ready'), builtin('DatabaseReady')];
    assert.deepEqual(withWatchesHealthy(authored, [], input, 1, now), authored);
  });
});
