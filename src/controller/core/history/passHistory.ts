/**
 * The last passes of each reconciled object, in memory and bounded: `perObject` passes per object (a
 * ring) and `maxObjects` objects (the least recently reconciled are forgotten first). Each entry says
 * what every node evaluated to and why it waited, what the pass created, changed, pruned or was
 * refused, and how long its phases took — what `kgraph get --history` and the UI's timeline show.
 */
import type { ReconcileOutcome } from '../outcome.ts';
import type { NodeRecord } from '../passReport.ts';

export interface HistoryEntry {
  /** ISO time the pass started. */
  at: string;
  durationMs: number;
  /** How the pass ended (converged, waiting, failed, …) and why. */
  result: string;
  reason: string;
  generation?: number;
  /** The GraphRevision the pass reconciled at. */
  revision?: number;
  nodes: NodeRecord[];
  created: string[];
  updated: string[];
  pruned: string[];
  waiting?: { node: string; state: string; reason: string };
  refused?: { verb: string; message: string };
  error?: string;
  phases: Record<string, number>;
  /** The trace the pass was recorded in, when tracing is on. */
  traceId?: string;
}

export interface PassHistoryOptions {
  /** @default 20 */
  perObject?: number;
  /** @default 10_000 */
  maxObjects?: number;
}

export class PassHistory {
  private readonly perObject: number;
  private readonly maxObjects: number;
  private readonly byKey = new Map<string, HistoryEntry[]>();

  constructor(opts: PassHistoryOptions = {}) {
    this.perObject = Math.max(1, opts.perObject ?? 20);
    this.maxObjects = Math.max(1, opts.maxObjects ?? 10_000);
  }

  record(
    key: string,
    startedAt: number,
    durationMs: number,
    outcome: ReconcileOutcome,
    traceId?: string,
  ): void {
    const r = outcome.report;
    const entry: HistoryEntry = {
      at: new Date(r?.startedAt ?? startedAt).toISOString(),
      durationMs: Math.round(durationMs * 10) / 10,
      result: outcome.kind,
      reason: outcome.reason,
      ...(r ? { generation: r.generation } : {}),
      ...(r?.revision !== undefined ? { revision: r.revision } : {}),
      nodes: r?.nodes ?? [],
      created: r?.created ?? [],
      updated: r?.updated ?? [],
      pruned: r?.pruned ?? [],
      ...(r?.waiting ? { waiting: r.waiting } : {}),
      ...(r?.refused ? { refused: r.refused } : {}),
      ...(r?.error ? { error: r.error } : outcome.error ? { error: outcome.error.message } : {}),
      phases: r?.phases ?? {},
      ...(traceId ? { traceId } : {}),
    };
    const list = this.byKey.get(key) ?? [];
    // Re-inserted: the Map's order is the order objects were last reconciled in.
    this.byKey.delete(key);
    list.push(entry);
    if (list.length > this.perObject) list.splice(0, list.length - this.perObject);
    this.byKey.set(key, list);
    while (this.byKey.size > this.maxObjects) {
      const oldest = this.byKey.keys().next().value;
      if (oldest === undefined) break;
      this.byKey.delete(oldest);
    }
  }

  /** The passes of one object, oldest first. */
  get(key: string): readonly HistoryEntry[] {
    return this.byKey.get(key) ?? [];
  }

  /** Keys with a history (for listing), optionally those starting with `prefix`. */
  keys(prefix = ''): string[] {
    return [...this.byKey.keys()].filter((k) => k.startsWith(prefix));
  }

  forget(key: string): void {
    this.byKey.delete(key);
  }

  get size(): number {
    return this.byKey.size;
  }
}
