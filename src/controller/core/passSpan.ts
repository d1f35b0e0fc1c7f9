/**
 * The attributes of a reconcile pass's span (docs/observability.md): what was reconciled, with which
 * RGD, how long it waited in the queue, and what the pass ended in (result, reason, the node it waits
 * on, counts of what it changed).
 */
import type { SpanAttributes } from '../../kube/tracing/span.ts';
import type { ReconcileOutcome } from './outcome.ts';

export interface PassSubject {
  rgdName: string;
  group: string;
  version: string;
  kind: string;
}

export function passAttributes(
  api: PassSubject,
  namespace: string,
  name: string,
  queueWaitMs: number | undefined,
): SpanAttributes {
  return {
    'k8s.resource.kind': api.kind,
    'k8s.resource.group': api.group,
    'k8s.namespace.name': namespace,
    'k8s.object.name': name,
    'kgraph.rgd': api.rgdName,
    ...(queueWaitMs !== undefined ? { 'kgraph.queue_wait_ms': Math.round(queueWaitMs * 10) / 10 } : {}),
  };
}

export function outcomeAttributes(o: ReconcileOutcome): SpanAttributes {
  const r = o.report;
  return {
    'kgraph.result': o.kind,
    'kgraph.reason': o.reason,
    ...(r?.generation !== undefined ? { 'k8s.object.generation': r.generation } : {}),
    ...(r?.revision !== undefined ? { 'kgraph.revision': r.revision } : {}),
    ...(r
      ? {
          'kgraph.created': r.created.length,
          'kgraph.updated': r.updated.length,
          'kgraph.pruned': r.pruned.length,
        }
      : {}),
    ...(r?.waiting
      ? { 'kgraph.waiting.node': r.waiting.node, 'kgraph.waiting.reason': r.waiting.reason }
      : {}),
    ...(r?.refused ? { 'kgraph.refused': r.refused.message } : {}),
  };
}
