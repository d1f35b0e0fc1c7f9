/**
 * The process's observability (core/observability.ts) from the manager's options: the event recorder
 * writing as the controller, the reconcile history, and the `/debug/history` answer the metrics address
 * serves to `kgraph get --history` and `kgraph ui`.
 */
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { RestClient } from '../../kube/index.ts';
import { EventRecorder } from '../core/events/recorder.ts';
import { type HistoryEntry, PassHistory } from '../core/history/passHistory.ts';
import { historyKey, Observability } from '../core/observability.ts';

export interface ObserveOptions {
  /** Write Kubernetes Events. @default true */
  events?: boolean;
  /** kro's condition-transition events (`InstanceConditionEvents`). @default false */
  conditionEvents?: boolean;
  /** Passes kept per object; 0 keeps no history. @default 20 */
  historyPerObject?: number;
}

export function buildObservability(client: RestClient, opts: ObserveOptions, log: Logger): Observability {
  const perObject = opts.historyPerObject ?? 20;
  return new Observability({
    ...(opts.events !== false
      ? {
          events: new EventRecorder(client, {
            instance: `kgraph-controller-${hostname()}-${process.pid}`,
            log,
          }),
        }
      : {}),
    conditionEvents: opts.conditionEvents === true,
    ...(perObject > 0 ? { history: new PassHistory({ perObject }) } : {}),
  });
}

/**
 * `/debug/history?apiVersion=…&kind=…&namespace=…&name=…`: the object's passes, oldest first; without
 * a name, the keys with a history.
 */
export function historyAnswer(observe: Observability, q: URLSearchParams): unknown {
  const history = observe.history;
  if (!history) return { enabled: false, passes: [] };
  const name = q.get('name');
  const kind = q.get('kind') ?? '';
  if (!name) return { enabled: true, keys: history.keys(kind ? `${kind}.` : '') };
  const key = historyKey(q.get('apiVersion') ?? '', kind, q.get('namespace') ?? '', name);
  return { enabled: true, key, passes: history.get(key) };
}

/** One object's passes, oldest first (a UI in the controller's own process asks this directly). */
export function passesOf(
  observe: Observability,
  q: { apiVersion: string; kind: string; namespace: string; name: string },
): HistoryEntry[] {
  return [...(observe.history?.get(historyKey(q.apiVersion, q.kind, q.namespace, q.name)) ?? [])];
}
