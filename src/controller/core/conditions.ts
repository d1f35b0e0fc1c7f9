/**
 * Status conditions as every controller writes them: the shape, and the one helper that keeps
 * `lastTransitionTime` while a condition's status does not change. Pure.
 */

export type ConditionStatus = 'True' | 'False' | 'Unknown';

export interface Condition {
  type: string;
  status: ConditionStatus;
  reason: string;
  message: string;
  observedGeneration: number;
  lastTransitionTime: string;
}

/** A condition; `lastTransitionTime` is kept from `previous` while the status does not change. */
export function condition(
  previous: readonly Condition[],
  type: string,
  status: ConditionStatus,
  reason: string,
  message: string,
  generation: number,
  now: () => string,
): Condition {
  const prev = previous.find((c) => c.type === type);
  return {
    type,
    status,
    reason,
    message,
    observedGeneration: generation,
    lastTransitionTime:
      prev && prev.status === status && prev.lastTransitionTime ? prev.lastTransitionTime : now(),
  };
}

/** The one way a pass marks its conditions: previous conditions, generation and clock bound once. */
export type ConditionMarker = (
  type: string,
  status: ConditionStatus,
  reason: string,
  message: string,
) => Condition;

export function conditionMarker(
  previous: readonly Condition[],
  generation: number,
  now: () => string,
): ConditionMarker {
  return (type, status, reason, message) =>
    condition(previous, type, status, reason, message, generation, now);
}
