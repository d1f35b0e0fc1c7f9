/**
 * The pure planning of a progressive rollout (design/rgd.md §19.8): given the fleet, the rollout's spec
 * and its recorded state, which instances are at which revision now, what to write next and what the
 * status says. No kube imports and no clock of its own: the controller hands in `now` and the
 * instances' health, and writes what this returns. Every decision is a function of the recorded state
 * (status and the instances' annotations), so a restarted controller plans exactly the same step.
 *
 * Order: oldest first, then namespace/name. A canary step moves the instances its selector and
 * namespaces name; a batch step moves the first instances of that order until `percent` of the governed
 * fleet is at the target, at most `maxInFlight` not yet ready at a time; a pause waits for a duration or
 * for `kgraph rollout promote`. After the last step everything governed is moved. Pinned instances
 * (`kgraph.dev/revision-policy: Manual`) are never governed.
 */

export type Phase = 'Progressing' | 'Paused' | 'Halted' | 'RolledBack' | 'Aborted' | 'Completed';

export interface CanaryStep {
  canary: { selector?: { matchLabels?: Record<string, string> }; namespaces?: string[] };
}
export interface PauseStep {
  pause: { durationSeconds?: number };
}
export interface BatchStep {
  batch: { percent: number; maxInFlight?: number };
}
export type RolloutStep = CanaryStep | PauseStep | BatchStep;

export interface RolloutSpec {
  steps: RolloutStep[];
  /** Failures (failWhen, progress deadline) tolerated before `onFailure` acts; default 1. */
  maxFailures: number;
  onFailure: 'Halt' | 'Rollback';
  /** Instances created after the rollout started: at the target or at the stable revision. */
  newInstances: 'Latest' | 'Stable';
  paused: boolean;
  /**
   * What `kgraph rollout promote` released: pauses up to `step` of the rollout to `revision` (a promotion
   * names its target, so it never releases the pauses of a later rollout).
   */
  promoted?: { revision: number; step: number };
  /** `kgraph rollout abort` of the rollout to this revision. */
  abortRevision?: number;
  /** Bumped by `kgraph rollout retry`: a halted rollout starts its step again. */
  retry: number;
}

export interface RolloutState {
  stableRevision?: number;
  targetRevision?: number;
  phase?: Phase;
  step: number;
  /** When the current step started (ISO). */
  stepStartedAt?: string;
  /** When this target's rollout started (ISO): instances created later are "new". */
  startedAt?: string;
  /** The `spec.retry` already acted on. */
  retry: number;
  /** The instances whose failure halted or rolled back this target (`namespace/name`). */
  failed?: string[];
}

/** How a moved instance is doing at the target, judged by the controller (health.ts). */
export type Health = 'Pending' | 'Ready' | 'Failed';

export interface FleetInstance {
  namespace: string;
  name: string;
  /** creationTimestamp (ISO). */
  created: string;
  labels: Record<string, string>;
  /** Pinned by its owner: never governed. */
  pinned: boolean;
  /** The revision the rollout assigned (its annotation), if any. */
  assigned?: number;
  /** When the rollout assigned it (ISO). */
  assignedAt?: string;
  /** At the target: how it is doing; undefined when not (yet) reconciled at the target. */
  health?: Health;
}

export type Write =
  | { kind: 'assign'; namespace: string; name: string; revision: number }
  | { kind: 'release'; namespace: string; name: string };

export interface Counts {
  total: number;
  pinned: number;
  governed: number;
  /** Assigned to the target (or following it as new instances). */
  updated: number;
  ready: number;
  failed: number;
}

export interface Plan {
  state: RolloutState;
  writes: Write[];
  counts: Counts;
  /** Failed instances, `namespace/name`. */
  failed: string[];
  /** Why the rollout waits, for the status message. */
  message: string;
  /** Look again after this long (a timed pause, a progress deadline); undefined: on events only. */
  recheckAfterMs?: number;
}

export interface PlanInput {
  spec: RolloutSpec;
  state: RolloutState;
  /** The RGD's latest revision. */
  latest: number;
  instances: FleetInstance[];
  now: string;
  /** The fleet gate, evaluated on the counts before leaving a step (undefined: none). */
  gate?: (counts: Counts) => boolean;
}

const key = (i: { namespace: string; name: string }): string => `${i.namespace}/${i.name}`;

/** Oldest first, then namespace/name. */
export function fleetOrder<T extends { created: string; namespace: string; name: string }>(xs: T[]): T[] {
  return [...xs].sort(
    (a, b) =>
      (a.created < b.created ? -1 : a.created > b.created ? 1 : 0) ||
      (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0),
  );
}

function isCanary(s: RolloutStep): s is CanaryStep {
  return 'canary' in s;
}
function isBatch(s: RolloutStep): s is BatchStep {
  return 'batch' in s;
}
function isPause(s: RolloutStep): s is PauseStep {
  return 'pause' in s;
}

function inCanary(i: FleetInstance, c: CanaryStep['canary']): boolean {
  const ml = c.selector?.matchLabels;
  const byLabels = ml !== undefined && Object.entries(ml).every(([k, v]) => i.labels[k] === v);
  const byNs = c.namespaces?.includes(i.namespace) === true;
  if (ml !== undefined && c.namespaces !== undefined) return byLabels && byNs;
  return byLabels || byNs;
}

/**
 * The instances that are at the target once steps 0..`step` ran (`step` = steps.length: all), in the
 * order they are moved, and the in-flight bound of that step.
 */
export function desiredThrough(
  spec: Pick<RolloutSpec, 'steps'>,
  governed: FleetInstance[],
  step: number,
): { members: FleetInstance[]; maxInFlight: number } {
  const ordered = fleetOrder(governed);
  if (step >= spec.steps.length) return { members: ordered, maxInFlight: maxInFlightOf(spec, step) };
  const canary = new Set<string>();
  let percent = 0;
  for (const s of spec.steps.slice(0, step + 1)) {
    if (isCanary(s)) for (const i of ordered) if (inCanary(i, s.canary)) canary.add(key(i));
    if (isBatch(s)) percent = Math.max(percent, Math.min(100, Math.max(0, s.batch.percent)));
  }
  const want = Math.ceil((percent / 100) * ordered.length);
  const members = ordered.filter((i) => canary.has(key(i)));
  for (const i of ordered) {
    if (members.length >= want) break;
    if (!canary.has(key(i))) members.push(i);
  }
  return { members, maxInFlight: maxInFlightOf(spec, step) };
}

function maxInFlightOf(spec: Pick<RolloutSpec, 'steps'>, step: number): number {
  const s = spec.steps[step];
  if (s && isBatch(s) && s.batch.maxInFlight !== undefined && s.batch.maxInFlight > 0)
    return s.batch.maxInFlight;
  // After the last step, the last batch's bound applies; a canary moves all of its members at once.
  if (step >= spec.steps.length) {
    const last = [...spec.steps].reverse().find(isBatch);
    if (last?.batch.maxInFlight !== undefined && last.batch.maxInFlight > 0) return last.batch.maxInFlight;
  }
  return Number.POSITIVE_INFINITY;
}

/** The revision an instance that names none resolves to under this rollout state. */
export function defaultRevision(
  state: RolloutState,
  spec: Pick<RolloutSpec, 'newInstances'>,
  created: string,
): number | undefined {
  if (state.stableRevision === undefined) return undefined;
  const rolling = state.phase === 'Progressing' || state.phase === 'Paused' || state.phase === 'Halted';
  if (
    rolling &&
    spec.newInstances === 'Latest' &&
    state.targetRevision !== undefined &&
    state.startedAt !== undefined &&
    created > state.startedAt
  )
    return state.targetRevision;
  return state.stableRevision;
}

/** One planning round. */
export function planRollout(input: PlanInput): Plan {
  const { spec, latest, now } = input;
  let state: RolloutState = { ...input.state };
  const governed = input.instances.filter((i) => !i.pinned);
  const counts = (): Counts => countsOf(input.instances, state, spec);
  const done = (message: string, writes: Write[] = [], recheckAfterMs?: number): Plan => ({
    state,
    writes,
    counts: counts(),
    failed: state.failed ?? failedOf(governed, state),
    message,
    ...(recheckAfterMs !== undefined ? { recheckAfterMs } : {}),
  });

  // First sight: the fleet is at the latest revision, which is stable.
  if (state.stableRevision === undefined) {
    state = { step: spec.steps.length, retry: spec.retry, stableRevision: latest, phase: 'Completed' };
    return done(`revision ${latest} is stable`, releaseAll(governed));
  }
  // A new target: a rollout from the stable revision starts at step 0 (also when one was under way).
  if (latest !== state.targetRevision && latest !== state.stableRevision) {
    state = {
      stableRevision: state.stableRevision,
      targetRevision: latest,
      phase: 'Progressing',
      step: 0,
      stepStartedAt: now,
      startedAt: now,
      retry: spec.retry,
    };
  }
  // The latest went back to the stable revision (an undo): nothing to roll; hand everything back.
  if (latest === state.stableRevision && state.phase !== 'Completed') {
    const { targetRevision: _t, ...rest } = state;
    state = { ...rest, phase: 'Completed', step: spec.steps.length };
    return done(`revision ${latest} is stable`, releaseAll(governed));
  }
  const target = state.targetRevision;
  const stable = state.stableRevision;
  if (target === undefined || state.phase === 'Completed')
    return done(`revision ${stable} is stable`, releaseAll(governed));

  const stopped = state.phase === 'Halted' || state.phase === 'RolledBack' || state.phase === 'Aborted';
  const abort = spec.abortRevision !== undefined && spec.abortRevision === target;
  if (stopped && spec.retry > state.retry && !abort) {
    // Retry: the step starts again; the failed instances are moved back first, then forward.
    const { failed: _f, ...rest } = state;
    state = { ...rest, phase: 'Progressing', retry: spec.retry, stepStartedAt: now };
    return done(
      `retrying step ${state.step}`,
      governed.filter((i) => i.health === 'Failed' && i.assigned !== undefined).map(release),
    );
  }
  if (abort && state.phase !== 'Aborted') state = { ...state, phase: 'Aborted' };
  if (state.phase === 'Aborted' || state.phase === 'RolledBack')
    return done(`back at revision ${stable}`, releaseAll(governed));
  if (state.phase === 'Halted') return done('halted: failures reached the limit', []);

  // Failures decide first.
  const failures = governed.filter((i) => isMoved(i, state, spec) && i.health === 'Failed');
  if (failures.length >= Math.max(1, spec.maxFailures)) {
    const failed = failures.map(key).sort();
    if (spec.onFailure === 'Rollback') {
      state = { ...state, phase: 'RolledBack', failed };
      return done(`rolled back to revision ${stable}: ${failures.length} failed`, releaseAll(governed));
    }
    state = { ...state, phase: 'Halted', failed };
    return done(`halted: ${failures.length} failed`, []);
  }

  state = { ...state, phase: spec.paused ? 'Paused' : 'Progressing' };
  const { members, maxInFlight } = desiredThrough(spec, governed, state.step);
  const wanted = new Set(members.map(key));
  const writes: Write[] = [];
  // Instances not wanted at the target (yet) go back to following the stable revision.
  for (const i of governed)
    if (!wanted.has(key(i)) && i.assigned !== undefined && i.assigned !== stable) writes.push(release(i));
  let inFlight = members.filter((i) => i.assigned === target && i.health !== 'Ready').length;
  if (!spec.paused) {
    for (const i of members) {
      if (i.assigned === target) continue;
      if (inFlight >= maxInFlight) break;
      writes.push({ kind: 'assign', namespace: i.namespace, name: i.name, revision: target });
      inFlight += 1;
    }
  }
  const stepReady = members.every((i) => i.assigned === target && i.health === 'Ready');
  if (!stepReady || writes.length > 0)
    return done(
      `step ${state.step}: ${members.filter((i) => i.health === 'Ready').length}/${members.length} ready`,
      writes,
    );
  if (input.gate && !input.gate(counts()))
    return done(`step ${state.step}: waiting for the fleet gate`, writes);
  if (spec.paused) return done(`paused at step ${state.step}`, writes);

  // The step is done: a pause waits; anything else moves on.
  const step = spec.steps[state.step];
  const promotedStep = spec.promoted?.revision === target ? spec.promoted.step : -1;
  if (step && isPause(step) && state.step > promotedStep) {
    const d = step.pause.durationSeconds;
    if (d === undefined) {
      state = { ...state, phase: 'Paused' };
      return done(`paused at step ${state.step} until promoted`, writes);
    }
    const left = Date.parse(state.stepStartedAt ?? now) + d * 1000 - Date.parse(now);
    if (left > 0) {
      state = { ...state, phase: 'Paused' };
      return done(`paused at step ${state.step} for ${Math.ceil(left / 1000)}s`, writes, left);
    }
  }
  if (state.step >= spec.steps.length) {
    // Everything governed is at the target and ready: it becomes stable, the assignments are released.
    state = {
      stableRevision: target,
      phase: 'Completed',
      step: spec.steps.length,
      retry: state.retry,
      ...(state.startedAt !== undefined ? { startedAt: state.startedAt } : {}),
    };
    return done(`revision ${target} is stable`, releaseAll(governed));
  }
  state = { ...state, step: state.step + 1, stepStartedAt: now };
  // Plan the next step at once (its assignments go out in this round).
  const next = planRollout({ ...input, state });
  return { ...next, writes: [...writes, ...next.writes] };
}

function release(i: FleetInstance): Write {
  return { kind: 'release', namespace: i.namespace, name: i.name };
}

function releaseAll(governed: FleetInstance[]): Write[] {
  return governed.filter((i) => i.assigned !== undefined).map(release);
}

/** At the target through the rollout: assigned, or a new instance that follows the target by default. */
function isMoved(i: FleetInstance, state: RolloutState, spec: RolloutSpec): boolean {
  if (i.assigned !== undefined) return i.assigned === state.targetRevision;
  return (
    defaultRevision(state, spec, i.created) === state.targetRevision && state.targetRevision !== undefined
  );
}

function countsOf(all: FleetInstance[], state: RolloutState, spec: RolloutSpec): Counts {
  const governed = all.filter((i) => !i.pinned);
  const moved = governed.filter((i) => isMoved(i, state, spec));
  return {
    total: all.length,
    pinned: all.length - governed.length,
    governed: governed.length,
    updated: moved.length,
    ready: moved.filter((i) => i.health === 'Ready').length,
    failed: moved.filter((i) => i.health === 'Failed').length,
  };
}

function failedOf(governed: FleetInstance[], state: RolloutState): string[] {
  return governed
    .filter((i) => i.assigned === state.targetRevision && i.health === 'Failed')
    .map(key)
    .sort();
}
