/**
 * The reconcile core shared by the Graph and RGD-instance reconcilers: evaluate against the informer
 * caches, start the watches the pass found missing (design/graph.md §3.2: watch before read), record what is about to
 * be written (the caller's hook: Graph write-ahead inventory, RGD ApplySet parent annotations), apply
 * templates and patches, and evaluate again while the writes unlock dependents (up to 12 passes), so a
 * chain converges in one reconcile. What to do with the outcome (inventory, prune, conditions, status)
 * stays with the caller.
 */

import { withSpan } from '../../kube/tracing/tracing.ts';
import type { ObservedState } from '../../runtime/observed.ts';
import type { EvaluationResult } from '../../runtime/types.ts';
import {
  type Applier,
  type ApplyState,
  applyPatches,
  applyTemplates,
  newApplyState,
  type TemplatePolicy,
} from './apply.ts';
import {
  type DesiredObject,
  type DesiredPatch,
  desiredPatches,
  desiredTemplates,
  type Stamp,
} from './desired.ts';
import { newReadLedger, type ReadScope, readForbiddenMessage } from './readAccess.ts';
import { type Interest, newInterest, type WatchSet } from './watches.ts';

/** What the caller's hook says before a pass writes anything. */
export type BeforeApply =
  | { proceed: true }
  | { proceed: false; superseded: true }
  | { proceed: false; error: string };

export interface ConvergeInput {
  watches: WatchSet;
  /**
   * Whose reads these are (design/graph.md §24): every cached object and list is handed to the evaluation only if this
   * subject may read it; a refused read ends the passes before anything is written
   * (`state.forbidden`). Absent: the controller's own reads (RGD instances whose RGD maps no
   * ServiceAccount, docs/rgd.md "Trust model").
   */
  reads?: ReadScope;
  applier: Applier;
  /** Namespace of kinds whose namespace the pass did not know (the owner's). */
  namespace: string;
  /** Accumulates what every pass read (event routing). */
  interest: Interest;
  /** One engine pass; the Graph controller's is asynchronous (it yields to the event loop). */
  evaluate: (observed: ObservedState) => EvaluationResult | Promise<EvaluationResult>;
  stamp: Stamp;
  /** UID naming the per-patch-node managers. */
  patchOwner: string;
  policy: TemplatePolicy;
  beforeApply?: (desired: DesiredObject[], patches: DesiredPatch[]) => Promise<BeforeApply>;
  maxPasses?: number;
}

export interface ConvergeOutcome {
  /** The last evaluation. */
  result: EvaluationResult;
  state: ApplyState;
  desired: DesiredObject[];
  patches: DesiredPatch[];
  /** The hook said a newer generation will be reconciled: nothing more was written. */
  superseded: boolean;
}

const DEFAULT_MAX_PASSES = 12;

export async function convergePasses(input: ConvergeInput): Promise<ConvergeOutcome> {
  const { watches, interest } = input;
  const maxPasses = input.maxPasses ?? DEFAULT_MAX_PASSES;
  const state = newApplyState();
  let result: EvaluationResult | undefined;
  let desired: DesiredObject[] = [];
  let patches: DesiredPatch[] = [];

  for (let pass = 0; pass < maxPasses; pass++) {
    const passInterest = newInterest();
    const ledger = newReadLedger();
    const cache = watches.view(passInterest);
    const observed = input.reads ? input.reads.guard(cache, ledger) : cache;
    result = await withSpan('evaluate', { 'kgraph.pass': pass }, async () => input.evaluate(observed));
    for (const g of passInterest.gets) interest.gets.add(g);
    for (const l of passInterest.lists) interest.lists.add(l);
    for (const [k, v] of passInterest.kinds) interest.kinds.set(k, v);
    if (input.reads && ledger.denied.length > 0) {
      // The evaluation saw less than the cluster holds: nothing of it may be written.
      state.forbidden = readForbiddenMessage(ledger, input.reads.subject);
      break;
    }
    const undecided = ledger.undecided.size > 0;
    if ((passInterest.missing.size > 0 || undecided) && pass < maxPasses - 1) {
      await Promise.all([
        prepareMissing(watches, passInterest),
        undecided ? input.reads?.resolve(ledger) : undefined,
      ]);
      continue;
    }
    if (input.reads && undecided) {
      state.forbidden = readForbiddenMessage(ledger, input.reads.subject);
      break;
    }
    if (result.errors.length > 0) {
      state.hardError = result.errors.map((e) => `node ${e.node}: ${e.message}`).join('; ');
      state.hardReason = 'ExpressionError';
      break;
    }
    desired = desiredTemplates(result, input.stamp);
    patches = desiredPatches(result, input.patchOwner);
    if (input.beforeApply) {
      const go = await input.beforeApply(desired, patches);
      if (!go.proceed) {
        if ('superseded' in go) return { result, state, desired, patches, superseded: true };
        state.hardError = go.error;
        break;
      }
    }
    const view = watches.view(interest);
    state.wrote = false;
    await applyTemplates(input.applier, desired, input.policy, view, state);
    if (!state.hardError) await applyPatches(input.applier, patches, view, state);
    state.wroteAny ||= state.wrote;
    if (state.hardError || !state.wrote) break;
  }
  if (!result) throw new Error('internal: no evaluation');
  return { result, state, desired, patches, superseded: false };
}

/**
 * Starts the informers the evaluation missed. A missing read without a namespace is a list across all
 * namespaces (or a cluster-scoped kind): it needs the cluster-wide informer, not one in the instance's
 * namespace, which the read would never consult.
 */
async function prepareMissing(watches: WatchSet, interest: Interest): Promise<void> {
  await Promise.all(
    [...interest.missing.values()].map((m) => watches.prepare(m.apiVersion, m.kind, [m.namespace])),
  );
}
