/**
 * A managed child held in deletion (a deletionTimestamp, kept by someone's finalizer) blocks the
 * instance's pass as kro's instance controller does: nothing is applied until it is gone, then it is
 * created again and the dependents follow. ResourcesReady says which object, in kro's words.
 */
import type { CacheView } from '../core/apply.ts';
import type { DesiredObject } from '../core/desired.ts';

export interface TerminatingChild {
  /** Node id (path) of the desired object. */
  readonly node: string;
  /** `namespace/name`, or `name` for a cluster-scoped object (kro's resourceRef). */
  readonly ref: string;
}

/** The first desired object, in apply order, whose cached copy is being deleted. */
export function firstTerminating(
  desired: readonly DesiredObject[],
  view: CacheView,
): TerminatingChild | undefined {
  for (const d of desired) {
    const observed = view.get(d.id);
    const meta = observed?.metadata as { deletionTimestamp?: string } | undefined;
    if (meta?.deletionTimestamp === undefined) continue;
    return { node: d.node.path, ref: d.id.namespace ? `${d.id.namespace}/${d.id.name}` : d.id.name };
  }
  return undefined;
}

/** kro's ResourcesReady message (reason ResourceDeleting) for a terminating child. */
export function terminatingMessage(t: TerminatingChild): string {
  return `resource ${JSON.stringify(t.ref)} for node ${JSON.stringify(t.node)} is currently being deleted; waiting for deletion to complete before continuing reconciliation`;
}
