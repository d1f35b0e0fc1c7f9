/**
 * Which events a pass, a rollout state change and the token buckets produce (docs/observability.md):
 * pure parts of the event recorder, against hand-made pass reports.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { conditionEvents, passEvents } from '../../../../src/controller/core/events/passEvents.ts';
import { TokenBucket } from '../../../../src/controller/core/events/tokenBucket.ts';
import type { ReconcileOutcome } from '../../../../src/controller/core/outcome.ts';
import type { PassReport } from '../../../../src/controller/core/passReport.ts';
import { newInterest } from '../../../../src/controller/core/watches.ts';
import { rolloutEvents } from '../../../../src/controller/rgd/rollout/rolloutEvents.ts';

const regarding = { apiVersion: 'x.test/v1', kind: 'App', name: 'a', namespace: 'ns' };

function report(p: Partial<PassReport>): PassReport {
  return {
    startedAt: 0,
    durationMs: 1,
    generation: 2,
    previousGeneration: 2,
    nodes: [],
    created: [],
    updated: [],
    pruned: [],
    conditionsBefore: [],
    conditionsAfter: [],
    phases: {},
    ...p,
  };
}

const outcome = (kind: ReconcileOutcome['kind'], r: PassReport): ReconcileOutcome => ({
  kind,
  reason: 'x',
  interest: newInterest(),
  report: r,
});

describe('pass events', () => {
  it('names changes, counted, and tells drift from a spec change', () => {
    const changed = passEvents(
      regarding,
      outcome(
        'converged',
        report({ generation: 3, created: ['v1/ConfigMap/ns/b'], pruned: ['v1/Secret/ns/c'] }),
      ),
    );
    assert.deepEqual(
      changed.map((e) => [e.reason, e.note]),
      [['ResourcesApplied', 'applied 1, pruned 1: created 1 (ConfigMap b); pruned 1 (Secret c)']],
    );
    const drift = passEvents(
      regarding,
      outcome('converged', report({ updated: ['apps/v1/Deployment/ns/d'] })),
    );
    assert.deepEqual(
      drift.map((e) => [e.reason, e.note]),
      [['DriftRepaired', 're-applied 1 object(s) changed outside kgraph: Deployment d']],
    );
    const many = Array.from({ length: 7 }, (_, i) => `v1/ConfigMap/ns/m${i}`);
    const listed = passEvents(regarding, outcome('converged', report({ generation: 3, created: many })));
    assert.match(listed[0]?.note ?? '', /ConfigMap m4 and 2 more\)$/);
  });

  it('a wait names the node; a refusal is a Warning; a steady pass says nothing', () => {
    const waiting = passEvents(
      regarding,
      outcome('waiting', report({ waiting: { node: 'db', state: 'waiting', reason: 'not ready' } })),
    );
    assert.deepEqual(
      waiting.map((e) => [e.type, e.reason, e.note]),
      [['Normal', 'Waiting', 'waiting on node db (waiting): not ready']],
    );
    const refused = passEvents(
      regarding,
      outcome('waiting', report({ refused: { verb: 'read', message: 'may not get secrets' } })),
    );
    assert.deepEqual(
      refused.map((e) => [e.type, e.reason, e.action]),
      [['Warning', 'ReadForbidden', 'Read']],
    );
    assert.deepEqual(passEvents(regarding, outcome('converged', report({}))), []);
  });

  it("kro's condition transitions: reason the type, '<old> -> <new>: <reason>'", () => {
    const c = (type: string, status: 'True' | 'False' | 'Unknown', reason: string) => ({
      type,
      status,
      reason,
      message: '',
      observedGeneration: 1,
      lastTransitionTime: '',
    });
    const evs = conditionEvents(
      regarding,
      report({
        conditionsBefore: [c('Ready', 'False', 'NotReady'), c('GraphResolved', 'True', 'Resolved')],
        conditionsAfter: [
          c('Ready', 'True', 'Ready'),
          c('GraphResolved', 'True', 'Resolved'),
          c('X', 'False', 'Y'),
        ],
      }),
    );
    assert.deepEqual(
      evs.map((e) => [e.type, e.reason, e.note]),
      [
        ['Normal', 'Ready', 'False -> True: Ready'],
        ['Warning', 'X', 'none -> False: Y'],
      ],
    );
  });
});

describe('rollout events', () => {
  it('a step, a halt, a rollback, completion', () => {
    const r = { name: 'web' };
    const step = rolloutEvents(
      r,
      { step: 0, retry: 0, phase: 'Progressing', stableRevision: 1, targetRevision: 2 },
      { step: 1, retry: 0, phase: 'Progressing', stableRevision: 1, targetRevision: 2 },
    );
    assert.deepEqual(
      step.map((e) => [e.reason, e.note]),
      [['RolloutStep', 'step 1 of revision 2']],
    );
    const halt = rolloutEvents(
      r,
      { step: 1, retry: 0, phase: 'Progressing', stableRevision: 1, targetRevision: 2 },
      { step: 1, retry: 0, phase: 'Halted', stableRevision: 1, targetRevision: 2, failed: ['ns/a'] },
    );
    assert.deepEqual(
      halt.map((e) => [e.type, e.reason, e.note]),
      [['Warning', 'RolloutHalted', 'halted at step 1 of revision 2 (failed: ns/a)']],
    );
    const back = rolloutEvents(
      r,
      { step: 1, retry: 0, phase: 'Progressing', stableRevision: 1, targetRevision: 2 },
      { step: 1, retry: 0, phase: 'RolledBack', stableRevision: 1, targetRevision: 2 },
    );
    assert.equal(back[0]?.reason, 'RolloutRolledBack');
    const done = rolloutEvents(
      r,
      { step: 2, retry: 0, phase: 'Progressing', stableRevision: 1, targetRevision: 2 },
      { step: 3, retry: 0, phase: 'Completed', stableRevision: 2 },
    );
    assert.deepEqual(
      done.map((e) => [e.reason, e.note]),
      [['RolloutCompleted', 'revision 2 is stable']],
    );
    assert.equal(done[0]?.regarding.kind, 'GraphRollout');
  });
});

describe('token bucket', () => {
  it('gives its burst, then refills at its rate', () => {
    let now = 0;
    const b = new TokenBucket(3, 2, () => now);
    assert.deepEqual([b.take(), b.take(), b.take(), b.take()], [true, true, true, false]);
    now = 499;
    assert.equal(b.take(), false);
    now = 500;
    assert.equal(b.take(), true);
    now = 10_000;
    assert.equal(b.full(), true);
  });
});
