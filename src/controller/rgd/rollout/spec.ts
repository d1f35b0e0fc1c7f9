/**
 * Reading a GraphRollout object (design/rgd.md §19.8): its spec as the planner's `RolloutSpec` and health
 * settings, its status as the recorded `RolloutState`. An unreadable field is a coded error, not a default.
 */
import { parseDuration } from '../../../cli/duration.ts';
import type { RolloutSpec, RolloutState, RolloutStep } from './plan.ts';

export type RolloutSpecErrorCode = 'InvalidDuration' | 'InvalidStep';

export class RolloutSpecError extends Error {
  readonly code: RolloutSpecErrorCode;
  constructor(code: RolloutSpecErrorCode, message: string) {
    super(message);
    this.name = 'RolloutSpecError';
    this.code = code;
  }
}

export interface HealthSpec {
  readyWhen: string[];
  failWhen: string[];
  /** A moved instance not ready after this long has failed. */
  progressDeadlineMs: number;
  /** CEL over `fleet` (total, pinned, governed, updated, ready, failed), checked before leaving a step. */
  gate?: string;
}

/** An instance is ready when kro says so: state ACTIVE (every resource ready). */
// biome-ignore lint/suspicious/noTemplateCurlyInString: a kgraph ${…} expression, not a JS template
export const DEFAULT_READY_WHEN = ['${schema.status.state == "ACTIVE"}'];
const DEFAULT_DEADLINE_MS = 600_000;

type Raw = Record<string, unknown>;
const obj = (v: unknown): Raw => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Raw) : {});
const strings = (v: unknown): string[] | undefined =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : undefined;
const int = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isInteger(v) ? v : undefined;

function duration(text: unknown, field: string): number | RolloutSpecError {
  if (typeof text !== 'string') return new RolloutSpecError('InvalidDuration', `${field} must be a duration`);
  try {
    return parseDuration(text, field);
  } catch (e) {
    return new RolloutSpecError('InvalidDuration', (e as Error).message);
  }
}

export function readRolloutSpec(o: object): { spec: RolloutSpec; health: HealthSpec } | RolloutSpecError {
  const s = obj((o as { spec?: unknown }).spec);
  const steps: RolloutStep[] = [];
  for (const [i, raw] of (Array.isArray(s.steps) ? s.steps : []).entries()) {
    const st = obj(raw);
    if (st.canary !== undefined) {
      const c = obj(st.canary);
      const ml = obj(obj(c.selector).matchLabels) as Record<string, string>;
      const namespaces = strings(c.namespaces);
      steps.push({
        canary: {
          ...(c.selector !== undefined ? { selector: { matchLabels: ml } } : {}),
          ...(namespaces ? { namespaces } : {}),
        },
      });
    } else if (st.pause !== undefined) {
      const d = obj(st.pause).duration;
      if (d === undefined) steps.push({ pause: {} });
      else {
        const ms = duration(d, `spec.steps[${i}].pause.duration`);
        if (ms instanceof RolloutSpecError) return ms;
        steps.push({ pause: { durationSeconds: ms / 1000 } });
      }
    } else if (st.batch !== undefined) {
      const b = obj(st.batch);
      const percent = int(b.percent);
      if (percent === undefined)
        return new RolloutSpecError('InvalidStep', `spec.steps[${i}].batch.percent must be an integer`);
      const maxInFlight = int(b.maxInFlight);
      steps.push({ batch: { percent, ...(maxInFlight !== undefined ? { maxInFlight } : {}) } });
    } else return new RolloutSpecError('InvalidStep', `spec.steps[${i}] is none of canary, pause, batch`);
  }
  const h = obj(s.health);
  let progressDeadlineMs = DEFAULT_DEADLINE_MS;
  if (h.progressDeadline !== undefined) {
    const ms = duration(h.progressDeadline, 'spec.health.progressDeadline');
    if (ms instanceof RolloutSpecError) return ms;
    progressDeadlineMs = ms;
  }
  const f = obj(s.onFailure);
  return {
    spec: {
      steps,
      maxFailures: int(f.maxFailures) ?? 1,
      onFailure: f.action === 'Halt' ? 'Halt' : 'Rollback',
      newInstances: s.newInstances === 'Latest' ? 'Latest' : 'Stable',
      paused: s.paused === true,
      ...promotion(s.promoted),
      ...(int(s.abortRevision) !== undefined ? { abortRevision: int(s.abortRevision) as number } : {}),
      retry: int(s.retry) ?? 0,
    },
    health: {
      readyWhen: strings(h.readyWhen) ?? DEFAULT_READY_WHEN,
      failWhen: strings(h.failWhen) ?? [],
      progressDeadlineMs,
      ...(typeof s.gate === 'string' ? { gate: s.gate } : {}),
    },
  };
}

function promotion(v: unknown): Pick<RolloutSpec, 'promoted'> {
  const p = obj(v);
  const revision = int(p.revision);
  const step = int(p.step);
  return revision !== undefined && step !== undefined ? { promoted: { revision, step } } : {};
}

/** The recorded state in `status` (a restarted controller continues from it). */
export function readRolloutState(o: object): RolloutState {
  const st = obj((o as { status?: unknown }).status);
  const stable = int(st.stableRevision);
  const target = int(st.targetRevision);
  const phase = typeof st.phase === 'string' ? st.phase : undefined;
  return {
    ...(stable !== undefined ? { stableRevision: stable } : {}),
    ...(target !== undefined ? { targetRevision: target } : {}),
    ...(phase ? { phase: phase as RolloutState['phase'] } : {}),
    step: int(st.step) ?? 0,
    ...(typeof st.stepStartedAt === 'string' ? { stepStartedAt: st.stepStartedAt } : {}),
    ...(typeof st.startedAt === 'string' ? { startedAt: st.startedAt } : {}),
    retry: int(st.retry) ?? 0,
    // The failures that stopped the rollout stay listed while it is stopped.
    ...((phase === 'Halted' || phase === 'RolledBack') && Array.isArray(st.failed)
      ? { failed: strings(st.failed) ?? [] }
      : {}),
  };
}
