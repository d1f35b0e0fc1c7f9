/**
 * The record of the controller's own writes (ownWrites.ts): a version an owner wrote is its echo until
 * a newer version of the object is seen or the record expires; a write without an owner, or by another
 * owner, replaces the record.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OWN_WRITE_TTL_MS, OwnWrites } from '../../../../src/controller/core/ownWrites.ts';

describe('OwnWrites', () => {
  it('recognises every version an owner wrote, also when events lag behind later writes', () => {
    const w = new OwnWrites();
    w.note('cm/a', '10', 'ns/g');
    w.note('cm/a', '12', 'ns/g');
    assert.equal(w.writerOf('cm/a', '10'), 'ns/g', 'the first write, its event after the second write');
    assert.equal(w.writerOf('cm/a', '10'), 'ns/g', 'asked twice (route, then end of the reconcile)');
    assert.equal(w.writerOf('cm/a', '11'), undefined, 'somebody else');
    assert.equal(w.writerOf('cm/a', '12'), 'ns/g');
    assert.equal(w.writerOf('cm/a', '13'), undefined);
    assert.equal(w.size, 0, 'a newer version than all we wrote drops the record');
  });

  it('another owner or a write without owner replaces the record', () => {
    const w = new OwnWrites();
    w.note('cm/a', '10', 'ns/g');
    w.note('cm/a', '11', 'ns/h');
    assert.equal(w.writerOf('cm/a', '10'), undefined);
    assert.equal(w.writerOf('cm/a', '11'), 'ns/h');
    w.note('cm/a', '12', undefined);
    assert.equal(w.writerOf('cm/a', '12'), undefined);
    assert.equal(w.size, 0);
  });

  it('expires records after the TTL and forgets deleted objects', () => {
    let now = 0;
    const w = new OwnWrites(() => now);
    w.note('cm/a', '10', 'ns/g');
    w.note('graph/g', '20', 'ns/g');
    w.forget('graph/g');
    assert.equal(w.writerOf('graph/g', '20'), undefined);
    now = OWN_WRITE_TTL_MS + 2_000;
    w.expire();
    assert.equal(w.writerOf('cm/a', '10'), undefined);
    assert.equal(w.size, 0);
  });
});
