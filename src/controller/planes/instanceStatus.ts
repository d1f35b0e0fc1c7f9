/**
 * Instance conditions and state (design/planes.md §15.2): `Ready` with the first applicable reason in the
 * spec's order, `Progressing` as its complement, written on every pass, error passes included (design/planes.md §18.3);
 * `lastTransitionTime` is kept while a condition's status does not change. Pure.
 */
import { type Condition, type ConditionStatus, condition } from '../core/conditions.ts';

export type InstanceReason =
  | 'Ready'
  | 'Progressing'
  | 'ClaimNotAccepted'
  | 'TargetUnavailable'
  | 'ExpressionError'
  | 'ApplyFailed'
  | 'PruneFailed'
  | 'PruneStorm'
  | 'DeleteFailed';

/** design/planes.md §15.2: when several apply, the first of this list wins. */
export const REASON_ORDER: readonly InstanceReason[] = [
  'ExpressionError',
  'ApplyFailed',
  'DeleteFailed',
  'PruneStorm',
  'PruneFailed',
  'TargetUnavailable',
  'ClaimNotAccepted',
  'Progressing',
];

export interface Problem {
  reason: InstanceReason;
  message: string;
}

export type InstanceState = 'ACTIVE' | 'IN_PROGRESS' | 'ERROR' | 'DELETING';

export interface InstanceStatusOut {
  conditions: Condition[];
  state: InstanceState;
}

export function previousConditions(obj: object): Condition[] {
  const s = (obj as { status?: unknown }).status as { conditions?: unknown } | undefined;
  return Array.isArray(s?.conditions) ? (s.conditions as Condition[]) : [];
}

/** Conditions and state from the problems of a pass (none: Ready). */
export function instanceConditions(
  previous: readonly Condition[],
  problems: readonly Problem[],
  generation: number,
  now: () => string,
  deleting = false,
): InstanceStatusOut {
  const first = REASON_ORDER.map((r) => problems.filter((p) => p.reason === r)).find((ps) => ps.length > 0);
  if (!first) {
    return {
      conditions: [
        condition(previous, 'Ready', 'True', 'Ready', 'all resources are ready', generation, now),
        condition(previous, 'Progressing', 'False', 'Reconciled', 'reconciled', generation, now),
      ],
      state: deleting ? 'DELETING' : 'ACTIVE',
    };
  }
  const reason = first[0]?.reason ?? 'Progressing';
  const message = first.map((p) => p.message).join('; ');
  const hard =
    reason === 'ExpressionError' ||
    reason === 'ApplyFailed' ||
    reason === 'DeleteFailed' ||
    reason === 'PruneStorm' ||
    reason === 'PruneFailed';
  const st: ConditionStatus = 'False';
  return {
    conditions: [
      condition(previous, 'Ready', st, reason, message, generation, now),
      condition(previous, 'Progressing', 'True', 'Progressing', message, generation, now),
    ],
    state: deleting ? 'DELETING' : hard ? 'ERROR' : 'IN_PROGRESS',
  };
}
