/**
 * What one reconcile pass did, as its events, its history entry and its trace need it: every node's
 * state and why, what was created, changed, pruned or refused, where it waited, and how long its phases
 * took. The reconciler fills it; it never decides anything.
 */
import type { EvaluationResult } from '../../runtime/types.ts';
import type { ApplyState } from './apply.ts';
import type { Condition } from './conditions.ts';

/** One node as the pass left it. */
export interface NodeRecord {
  id: string;
  state: string;
  reason?: string;
  /** Objects the node rendered. */
  objects: number;
}

export interface PassReport {
  /** Epoch milliseconds the pass started. */
  startedAt: number;
  durationMs: number;
  /** The object's generation, and the one its conditions said was last reconciled before this pass. */
  generation: number;
  previousGeneration: number;
  /** The GraphRevision the pass reconciled at (RGD instances, when revisions are issued). */
  revision?: number;
  nodes: NodeRecord[];
  created: string[];
  updated: string[];
  pruned: string[];
  /** The first node the pass waits on and why. */
  waiting?: { node: string; state: string; reason: string };
  /** A read or write the pass's identity may not do (with the grant hint). */
  refused?: { verb: 'read' | 'write'; message: string };
  /** A hard failure (apply, prune, expressions). */
  error?: string;
  /** Conditions before the pass and as the pass wrote them. */
  conditionsBefore: Condition[];
  conditionsAfter: Condition[];
  /** Milliseconds per phase: converge (evaluate + apply), prune, status. */
  phases: Record<string, number>;
}

/** A write refused by the API server's authorizer (the apply error's words, see errors.ts). */
function isWriteForbidden(message: string | undefined): boolean {
  return message !== undefined && /\bforbidden\b/i.test(message);
}

export interface ReportInput {
  startedAt: number;
  generation: number;
  previousGeneration: number;
  revision?: number | undefined;
  result: EvaluationResult;
  state: ApplyState;
  pruned: string[];
  pruneErrors: string[];
  conditionsBefore: Condition[];
  conditionsAfter: Condition[];
  phases: Record<string, number>;
}

export function passReport(i: ReportInput): PassReport {
  const { result, state } = i;
  const error = state.hardError ?? (i.pruneErrors.length > 0 ? i.pruneErrors.join('; ') : undefined);
  const refused = state.forbidden
    ? { verb: 'read' as const, message: state.forbidden }
    : isWriteForbidden(error) && error !== undefined
      ? { verb: 'write' as const, message: error }
      : undefined;
  return {
    startedAt: i.startedAt,
    durationMs: Date.now() - i.startedAt,
    generation: i.generation,
    previousGeneration: i.previousGeneration,
    ...(i.revision !== undefined ? { revision: i.revision } : {}),
    nodes: result.nodes.map((n) => ({
      id: n.path,
      state: n.state,
      ...(n.reason ? { reason: n.reason } : {}),
      objects: n.objects.length,
    })),
    // Sorted: a layer's applies run concurrently, and the same changes should read (and series) alike.
    created: [...state.changes.created].sort(),
    updated: [...state.changes.updated].sort(),
    pruned: [...i.pruned].sort(),
    ...(result.firstSoft
      ? {
          waiting: {
            node: result.firstSoft.node,
            state: result.firstSoft.state,
            reason: result.firstSoft.reason,
          },
        }
      : {}),
    ...(refused ? { refused } : {}),
    ...(error && !refused ? { error } : {}),
    conditionsBefore: i.conditionsBefore,
    conditionsAfter: i.conditionsAfter,
    phases: i.phases,
  };
}
