/**
 * A GraphRollout's status (design/rgd.md §19.8): the recorded state (stable and target revision, phase,
 * step, when it started, the retry acted on), the counts, the failed instances, a message, and two
 * conditions: `Progressing` (True while the rollout moves or waits to move) and `Healthy` (no failure).
 */
import type { KubeObject } from '../../../kube/index.ts';
import type { Plan, RolloutState } from './plan.ts';

/** Failed instances listed in the status; the count says how many there are. */
const MAX_LISTED = 20;

interface Cond {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  observedGeneration: number;
  lastTransitionTime?: string;
}

export function rolloutStatus(
  ro: KubeObject,
  state: RolloutState,
  plan: Plan | undefined,
  problem: { code: string; message: string } | undefined,
  now: string,
): Record<string, unknown> {
  const gen = ro.metadata.generation ?? 0;
  const prev = ((ro.status as { conditions?: Cond[] } | undefined)?.conditions ?? []).filter(Boolean);
  const phase = state.phase ?? 'Progressing';
  const moving = phase === 'Progressing' || phase === 'Paused';
  const progressing: Cond = problem
    ? {
        type: 'Progressing',
        status: 'False',
        reason: problem.code,
        message: problem.message,
        observedGeneration: gen,
      }
    : {
        type: 'Progressing',
        status: moving ? 'True' : 'False',
        reason: phase,
        message: plan?.message ?? '',
        observedGeneration: gen,
      };
  const failed = plan?.counts.failed ?? 0;
  const healthy: Cond = {
    type: 'Healthy',
    status: failed === 0 ? 'True' : 'False',
    reason: failed === 0 ? 'NoFailures' : 'InstancesFailed',
    message: failed === 0 ? 'no instance failed at the target' : `${failed} instance(s) failed at the target`,
    observedGeneration: gen,
  };
  const conditions = [progressing, healthy].map((c) => {
    const was = prev.find((p) => p.type === c.type);
    return {
      ...c,
      lastTransitionTime: was && was.status === c.status ? (was.lastTransitionTime ?? now) : now,
    };
  });
  return {
    observedGeneration: gen,
    ...state,
    phase,
    ...(plan ? { counts: plan.counts, failed: plan.failed.slice(0, MAX_LISTED), message: plan.message } : {}),
    ...(problem ? { message: problem.message } : {}),
    conditions,
  };
}

/** Equal but for the conditions' transition times. */
export function sameStatus(a: unknown, b: unknown): boolean {
  return JSON.stringify(strip(a)) === JSON.stringify(strip(b));
}

function strip(s: unknown): unknown {
  if (!s || typeof s !== 'object') return s;
  const o = s as Record<string, unknown>;
  const conditions = Array.isArray(o.conditions)
    ? o.conditions.map((c) => {
        const { lastTransitionTime: _t, ...rest } = c as Record<string, unknown>;
        return rest;
      })
    : undefined;
  return sortKeys({ ...o, ...(conditions ? { conditions } : {}) });
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (!v || typeof v !== 'object') return v;
  return Object.fromEntries(
    Object.keys(v as object)
      .sort()
      .map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]),
  );
}
