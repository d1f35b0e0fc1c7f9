/** Which revision an instance pass runs at (design/rgd.md §19.7): the annotations, pure. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  chooseRevision,
  RevisionResolutionError,
  revisionsNamed,
  rolloutMayMove,
} from '../../../../src/controller/rgd/revisionPolicy.ts';

const pin = (annotations: Record<string, string>, labels: Record<string, string> = {}) => ({
  annotations,
  labels,
});

describe('revision policy', () => {
  it('without annotations: the latest, or what a rollout holds the instance at', () => {
    assert.deepEqual(chooseRevision({ meta: {}, latest: 3 }), { kind: 'latest' });
    assert.deepEqual(chooseRevision({ meta: {}, latest: undefined }), { kind: 'latest' });
    assert.deepEqual(chooseRevision({ meta: {}, latest: 3, rolloutDefault: 2 }), {
      kind: 'revision',
      revision: 2,
    });
    assert.deepEqual(chooseRevision({ meta: {}, latest: 3, rolloutDefault: 3 }), { kind: 'latest' });
  });

  it('a revision annotation wins over the rollout; Manual without one stays where it is reconciled', () => {
    const m = pin({ 'kgraph.dev/revision': '1' });
    assert.deepEqual(chooseRevision({ meta: m, latest: 3, rolloutDefault: 2 }), {
      kind: 'revision',
      revision: 1,
    });
    const stays = pin({ 'kgraph.dev/revision-policy': 'Manual' }, { 'kgraph.dev/revision': '2' });
    assert.deepEqual(chooseRevision({ meta: stays, latest: 3 }), { kind: 'revision', revision: 2 });
    // Never reconciled yet: the latest (or the rollout's), from then on held there.
    assert.deepEqual(chooseRevision({ meta: pin({ 'kgraph.dev/revision-policy': 'Manual' }), latest: 3 }), {
      kind: 'latest',
    });
  });

  it('unreadable annotations are coded errors', () => {
    const bad = chooseRevision({ meta: pin({ 'kgraph.dev/revision': 'latest' }), latest: 3 });
    assert.ok(bad instanceof RevisionResolutionError);
    assert.equal(bad.code, 'RevisionAnnotationInvalid');
    const policy = chooseRevision({ meta: pin({ 'kgraph.dev/revision-policy': 'manual' }), latest: 3 });
    assert.equal((policy as RevisionResolutionError).code, 'RevisionAnnotationInvalid');
    for (const raw of ['0', '-1', '1.5', '01', ' '])
      assert.ok(
        chooseRevision({ meta: pin({ 'kgraph.dev/revision': raw }), latest: 3 }) instanceof Error,
        raw,
      );
    // The latest number unknown (revisions settling): the revision asked for is still the one used.
    assert.deepEqual(chooseRevision({ meta: pin({ 'kgraph.dev/revision': '2' }), latest: undefined }), {
      kind: 'revision',
      revision: 2,
    });
  });

  it('a rollout moves only instances their owner did not pin; retention sees every revision named', () => {
    assert.equal(rolloutMayMove({}), true);
    assert.equal(rolloutMayMove(pin({ 'kgraph.dev/revision': '2' })), true);
    assert.equal(rolloutMayMove(pin({ 'kgraph.dev/revision-policy': 'Manual' })), false);
    assert.deepEqual(
      [
        ...revisionsNamed([
          pin({ 'kgraph.dev/revision': '4' }, { 'kgraph.dev/revision': '2' }),
          pin({}, { 'kgraph.dev/revision': '3' }),
        ]),
      ].sort(),
      [2, 3, 4],
    );
  });
});
