/**
 * The writes of one reconcile pass, shared by Graphs and RGD instances: template objects by server-side
 * apply under the caller's policy (Graph: one manager per Graph, not forced, reclaiming fields from
 * non-Graph managers; RGD: `kro.run/applyset`, forced), and patch payloads under their per-node managers.
 * An apply that would change nothing is skipped (zero writes in steady state, also after a restart:
 * applyMemory.ts), and a pass continues the convergence only if an apply changed an object.
 */
import { isApiError, type KubeObject, type RestClient } from '../../kube/index.ts';
import { noteWrite, withSpan } from '../../kube/tracing/tracing.ts';
import type { ObjectIdentity } from '../../runtime/observed.ts';
import type { NodeResult } from '../../runtime/types.ts';
import { type ApplyMemory, needsApply } from './applyMemory.ts';
import type { DesiredObject, DesiredPatch } from './desired.ts';
import { applyError, conflictMessage, isTargetVanished, withUidPrecondition } from './errors.ts';
import type { WatchSet } from './watches.ts';

/** What one reconcile learned while applying. */
export interface ApplyState {
  /** resourceKey → uid of objects applied (or agreeing) this reconcile. */
  uids: Map<string, string>;
  conflicts: string[];
  hardError?: string;
  /** The condition reason for `hardError` when it is not an apply failure (`ExpressionError`). */
  hardReason?: string;
  /** A read the owner's identity may not do (ReadForbidden): nothing was written. */
  forbidden?: string;
  /** An apply of this pass changed an object (created it or moved its resourceVersion). */
  wrote: boolean;
  /** An apply of any pass of this reconcile changed an object. */
  wroteAny: boolean;
  /** What this reconcile's applies created and changed (resource keys), for its events and history. */
  changes: { created: string[]; updated: string[] };
}

export function newApplyState(): ApplyState {
  return {
    uids: new Map(),
    conflicts: [],
    wrote: false,
    wroteAny: false,
    changes: { created: [], updated: [] },
  };
}

export interface TemplatePolicy {
  manager: string;
  /** Force every apply (RGD children, design/graph.md §1). */
  force: boolean;
  /**
   * Without `force`: a conflict with one of these managers is reported (FieldManagerConflict); a
   * conflict with any other manager is reclaimed with a forced apply (design/graph.md §13.2).
   */
  protectedManager?: (manager: string) => boolean;
  /** A reason not to touch an observed object at all (e.g. it belongs to another ApplySet): a hard error. */
  refuse?: (desired: DesiredObject, observed: Record<string, unknown>) => string | undefined;
}

export type CacheView = { get(id: ObjectIdentity): Record<string, unknown> | undefined };

export interface Applier {
  writer: RestClient;
  watches: WatchSet;
  /** Parallel applies within one collection (design/graph.md §25, default 20). */
  concurrency: number;
  /** Remembered apply results and dry runs (undefined: decide from the cache alone). */
  memory?: ApplyMemory;
  /** The queue key of the object reconciled (its own writes' watch events are not news to it). */
  owner?: string;
}

export async function applyOne(
  a: Applier,
  obj: Record<string, unknown>,
  fieldManager: string,
  force: boolean,
  subresource: string,
  desired: Record<string, unknown> = obj,
): Promise<KubeObject> {
  const body = obj as KubeObject;
  // A nested instance or stamped Graph written here joins this pass's trace (tracing/writeOrigins.ts);
  // noted before the write, as its watch event may come before the answer.
  noteWrite(body.apiVersion, body.kind, body.metadata?.namespace, body.metadata?.name ?? '');
  const res =
    subresource === 'status'
      ? await a.writer.applyStatus(body, { fieldManager, force })
      : await a.writer.apply(body, { fieldManager, force });
  a.watches.noteWritten(res, a.owner);
  a.memory?.remember(desired, res, fieldManager, subresource);
  return res;
}

/**
 * Whether an apply changed the object (created it, or moved its resourceVersion). A no-op apply
 * changes nothing a dependent could read, so it does not call for another evaluation pass.
 */
function changedBy(res: KubeObject, observed: Record<string, unknown> | undefined): boolean {
  const before = (observed?.metadata as { resourceVersion?: unknown } | undefined)?.resourceVersion;
  return before === undefined || res.metadata.resourceVersion !== before;
}

/** A node apply's span attributes (tracing off: unused). */
function spanOf(d: DesiredObject): { 'kgraph.node': string; 'kgraph.object': string } {
  return { 'kgraph.node': d.node.path, 'kgraph.object': d.key };
}

/** Records a template apply's effect: created, changed, or neither. */
function noteApplied(
  state: ApplyState,
  key: string,
  res: KubeObject,
  observed: Record<string, unknown> | undefined,
): boolean {
  if (!changedBy(res, observed)) return false;
  (observed ? state.changes.updated : state.changes.created).push(key);
  return true;
}

/**
 * Why an object may not be touched at all, if so. The child caches hold kgraph's objects only
 * (childScope.ts), so an object absent from them may still exist under another tool's ApplySet: before
 * creating it, its labels are read from the API server (metadata only, as the owner's identity), unless
 * the kind is cached whole. That costs one GET per create and none in steady state. A read the identity
 * may not do refuses nothing: the apply is authorised on its own.
 */
async function refusalOf(
  a: Applier,
  policy: TemplatePolicy,
  d: DesiredObject,
  observed: Record<string, unknown> | undefined,
): Promise<string | undefined> {
  if (!policy.refuse) return undefined;
  if (observed) return policy.refuse(d, observed);
  if (a.watches.holdsWholeKind(d.id)) return undefined;
  let live: KubeObject | undefined;
  try {
    live = await a.writer.get(d.id, { metadataOnly: true });
  } catch (e) {
    if (isApiError(e) && (e.code === 404 || e.code === 403)) return undefined;
    throw e;
  }
  return policy.refuse(d, live as unknown as Record<string, unknown>);
}

export async function applyTemplates(
  a: Applier,
  desired: DesiredObject[],
  policy: TemplatePolicy,
  view: CacheView,
  state: ApplyState,
): Promise<void> {
  // Apply layers serially in topological order; within a layer (nodes that do not depend on each
  // other) every object, collection items included, in parallel (bounded).
  for (const items of layerBatches(desired)) {
    await pool(items, a.concurrency, async (d) => {
      if (state.hardError) return;
      const observed = view.get(d.id);
      let refusal: string | undefined;
      try {
        refusal = await refusalOf(a, policy, d, observed);
      } catch (e) {
        state.hardError ??= applyError(d.id, e);
        return;
      }
      if (refusal) {
        state.hardError ??= refusal;
        return;
      }
      const target = {
        desired: d.obj,
        observed,
        manager: policy.manager,
        subresource: '',
        force: policy.force,
      };
      if (!(await needsApply(a.writer, a.memory, target))) {
        const u = (observed?.metadata as { uid?: string } | undefined)?.uid;
        if (u) state.uids.set(d.key, u);
        return;
      }
      try {
        const res = await withSpan('apply', spanOf(d), () =>
          applyOne(a, d.obj, policy.manager, policy.force, ''),
        );
        state.uids.set(d.key, res.metadata.uid ?? '');
        state.wrote = noteApplied(state, d.key, res, observed) || state.wrote;
      } catch (e) {
        if (!policy.force && isApiError(e) && e.isApplyConflict) {
          if (e.conflictingManagers.some((m) => policy.protectedManager?.(m) ?? false)) {
            state.conflicts.push(conflictMessage(d.id, e));
            return;
          }
          // A human or another controller changed a field we manage: reclaim it (design/graph.md §13.2).
          try {
            const res = await withSpan('apply', spanOf(d), () =>
              applyOne(a, d.obj, policy.manager, true, ''),
            );
            state.uids.set(d.key, res.metadata.uid ?? '');
            state.wrote = noteApplied(state, d.key, res, observed) || state.wrote;
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

/**
 * The desired objects cut into batches of consecutive nodes of one apply layer in one frame (design/graph.md §7.3: a
 * node's layer is above every dependency's, so nodes of one layer never read each other), in order.
 */
export function layerBatches(desired: readonly DesiredObject[]): DesiredObject[][] {
  const batches: DesiredObject[][] = [];
  let current: DesiredObject[] = [];
  let layer: string | undefined;
  for (const d of desired) {
    const key = `${frameOf(d.node)}#${d.node.applyLayer}`;
    if (key !== layer && current.length > 0) {
      batches.push(current);
      current = [];
    }
    layer = key;
    current.push(d);
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

function frameOf(node: NodeResult): string {
  const dot = node.path.lastIndexOf('.');
  return dot < 0 ? '' : node.path.slice(0, dot);
}

/** Patches: never create their target, never force the main endpoint (status is forced, design/graph.md §13.2). */
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
    const manager = p.contribution.fieldManager;
    const force = sub === 'status';
    const decide = { desired: p.obj, observed: target, manager, subresource: sub, force };
    if (!(await needsApply(a.writer, a.memory, decide))) continue;
    try {
      const res = await applyOne(a, withUidPrecondition(p.obj, target), manager, force, sub, p.obj);
      state.wrote ||= changedBy(res, target);
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
