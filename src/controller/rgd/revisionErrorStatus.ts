/**
 * The status of an instance whose revision is not available (design/rgd.md §19.7): the instance stops,
 * its projected fields stay as they were.
 */
import type { KubeObject } from '../../kube/index.ts';
import { type InstanceStatus, instanceConditions, parseConditions } from './instanceStatus.ts';
import { KRO_MESSAGES } from './kroMessages.ts';
import type { RevisionResolutionError } from './revisionPolicy.ts';

/** The status of an instance stopped on its revision: the error's code is the reason, the state ERROR. */
export function revisionErrorStatus(
  inst: KubeObject,
  err: RevisionResolutionError,
  now: () => string,
): InstanceStatus {
  const prev = parseConditions(inst as unknown as Record<string, unknown>);
  const conditions = instanceConditions(
    prev,
    {
      managed: { status: 'True', reason: 'Managed', message: KRO_MESSAGES.managed },
      resolved: { status: 'False', reason: err.code, message: err.message },
      resourcesReady: {
        status: 'False',
        reason: err.code,
        message: 'not reconciled: the revision it asks for is not available',
      },
    },
    inst.metadata.generation ?? 0,
    now,
  );
  const fields = Object.fromEntries(
    Object.entries((inst.status ?? {}) as Record<string, unknown>).filter(
      ([k]) => k !== 'conditions' && k !== 'state',
    ),
  );
  return { fields, conditions, state: 'ERROR' };
}
