import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Backoff, backoffDelay } from '../../../src/kube/backoff.ts';

describe('backoff', () => {
  it('doubles from the initial delay up to the cap', () => {
    const o = { initialMs: 1000, maxMs: 300_000 };
    const delays = Array.from({ length: 11 }, (_, i) => backoffDelay(i, o));
    assert.deepEqual(delays, [1000, 2000, 4000, 8000, 16000, 32000, 64000, 128000, 256000, 300000, 300000]);
  });

  it('adds bounded jitter', () => {
    const o = { initialMs: 1000, maxMs: 30_000, jitter: 1 };
    assert.equal(backoffDelay(0, { ...o, random: () => 0 }), 1000);
    assert.equal(backoffDelay(0, { ...o, random: () => 0.5 }), 1500);
    assert.equal(backoffDelay(2, { ...o, random: () => 0.999 }), 4000 * 1.999);
    assert.ok(backoffDelay(20, { ...o, random: () => 1 }) <= 60_000);
  });

  it('grows until reset', () => {
    const b = new Backoff({ initialMs: 10, maxMs: 100 });
    assert.deepEqual([b.next(), b.next(), b.next()], [10, 20, 40]);
    assert.equal(b.attempts, 3);
    b.reset();
    assert.equal(b.next(), 10);
  });
});
