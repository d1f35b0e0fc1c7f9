/**
 * The events of a Graph pass (docs/observability.md). The Graph reconciler reports no pass detail yet,
 * so only a failed pass says something: `ReconcileFailed` (or `WriteForbidden` for a refused write,
 * whose message carries the grant hint), with the message its ResourcesConverged condition holds.
 */
import type { EventRecord } from '../core/events/recorder.ts';
import type { ReconcileOutcome } from '../core/outcome.ts';
import { GRAPH_API_VERSION } from './names.ts';

export function graphEvents(
  graph: { namespace: string; name: string; uid?: string | undefined },
  outcome: ReconcileOutcome,
): EventRecord[] {
  if (outcome.kind !== 'failed' || !outcome.error) return [];
  const message = outcome.error.message;
  const forbidden = /\bforbidden\b/i.test(message);
  return [
    {
      regarding: {
        apiVersion: GRAPH_API_VERSION,
        kind: 'Graph',
        namespace: graph.namespace,
        name: graph.name,
        uid: graph.uid,
      },
      type: 'Warning',
      reason: forbidden ? 'WriteForbidden' : 'ReconcileFailed',
      action: forbidden ? 'Apply' : 'Reconcile',
      note: message,
    },
  ];
}
