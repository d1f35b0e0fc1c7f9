/**
 * The fleet panel's model: instances grouped by the revision they are reconciled at, pinned ones and
 * assignments not reached yet marked, latest/stable/target marked (also on revisions nobody is at), and
 * the GraphRollout's phase, step and counts read from its status.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type FleetInputInstance, fleetOf, MAX_LISTED, stepText } from '../../../src/ui/fleetModel.ts';

const inst = (
  name: string,
  at: number | undefined,
  opts: { pinned?: boolean; wants?: number; ready?: 'True' | 'False' } = {},
): FleetInputInstance => ({
  key: `instance:x.test/v1alpha1:Web:ns/${name}`,
  metadata: {
    namespace: 'ns',
    name,
    labels: at !== undefined ? { 'kgraph.dev/revision': String(at) } : {},
    annotations: {
      ...(opts.pinned ? { 'kgraph.dev/revision-policy': 'Manual' } : {}),
      ...(opts.wants !== undefined ? { 'kgraph.dev/revision': String(opts.wants) } : {}),
    },
  },
  ready: opts.ready ?? 'True',
});

const rgd = (latest?: number) => ({
  metadata: { name: 'web' },
  status: latest !== undefined ? { lastIssuedRevision: latest } : {},
});

describe('ui fleet model', () => {
  it('groups instances by revision, newest first, unreconciled last, with counts', () => {
    const f = fleetOf({
      rgd: rgd(2),
      instances: [
        inst('b', 1),
        inst('a', 1, { pinned: true }),
        inst('c', 2, { ready: 'False' }),
        inst('d', undefined, { ready: 'False' }),
      ],
    });
    assert.equal(f.total, 4);
    assert.equal(f.latest, 2);
    assert.equal(f.rollout, undefined);
    assert.deepEqual(
      f.revisions.map((r) => [r.revision, r.marks, r.count, r.ready, r.pinned]),
      [
        [2, ['latest'], 1, 0, 0],
        [1, [], 2, 2, 1],
        [null, [], 1, 0, 0],
      ],
    );
    assert.deepEqual(
      f.revisions[1]?.instances.map((i) => [i.name, i.pinned]),
      [
        ['ns/a', true],
        ['ns/b', false],
      ],
    );
  });

  it("marks stable and target from the rollout, shows a target nobody reached, reads the rollout's progress", () => {
    const f = fleetOf({
      rgd: rgd(3),
      instances: [inst('a', 1), inst('b', 1, { wants: 3 }), inst('c', 1, { pinned: true })],
      rollout: {
        metadata: { name: 'web' },
        spec: {
          steps: [
            { canary: { selector: { matchLabels: { tier: 'canary' } } } },
            { pause: {} },
            { batch: { percent: 50, maxInFlight: 4 } },
          ],
        },
        status: {
          phase: 'Progressing',
          step: 0,
          stableRevision: 1,
          targetRevision: 3,
          counts: { total: 3, pinned: 1, governed: 2, updated: 1, ready: 0, failed: 0 },
          message: 'waiting for 1 instance(s) to be ready',
        },
      },
    });
    assert.deepEqual(
      f.revisions.map((r) => [r.revision, r.marks, r.count]),
      [
        [3, ['latest', 'target'], 0],
        [1, ['stable'], 3],
      ],
    );
    assert.equal(f.revisions[1]?.instances.find((i) => i.name === 'ns/b')?.wants, 3);
    assert.equal(f.revisions[1]?.instances.find((i) => i.name === 'ns/a')?.wants, undefined);
    assert.deepEqual(f.rollout, {
      name: 'web',
      phase: 'Progressing',
      step: 0,
      steps: 3,
      stepText: 'canary (selector tier=canary)',
      stableRevision: 1,
      targetRevision: 3,
      paused: false,
      counts: { total: 3, pinned: 1, governed: 2, updated: 1, ready: 0, failed: 0 },
      failed: [],
      message: 'waiting for 1 instance(s) to be ready',
    });
  });

  it('a completed rollout has no current step; a rollout without status is Pending', () => {
    const done = fleetOf({
      rgd: rgd(2),
      instances: [inst('a', 2)],
      rollout: {
        metadata: { name: 'web' },
        spec: { steps: [{ pause: {} }] },
        status: { phase: 'Completed', step: 5, stableRevision: 2 },
      },
    });
    assert.equal(done.rollout?.step, 1);
    assert.equal(done.rollout?.stepText, undefined);
    assert.deepEqual(done.revisions[0]?.marks, ['latest', 'stable']);
    const fresh = fleetOf({ rgd: rgd(), instances: [], rollout: { metadata: { name: 'web' } } });
    assert.equal(fresh.rollout?.phase, 'Pending');
    assert.deepEqual(fresh.revisions, []);
  });

  it('lists at most MAX_LISTED instances per revision but counts them all', () => {
    const many = Array.from({ length: MAX_LISTED + 7 }, (_, i) => inst(`i${String(i).padStart(3, '0')}`, 1));
    const f = fleetOf({ rgd: rgd(1), instances: many });
    assert.equal(f.revisions[0]?.count, MAX_LISTED + 7);
    assert.equal(f.revisions[0]?.instances.length, MAX_LISTED);
  });

  it('describes steps in words', () => {
    assert.equal(stepText({ pause: { duration: '5m' } }), 'pause 5m');
    assert.equal(stepText({ pause: {} }), 'pause until promoted');
    assert.equal(stepText({ batch: { percent: 100 } }), 'batch 100%');
    assert.equal(stepText({ canary: { namespaces: ['a', 'b'] } }), 'canary (namespaces a,b)');
    assert.equal(stepText('nonsense'), undefined);
  });
});
