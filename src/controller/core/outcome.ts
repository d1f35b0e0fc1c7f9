/**
 * What one reconcile pass ended in, as the work queue needs it: converged, waiting (requeue after a
 * delay), failed (the queue's rate-limited retry), invalid, deleted or gone; and what the pass read,
 * so watch events route back to it.
 */
import type { PassReport } from './passReport.ts';
import type { Interest } from './watches.ts';

export type OutcomeKind = 'converged' | 'waiting' | 'failed' | 'invalid' | 'deleted' | 'gone';

export interface ReconcileOutcome {
  kind: OutcomeKind;
  reason: string;
  /** What the Graph read (routing of watch events). */
  interest: Interest;
  /** Ask to be processed again after this long (waiting states). */
  requeueAfterMs?: number;
  /** A hard failure: the controller retries with the queue's rate limit. */
  error?: Error;
  /** What the pass did (events, history, traces), when it got as far as evaluating. */
  report?: PassReport;
}
