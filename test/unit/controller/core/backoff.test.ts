import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { WaitBackoff } from '../../../../src/controller/core/backoff.ts';

describe('WaitBackoff', () => {
  it('doubles per key from the base up to the cap', () => {
    const b = new WaitBackoff(1_000, 5_000);
    assert.deepEqual(
      [b.next('a'), b.next('a'), b.next('a'), b.next('a'), b.next('b')],
      [1_000, 2_000, 4_000, 5_000, 1_000],
    );
  });

  it('reset starts one key over, resetAll every key (a CRD change ends every unknown-kind wait)', () => {
    const b = new WaitBackoff(1_000, 300_000);
    for (let i = 0; i < 10; i++) {
      b.next('a');
      b.next('b');
    }
    b.reset('a');
    assert.equal(b.next('a'), 1_000);
    assert.equal(b.next('b'), 300_000);
    b.resetAll();
    assert.equal(b.next('a'), 1_000);
    assert.equal(b.next('b'), 1_000);
  });
});
