/**
 * The status kgraph writes on an RGD instance (design/rgd.md §20.2, design/graph.md §21.3): the author's projected
 * fields, the conditions InstanceManaged, GraphResolved, ResourcesReady and Ready (the root), and
 * `state` IN_PROGRESS | ACTIVE | DELETING | ERROR. With custom conditions (design/rgd.md §20.3) the author's
 * conditions replace the four built-ins on the wire. Pure.
 */

import { isRecord } from '../../diag/record.ts';
import type { BuiltinCondition, CustomConditionsResult } from '../../runtime/index.ts';
import { type Condition, type ConditionStatus, condition } from '../core/conditions.ts';
import { jsonEqual } from '../core/jsonEqual.ts';
import { KRO_MESSAGES } from './kroMessages.ts';

export type InstanceState = 'IN_PROGRESS' | 'ACTIVE' | 'DELETING' | 'ERROR';

export const BUILTIN_INSTANCE_CONDITIONS = [
  'InstanceManaged',
  'GraphResolved',
  'ResourcesReady',
  'Ready',
] as const;

export interface InstanceStatus {
  /** The author's projected fields (design/rgd.md §20.2), without `conditions` and `state`. */
  fields: Record<string, unknown>;
  conditions: Condition[];
  state: InstanceState;
}

export interface ConditionInput {
  status: ConditionStatus;
  reason: string;
  message: string;
}

/** The conditions currently on the instance (lenient: a human may have edited them). */
export function parseConditions(instance: Record<string, unknown>): Condition[] {
  const s = isRecord(instance.status) ? instance.status : {};
  const out: Condition[] = [];
  for (const c of Array.isArray(s.conditions) ? s.conditions : []) {
    if (!isRecord(c) || typeof c.type !== 'string') continue;
    out.push({
      type: c.type,
      status: c.status === 'True' || c.status === 'False' ? c.status : 'Unknown',
      reason: typeof c.reason === 'string' ? c.reason : '',
      message: typeof c.message === 'string' ? c.message : '',
      observedGeneration: typeof c.observedGeneration === 'number' ? c.observedGeneration : 0,
      lastTransitionTime: typeof c.lastTransitionTime === 'string' ? c.lastTransitionTime : '',
    });
  }
  return out;
}

/**
 * The four built-in conditions; Ready is True when the other three are, otherwise a copy of the first
 * one that is not (in the order above), as the Graph's Ready copies its least healthy dependent.
 */
export function instanceConditions(
  previous: readonly Condition[],
  parts: { managed: ConditionInput; resolved: ConditionInput; resourcesReady: ConditionInput },
  generation: number,
  now: () => string,
): Condition[] {
  const managed = condition(
    previous,
    'InstanceManaged',
    parts.managed.status,
    parts.managed.reason,
    parts.managed.message,
    generation,
    now,
  );
  const resolved = condition(
    previous,
    'GraphResolved',
    parts.resolved.status,
    parts.resolved.reason,
    parts.resolved.message,
    generation,
    now,
  );
  const ready = condition(
    previous,
    'ResourcesReady',
    parts.resourcesReady.status,
    parts.resourcesReady.reason,
    parts.resourcesReady.message,
    generation,
    now,
  );
  const worst = [managed, resolved, ready].find((c) => c.status !== 'True');
  const root = worst
    ? condition(
        previous,
        'Ready',
        worst.status === 'Unknown' ? 'Unknown' : 'False',
        worst.reason,
        worst.message,
        generation,
        now,
      )
    : condition(previous, 'Ready', 'True', 'Ready', KRO_MESSAGES.ready, generation, now);
  return [managed, resolved, ready, root];
}

/** A condition as written: an empty message is left out, as kro leaves it out. */
export function conditionJson(c: Condition): Record<string, unknown> {
  const { message, ...rest } = c;
  return message === '' ? { ...rest } : { ...c };
}

/** The status object as written (stable key order: fields, conditions, state). */
export function instanceStatusJson(s: InstanceStatus): Record<string, unknown> {
  return { ...s.fields, conditions: s.conditions.map(conditionJson), state: s.state };
}

/** True when `s` is what the instance's status already says (no write needed). */
export function instanceStatusMatches(instance: Record<string, unknown>, s: InstanceStatus): boolean {
  return jsonEqual(isRecord(instance.status) ? instance.status : {}, instanceStatusJson(s));
}

/** The built-in conditions as the author's `runtime.condition(schema, …)` reads them (no timestamps). */
export function builtinsForConditions(conditions: readonly Condition[]): BuiltinCondition[] {
  return conditions.map(({ type, status, reason, message }) => ({ type, status, reason, message }));
}

/**
 * The conditions written when the RGD declares custom ones (design/rgd.md §20.3): the authored conditions in
 * declaration order (a type produced twice is dropped, degraded), timestamps kept while a status does not change. When
 * an entry was data pending (`incomplete`), the previously written condition of every authored type
 * that produced nothing this pass is kept. `degraded` (some entry failed) makes the state ERROR; only
 * the conditions that evaluated are written (design/rgd.md §20.3).
 */
export function customInstanceConditions(
  previous: readonly Condition[],
  custom: CustomConditionsResult,
  generation: number,
  now: () => string,
): { conditions: Condition[]; degraded: boolean } {
  const out: Condition[] = [];
  // A type two entries produced at run time (a computed type; literal duplicates are refused at compile
  // time) is dropped altogether and the instance degraded, as kro does: neither copy is the author's answer.
  const count = new Map<string, number>();
  for (const c of custom.conditions) count.set(c.type, (count.get(c.type) ?? 0) + 1);
  const duplicated = new Set([...count].filter(([, n]) => n > 1).map(([t]) => t));
  const seen = new Set<string>(duplicated);
  for (const c of custom.conditions) {
    if (seen.has(c.type)) continue;
    seen.add(c.type);
    out.push(condition(previous, c.type, c.status, c.reason, c.message, generation, now));
  }
  if (custom.incomplete) {
    const builtin = new Set<string>(BUILTIN_INSTANCE_CONDITIONS);
    for (const p of previous) {
      if (!seen.has(p.type) && !builtin.has(p.type)) {
        seen.add(p.type);
        out.push({ ...p });
      }
    }
  }
  return { conditions: out, degraded: custom.errors.length > 0 || duplicated.size > 0 };
}
