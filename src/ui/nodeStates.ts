/**
 * A node's state on the page. The engine knows five states from the observed state alone; two more
 * come only from the controller, which reports them in the Graph's ResourcesConverged condition: a
 * field-manager conflict with another Graph, and an apply the API server refused. Those name the
 * object kubectl-style (`configmap/cm -n ns`, src/diag/objectName.ts), which is how they are mapped back
 * to the node that renders it.
 */
import { kubectlNameIn } from '../diag/objectName.ts';
import type { ObjectIdentity } from '../runtime/observed.ts';
import type { NodeState } from '../runtime/types.ts';
import type { UiCondition, UiNodeState } from './model.ts';

export function engineState(s: NodeState): UiNodeState {
  return s === 'error' ? 'failed' : s;
}

/** How the controller names an object in its messages (controller/core/errors.ts `describeIdentity`). */
export function describeIdentity(id: ObjectIdentity): string {
  return kubectlNameIn(id);
}

export interface ControllerVerdict {
  state: 'conflict' | 'failed';
  message: string;
}

/** The part of a `; `-joined condition message that concerns `described`. */
function partAbout(message: string, needle: string): string | undefined {
  const part = message.split('; ').find((p) => p.includes(needle));
  return part;
}

/**
 * What the controller's last reconcile said about this object: a conflict or a failed apply, from
 * the ResourcesConverged condition. Undefined when it said nothing about it.
 */
export function controllerVerdict(
  conditions: readonly UiCondition[],
  id: ObjectIdentity,
): ControllerVerdict | undefined {
  const converged = conditions.find((c) => c.type === 'ResourcesConverged');
  if (!converged || converged.status === 'True') return undefined;
  const described = describeIdentity(id);
  if (converged.reason === 'FieldManagerConflict') {
    const part = partAbout(converged.message, `${described}: field conflict`);
    if (part) return { state: 'conflict', message: part };
  }
  if (converged.reason === 'ApplyFailed') {
    const part = partAbout(converged.message, `apply ${described}: `);
    if (part) return { state: 'failed', message: part };
  }
  return undefined;
}

/** Conditions of an object's status, leniently. */
export function conditionsOf(obj: Record<string, unknown> | undefined): UiCondition[] {
  const status = obj?.status;
  if (typeof status !== 'object' || status === null || Array.isArray(status)) return [];
  const list = (status as Record<string, unknown>).conditions;
  if (!Array.isArray(list)) return [];
  const out: UiCondition[] = [];
  for (const c of list) {
    if (typeof c !== 'object' || c === null) continue;
    const r = c as Record<string, unknown>;
    if (typeof r.type !== 'string') continue;
    out.push({
      type: r.type,
      status: typeof r.status === 'string' ? r.status : 'Unknown',
      reason: typeof r.reason === 'string' ? r.reason : '',
      message: typeof r.message === 'string' ? r.message : '',
    });
  }
  return out;
}
