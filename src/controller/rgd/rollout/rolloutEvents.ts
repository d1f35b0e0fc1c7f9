/**
 * The events of a GraphRollout (docs/observability.md): a step reached, paused, halted, rolled back,
 * aborted or completed — what changed between the state before a pass and after it. The recorder
 * (core/events/recorder.ts) folds repeats into series and rate-limits them.
 */
import type { EventRecord, EventRegarding } from '../../core/events/recorder.ts';
import { ROLLOUT_API_VERSION, ROLLOUT_KIND } from './names.ts';
import type { RolloutState } from './plan.ts';

export function rolloutEvents(
  rollout: { name: string; uid?: string | undefined },
  before: RolloutState,
  after: RolloutState,
): EventRecord[] {
  const regarding: EventRegarding = {
    apiVersion: ROLLOUT_API_VERSION,
    kind: ROLLOUT_KIND,
    name: rollout.name,
    uid: rollout.uid,
  };
  const ev = (type: EventRecord['type'], reason: string, note: string): EventRecord => ({
    regarding,
    type,
    reason,
    action: 'Rollout',
    note,
  });
  const target = after.targetRevision ?? after.stableRevision;
  const failed = after.failed?.length ? ` (failed: ${after.failed.slice(0, 5).join(', ')})` : '';
  if (after.phase !== before.phase) {
    switch (after.phase) {
      case 'Halted':
        return [
          ev('Warning', 'RolloutHalted', `halted at step ${after.step} of revision ${target}${failed}`),
        ];
      case 'RolledBack':
        return [
          ev('Warning', 'RolloutRolledBack', `rolled back to revision ${after.stableRevision}${failed}`),
        ];
      case 'Aborted':
        return [ev('Warning', 'RolloutAborted', `aborted at step ${after.step} of revision ${target}`)];
      case 'Paused':
        return [ev('Normal', 'RolloutPaused', `paused at step ${after.step} of revision ${target}`)];
      case 'Completed':
        return [ev('Normal', 'RolloutCompleted', `revision ${after.stableRevision} is stable`)];
      case 'Progressing':
        if (before.phase === undefined || before.targetRevision !== after.targetRevision)
          return [
            ev('Normal', 'RolloutStarted', `rolling out revision ${target} from ${after.stableRevision}`),
          ];
    }
  }
  if (
    after.phase === 'Progressing' &&
    after.step > before.step &&
    after.targetRevision === before.targetRevision
  )
    return [ev('Normal', 'RolloutStep', `step ${after.step} of revision ${target}`)];
  return [];
}
