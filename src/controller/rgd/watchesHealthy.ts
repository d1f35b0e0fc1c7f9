/**
 * The instance condition WatchesHealthy (design/rgd.md §20.5): whether the informers behind every read of
 * the last pass are serving. It does not feed Ready: a pending watch already shows as data the pass could
 * not read, and Ready says why the resources are not ready; this condition names the watch itself.
 */
import { type Condition, condition } from '../core/conditions.ts';
import type { WatchHealth } from '../core/watches.ts';
import type { ConditionInput } from './instanceStatus.ts';

export const WATCHES_HEALTHY = 'WatchesHealthy';

export function watchesHealthyInput(h: WatchHealth): ConditionInput {
  if (h.blocked.length > 0) {
    return { status: 'False', reason: 'WatchBlocked', message: `cannot watch ${h.blocked.join('; ')}` };
  }
  if (h.pending.length > 0) {
    return {
      status: 'False',
      reason: 'WatchesPending',
      message: `waiting for the watches of ${h.pending.join(', ')} to sync`,
    };
  }
  return { status: 'True', reason: 'WatchesSynced', message: 'every resource the instance reads is watched' };
}

/**
 * The built-in conditions with WatchesHealthy after them. Conditions authored by the RGD (design/rgd.md §20.3)
 * are the whole wire set and stay as they are.
 */
export function withWatchesHealthy(
  conditions: Condition[],
  previous: readonly Condition[],
  input: ConditionInput,
  generation: number,
  now: () => string,
): Condition[] {
  if (!conditions.some((c) => c.type === 'InstanceManaged')) return conditions;
  const rest = conditions.filter((c) => c.type !== WATCHES_HEALTHY);
  return [
    ...rest,
    condition(previous, WATCHES_HEALTHY, input.status, input.reason, input.message, generation, now),
  ];
}
