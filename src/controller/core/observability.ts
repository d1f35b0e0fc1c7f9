/**
 * Where a finished reconcile pass goes besides the work queue: its Kubernetes Events (events/), its entry
 * in the reconcile history (history/), and the objects' own events the controllers raise outside passes
 * (a revision issued, a breaking change blocked). One per process, built by the host; a controller
 * without one says nothing.
 */
import { conditionEvents, passEvents } from './events/passEvents.ts';
import type { EventRecord, EventRecorder, EventRegarding } from './events/recorder.ts';
import type { PassHistory } from './history/passHistory.ts';
import type { ReconcileOutcome } from './outcome.ts';

export interface ObservedPass {
  /** The history key (historyKey). */
  key: string;
  regarding: EventRegarding;
  outcome: ReconcileOutcome;
  /** Epoch milliseconds the pass was taken off the queue, and how long it ran. */
  startedAt: number;
  durationMs: number;
  traceId?: string;
}

export interface ObservabilityOptions {
  events?: EventRecorder;
  /** kro's condition-transition events (its `InstanceConditionEvents` gate). @default false */
  conditionEvents?: boolean;
  history?: PassHistory;
}

export class Observability {
  readonly events: EventRecorder | undefined;
  readonly history: PassHistory | undefined;
  private readonly conditionEvents: boolean;

  constructor(opts: ObservabilityOptions) {
    this.events = opts.events;
    this.history = opts.history;
    this.conditionEvents = opts.conditionEvents === true;
  }

  passEnded(p: ObservedPass): void {
    if (p.outcome.kind === 'gone') return;
    this.history?.record(p.key, p.startedAt, p.durationMs, p.outcome, p.traceId);
    if (!this.events) return;
    for (const e of passEvents(p.regarding, p.outcome)) this.events.emit(e);
    if (this.conditionEvents && p.outcome.report)
      for (const e of conditionEvents(p.regarding, p.outcome.report)) this.events.emit(e);
  }

  event(rec: EventRecord): void {
    this.events?.emit(rec);
  }

  async stop(): Promise<void> {
    await this.events?.stop();
  }
}

/** The history key of an object: `<kind>.<group>/<namespace>/<name>` (group empty for the core group). */
export function historyKey(apiVersion: string, kind: string, namespace: string, name: string): string {
  const slash = apiVersion.indexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  return `${kind}.${group}/${namespace}/${name}`;
}
