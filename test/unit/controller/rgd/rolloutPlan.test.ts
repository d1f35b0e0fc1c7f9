/** The pure rollout planning (design/rgd.md §19.8): which instances go in which step, and what is written. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  desiredThrough,
  type FleetInstance,
  fleetOrder,
  type PlanInput,
  planRollout,
  type RolloutSpec,
  type RolloutState,
} from '../../../../src/controller/rgd/rollout/plan.ts';

const T0 = '2026-01-01T00:00:00Z';
const fleet = (n: number): FleetInstance[] =>
  Array.from({ length: n }, (_, i) => ({
    namespace: i % 2 === 0 ? 'a' : 'b',
    name: `i${String(i).padStart(2, '0')}`,
    // Two instances share each creation second: the name decides between them.
    created: `2026-01-01T00:00:${String(Math.floor(i / 2)).padStart(2, '0')}Z`,
    labels: (i < 2 ? { canary: 'true' } : {}) as Record<string, string>,
    pinned: false,
  }));

const spec = (over: Partial<RolloutSpec> = {}): RolloutSpec => ({
  steps: [
    { canary: { selector: { matchLabels: { canary: 'true' } } } },
    { pause: {} },
    { batch: { percent: 50, maxInFlight: 3 } },
    { batch: { percent: 100, maxInFlight: 5 } },
  ],
  maxFailures: 1,
  onFailure: 'Rollback',
  newInstances: 'Stable',
  paused: false,
  retry: 0,
  ...over,
});

const rolling: RolloutState = {
  stableRevision: 1,
  targetRevision: 2,
  phase: 'Progressing',
  step: 0,
  retry: 0,
  startedAt: T0,
  stepStartedAt: T0,
};
const input = (over: Partial<PlanInput>): PlanInput => ({
  spec: spec(),
  state: rolling,
  latest: 2,
  instances: fleet(20),
  now: T0,
  ...over,
});
const names = (w: { name: string }[]) => w.map((x) => x.name);

describe('rollout planning', () => {
  it('orders oldest first, then namespace/name', () => {
    const xs = fleetOrder([
      { created: '2', namespace: 'a', name: 'z' },
      { created: '1', namespace: 'b', name: 'a' },
      { created: '1', namespace: 'a', name: 'b' },
    ]);
    assert.deepEqual(
      xs.map((x) => `${x.namespace}/${x.name}`),
      ['a/b', 'b/a', 'a/z'],
    );
  });

  it('puts the canary first, then batches up to their percent of the governed fleet', () => {
    const s = spec();
    const all = fleet(20);
    assert.deepEqual(names(desiredThrough(s, all, 0).members), ['i00', 'i01']);
    assert.deepEqual(names(desiredThrough(s, all, 1).members), ['i00', 'i01']);
    assert.deepEqual(names(desiredThrough(s, all, 2).members), [
      'i00',
      'i01',
      'i02',
      'i03',
      'i04',
      'i05',
      'i06',
      'i07',
      'i08',
      'i09',
    ]);
    assert.equal(desiredThrough(s, all, 2).maxInFlight, 3);
    assert.equal(desiredThrough(s, all, 3).members.length, 20);
    // Pinned instances are not part of the percent.
    const pinned = all.map((i, n) => (n >= 10 ? { ...i, pinned: true } : i));
    assert.equal(
      desiredThrough(
        s,
        pinned.filter((i) => !i.pinned),
        2,
      ).members.length,
      5,
    );
  });

  it('a new target starts at step 0 and assigns the canary', () => {
    const p = planRollout(input({ state: { stableRevision: 1, step: 4, retry: 0, phase: 'Completed' } }));
    assert.equal(p.state.phase, 'Progressing');
    assert.equal(p.state.targetRevision, 2);
    assert.equal(p.state.step, 0);
    assert.deepEqual(p.writes, [
      { kind: 'assign', namespace: 'a', name: 'i00', revision: 2 },
      { kind: 'assign', namespace: 'b', name: 'i01', revision: 2 },
    ]);
  });

  it('waits at a pause until promoted, then moves batches at most maxInFlight at a time', () => {
    const at = (ready: string[], assigned: string[]) =>
      fleet(20).map((i) => ({
        ...i,
        ...(assigned.includes(i.name) ? { assigned: 2 } : {}),
        ...(ready.includes(i.name) ? { health: 'Ready' as const } : {}),
      }));
    const canaryReady = at(['i00', 'i01'], ['i00', 'i01']);
    const paused = planRollout(input({ instances: canaryReady }));
    assert.equal(paused.state.step, 1);
    assert.equal(paused.state.phase, 'Paused');
    assert.deepEqual(paused.writes, []);
    const promoted = planRollout(
      input({
        state: paused.state,
        spec: spec({ promoted: { revision: 2, step: 1 } }),
        instances: canaryReady,
      }),
    );
    assert.equal(promoted.state.step, 2);
    assert.deepEqual(names(promoted.writes), ['i02', 'i03', 'i04']);
    // Two of three ready: two more may go.
    const next = planRollout(
      input({
        state: promoted.state,
        spec: spec({ promoted: { revision: 2, step: 1 } }),
        instances: at(['i00', 'i01', 'i02', 'i03'], ['i00', 'i01', 'i02', 'i03', 'i04']),
      }),
    );
    assert.deepEqual(names(next.writes), ['i05', 'i06']);
    assert.equal(next.counts.updated, 5);
    assert.equal(next.counts.ready, 4);
  });

  it('rolls back every moved instance after maxFailures, and releases them', () => {
    const xs = fleet(20).map((i) =>
      i.name === 'i00'
        ? { ...i, assigned: 2, health: 'Failed' as const }
        : i.name === 'i01'
          ? { ...i, assigned: 2 }
          : i,
    );
    const p = planRollout(input({ instances: xs }));
    assert.equal(p.state.phase, 'RolledBack');
    assert.deepEqual(p.writes, [
      { kind: 'release', namespace: 'a', name: 'i00' },
      { kind: 'release', namespace: 'b', name: 'i01' },
    ]);
    assert.deepEqual(p.failed, ['a/i00']);
    const halted = planRollout(input({ instances: xs, spec: spec({ onFailure: 'Halt' }) }));
    assert.equal(halted.state.phase, 'Halted');
    assert.deepEqual(halted.writes, []);
    // Retry starts the step again, the failed one first moved back.
    const retried = planRollout(
      input({ instances: xs, state: halted.state, spec: spec({ onFailure: 'Halt', retry: 1 }) }),
    );
    assert.equal(retried.state.phase, 'Progressing');
    assert.deepEqual(retried.writes, [{ kind: 'release', namespace: 'a', name: 'i00' }]);
  });

  it('completes when all governed instances are ready: the target becomes stable, assignments released', () => {
    const xs = fleet(4).map((i) => ({ ...i, assigned: 2, health: 'Ready' as const }));
    const p = planRollout(
      input({
        instances: xs,
        state: { ...rolling, step: 3 },
        spec: spec({ promoted: { revision: 2, step: 1 } }),
      }),
    );
    assert.equal(p.state.phase, 'Completed');
    assert.equal(p.state.stableRevision, 2);
    assert.equal(p.writes.length, 4);
    assert.ok(p.writes.every((w) => w.kind === 'release'));
  });

  it('is the same plan after a restart: the recorded state and assignments decide', () => {
    const xs = fleet(20).map((i, n) => (n < 5 ? { ...i, assigned: 2, health: 'Ready' as const } : i));
    const state = { ...rolling, step: 2 };
    const a = planRollout(
      input({ instances: xs, state, spec: spec({ promoted: { revision: 2, step: 1 } }) }),
    );
    const b = planRollout(
      input({ instances: xs, state, spec: spec({ promoted: { revision: 2, step: 1 } }) }),
    );
    assert.deepEqual(a, b);
    assert.deepEqual(names(a.writes), ['i05', 'i06', 'i07']);
  });

  it('never moves pinned instances and holds new ones at stable unless told', () => {
    const xs = fleet(4).map((i, n) => (n === 0 ? { ...i, pinned: true } : i));
    const p = planRollout(input({ instances: xs, spec: spec({ steps: [{ batch: { percent: 100 } }] }) }));
    assert.deepEqual(names(p.writes), ['i01', 'i02', 'i03']);
    assert.equal(p.counts.pinned, 1);
  });

  it('the fleet gate holds a finished step', () => {
    const xs = fleet(20).map((i, n) => (n < 2 ? { ...i, assigned: 2, health: 'Ready' as const } : i));
    const p = planRollout(input({ instances: xs, gate: (c) => c.ready >= 3 }));
    assert.equal(p.state.step, 0);
    assert.match(p.message, /gate/);
  });

  it("a promotion or an abort names its target: a later rollout's pauses and progress are its own", () => {
    const canaryReady = fleet(20).map((i) =>
      i.labels.canary ? { ...i, assigned: 2, health: 'Ready' as const } : i,
    );
    const old = spec({ promoted: { revision: 1, step: 1 }, abortRevision: 1 });
    const p = planRollout(input({ instances: canaryReady, spec: old }));
    assert.equal(p.state.phase, 'Paused');
    assert.equal(p.state.step, 1);
    const aborted = planRollout(input({ instances: canaryReady, spec: spec({ abortRevision: 2 }) }));
    assert.equal(aborted.state.phase, 'Aborted');
    assert.equal(aborted.writes.length, 2);
  });
});
