/**
 * The writes of one reconcile pass, shared by Graphs and RGD instances: template objects by server-side
 * apply under the caller's policy (Graph: one manager per Graph, not forced, reclaiming fields from
 * non-Graph managers; RGD: `kro.run/applyset`, forced), and patch payloads under their per-node managers.
 * An apply whose desired fields already agree with what the manager owns is skipped (zero writes in
 * steady state).
 */
import { isApiError, type KubeObject, type RestClient } from '../../kube/index.ts';
import type { ObjectIdentity } from '../../runtime/observed.ts';
import type { NodeResult } from '../../runtime/types.ts';
import { appliedFieldsAgree } from '../ownership.ts';
import type { WatchSet } from '../watches.ts';
import type { DesiredObject, DesiredPatch } from './desired.ts';
import { applyError, conflictMessage, isTargetVanished, withUidPrecondition } from './errors.ts';

/** What one reconcile learned while applying. */
export interface ApplyState {
  /** resourceKey → uid of objects applied (or agreeing) this reconcile. */
  uids: Map<string, string>;
  conflicts: string[];
  hardError?: string;
  wrote: boolean;
}

export function newApplyState(): ApplyState {
  return { uids: new Map(), conflicts: [], wrote: false };
}

export interface TemplatePolicy {
  manager: string;
  /** Force every apply (RGD children, §1). */
  force: boolean;
  /**
   * Without `force`: a conflict with one of these managers is reported (FieldManagerConflict); a
   * conflict with any other manager is reclaimed with a forced apply (§13.2).
   */
  protectedManager?: (manager: string) => boolean;
  /** A reason not to touch an observed object at all (e.g. it belongs to another ApplySet): a hard error. */
  refuse?: (desired: DesiredObject, observed: Record<string, unknown>) => string | undefined;
}

export type CacheView = { get(id: ObjectIdentity): Record<string, unknown> | undefined };

export interface Applier {
  writer: RestClient;
  watches: WatchSet;
  /** Parallel applies within one collection (§25, default 20). */
  concurrency: number;
}

export async function applyOne(
  a: Applier,
  obj: Record<string, unknown>,
  fieldManager: string,
  force: boolean,
  subresource: string,
): Promise<KubeObject> {
  const body = obj as KubeObject;
  const res =
    subresource === 'status'
      ? await a.writer.applyStatus(body, { fieldManager, force })
      : await a.writer.apply(body, { fieldManager, force });
  a.watches.noteWritten(res);
  return res;
}

export async function applyTemplates(
  a: Applier,
  desired: DesiredObject[],
  policy: TemplatePolicy,
  view: CacheView,
  state: ApplyState,
): Promise<void> {
  // Nodes serially in topological order; the items of one collection in parallel (bounded).
  const byNode = new Map<NodeResult, DesiredObject[]>();
  for (const d of desired) byNode.set(d.node, [...(byNode.get(d.node) ?? []), d]);
  for (const items of byNode.values()) {
    await pool(items, a.concurrency, async (d) => {
      if (state.hardError) return;
      const observed = view.get(d.id);
      const refusal = observed ? policy.refuse?.(d, observed) : undefined;
      if (refusal) {
        state.hardError ??= refusal;
        return;
      }
      if (appliedFieldsAgree(d.obj, observed, policy.manager)) {
        const u = (observed?.metadata as { uid?: string } | undefined)?.uid;
        if (u) state.uids.set(d.key, u);
        return;
      }
      try {
        const res = await applyOne(a, d.obj, policy.manager, policy.force, '');
        state.uids.set(d.key, res.metadata.uid ?? '');
        state.wrote = true;
      } catch (e) {
        if (!policy.force && isApiError(e) && e.isApplyConflict) {
          if (e.conflictingManagers.some((m) => policy.protectedManager?.(m) ?? false)) {
            state.conflicts.push(conflictMessage(d.id, e));
            return;
          }
          // A human or another controller changed a field we manage: reclaim it (§13.2).
          try {
            const res = await applyOne(a, d.obj, policy.manager, true, '');
            state.uids.set(d.key, res.metadata.uid ?? '');
            state.wrote = true;
          } catch (e2) {
            state.hardError ??= applyError(d.id, e2);
          }
          return;
        }
        state.hardError ??= applyError(d.id, e);
      }
    });
    if (state.hardError) return;
  }
}

/** Patches: never create their target, never force the main endpoint (status is forced, §13.2). */
export async function applyPatches(
  a: Applier,
  patches: DesiredPatch[],
  view: CacheView,
  state: ApplyState,
): Promise<void> {
  for (const p of patches) {
    const target = view.get(p.id);
    if (!target) continue; // a patch never creates its target
    const sub = p.contribution.subresource;
    if (appliedFieldsAgree(p.obj, target, p.contribution.fieldManager, sub)) continue;
    try {
      await applyOne(
        a,
        withUidPrecondition(p.obj, target),
        p.contribution.fieldManager,
        sub === 'status',
        sub,
      );
      state.wrote = true;
    } catch (e) {
      if (isApiError(e) && e.isApplyConflict) {
        state.conflicts.push(conflictMessage(p.id, e));
        continue;
      }
      if (isTargetVanished(e)) continue; // the watch brings the change; the node waits meanwhile
      state.hardError ??= applyError(p.id, e);
      return;
    }
  }
}

export async function pool<T>(items: T[], limit: number, f: (t: T) => Promise<void>): Promise<void> {
  let i = 0;
  const worker = async (): Promise<void> => {
    while (i < items.length) {
      const item = items[i++] as T;
      await f(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, () => worker()));
}
