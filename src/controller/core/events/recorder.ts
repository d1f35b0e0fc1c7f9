/**
 * Kubernetes Events (`events.k8s.io/v1`) as the API intends them, without storms:
 *
 * - a repeat of an event (same object, type, reason, action and note) within `seriesIdleMs` is a series:
 *   the second occurrence turns the Event into a series at once (`series.count: 2`), later ones only
 *   count in memory and are written every `flushMs` (`series.count`, `series.lastObservedTime`), as
 *   client-go's events broadcaster does; a series idle that long is closed with a last write;
 * - a new event costs a token from its object's bucket (`perObject`) and from the process's (`global`);
 *   without one it is dropped and counted, never queued: a thousand failing objects write at most the
 *   global burst, then the refill rate;
 * - writes never block a reconcile: `emit` queues them, a few run at a time, a full queue drops.
 */
import type { Logger } from 'pino';
import type { KubeObject, RestClient } from '../../../kube/index.ts';
import { TokenBucket } from './tokenBucket.ts';

export type EventType = 'Normal' | 'Warning';

/** The object an event is about. */
export interface EventRegarding {
  apiVersion: string;
  kind: string;
  name: string;
  namespace?: string | undefined;
  uid?: string | undefined;
  resourceVersion?: string | undefined;
}

export interface EventRecord {
  regarding: EventRegarding;
  type: EventType;
  /** UpperCamelCase, why (`Applied`, `Waiting`, `ReadForbidden`). */
  reason: string;
  /** UpperCamelCase, what the controller did or failed to do (`Reconcile`, `Apply`, `Prune`). */
  action: string;
  /** Human text, at most 1 kB (longer is cut). */
  note: string;
}

export interface RecorderOptions {
  /** `reportingController`: a qualified name. @default 'kgraph/controller' */
  controller?: string;
  /** `reportingInstance`: this replica. @default `kgraph-controller-<pid>` */
  instance?: string;
  /** Tokens per object and refill per second. @default burst 25, one per 5 minutes (client-go's spam filter) */
  perObject?: { burst: number; perSecond: number };
  /** Tokens for the process and refill per second. @default burst 100, 5 per second */
  global?: { burst: number; perSecond: number };
  /** How often counted repeats are written. @default 30 s */
  flushMs?: number;
  /** A series without a repeat this long is closed. @default 6 minutes (the events API's series window) */
  seriesIdleMs?: number;
  /** Series remembered at most (the oldest are forgotten). @default 5000 */
  maxSeries?: number;
  /** Writes waiting at most (more are dropped). @default 1000 */
  maxPending?: number;
  now?: () => number;
  log?: Logger;
}

export interface RecorderStats {
  /** Events created. */
  created: number;
  /** Series updates written. */
  seriesUpdates: number;
  /** Occurrences counted into a series instead of a write. */
  aggregated: number;
  /** New events dropped by a rate limit or a full queue. */
  dropped: number;
  /** Writes the API server refused. */
  failed: number;
}

interface Series {
  key: string;
  namespace: string;
  /** Set once the Event exists. */
  name?: string;
  count: number;
  written: number;
  lastObserved: number;
}

type Write = { series: Series; record?: EventRecord; at: number };

const MAX_NOTE_BYTES = 1024;

export class EventRecorder {
  private readonly client: RestClient;
  private readonly opts: Required<Omit<RecorderOptions, 'log'>> & { log?: Logger };
  private readonly series = new Map<string, Series>();
  private readonly perObject = new Map<string, TokenBucket>();
  private global: TokenBucket;
  private readonly pending: Write[] = [];
  private readonly stats0: RecorderStats = {
    created: 0,
    seriesUpdates: 0,
    aggregated: 0,
    dropped: 0,
    failed: 0,
  };
  private running = 0;
  /** Makes names unique among events of one object created in the same millisecond. */
  private seq = 0;
  private idle: Array<() => void> = [];
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(client: RestClient, opts: RecorderOptions = {}) {
    this.client = client;
    this.opts = {
      controller: opts.controller ?? 'kgraph/controller',
      instance: (opts.instance ?? `kgraph-controller-${process.pid}`).slice(0, 128),
      perObject: opts.perObject ?? { burst: 25, perSecond: 1 / 300 },
      global: opts.global ?? { burst: 100, perSecond: 5 },
      flushMs: opts.flushMs ?? 30_000,
      seriesIdleMs: opts.seriesIdleMs ?? 360_000,
      maxSeries: opts.maxSeries ?? 5000,
      maxPending: opts.maxPending ?? 1000,
      now: opts.now ?? Date.now,
      ...(opts.log ? { log: opts.log } : {}),
    };
    this.global = new TokenBucket(this.opts.global.burst, this.opts.global.perSecond, this.opts.now);
  }

  /**
   * This process's part of the fleet's event budget (sharded replicas, design/sharding.md §7): the
   * process bucket shrinks to `share` of its burst and refill, so R replicas write about as many
   * events as one would, not R times as many. At least one token of burst stays.
   */
  setShare(share: number): void {
    const f = Math.min(1, Math.max(0, share));
    const { burst, perSecond } = this.opts.global;
    this.global = new TokenBucket(Math.max(1, Math.round(burst * f)), perSecond * f, this.opts.now);
  }

  get stats(): RecorderStats {
    return { ...this.stats0 };
  }

  /** Records one occurrence; returns at once (the write, if any, is queued). */
  emit(rec: EventRecord): void {
    const now = this.opts.now();
    const key = seriesKey(rec);
    const known = this.series.get(key);
    if (known && now - known.lastObserved < this.opts.seriesIdleMs) {
      known.count++;
      known.lastObserved = now;
      this.stats0.aggregated++;
      // The second occurrence makes it a series at once (a global token allowing); later ones wait for the flush.
      if (known.count === 2 && known.name !== undefined && this.global.take())
        this.queue({ series: known, at: now });
      this.startTimer();
      return;
    }
    if (known) this.series.delete(key);
    const objKey = objectKey(rec.regarding);
    let bucket = this.perObject.get(objKey);
    if (!bucket) {
      bucket = new TokenBucket(this.opts.perObject.burst, this.opts.perObject.perSecond, this.opts.now);
      this.perObject.set(objKey, bucket);
    }
    if (this.pending.length >= this.opts.maxPending || !bucket.take() || !this.global.take()) {
      this.stats0.dropped++;
      return;
    }
    const s: Series = {
      key,
      namespace: rec.regarding.namespace || 'default',
      count: 1,
      written: 0,
      lastObserved: now,
    };
    this.series.set(key, s);
    while (this.series.size > this.opts.maxSeries) {
      const oldest = this.series.keys().next().value;
      if (oldest === undefined) break;
      this.series.delete(oldest);
    }
    this.queue({ series: s, record: rec, at: now });
    this.startTimer();
  }

  /** Writes counted repeats now and closes idle series (the timer calls it; tests too). */
  flush(): void {
    const now = this.opts.now();
    for (const s of this.series.values()) {
      const idle = now - s.lastObserved >= this.opts.seriesIdleMs;
      if (s.count > s.written && s.count > 1 && s.name !== undefined) {
        if (!this.global.take()) continue; // next flush
        this.queue({ series: s, at: now });
      } else if (idle) this.series.delete(s.key);
    }
    for (const [k, b] of this.perObject) if (b.full()) this.perObject.delete(k);
    if (this.series.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  /** Resolves when no write is queued or running. */
  drained(): Promise<void> {
    if (this.running === 0 && this.pending.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  /** Writes what is counted (waiting at most `waitMs` for the API server), then stops the timer. */
  async stop(waitMs = 5_000): Promise<void> {
    this.flush();
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      this.drained(),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, waitMs);
        timer.unref();
      }),
    ]);
    clearTimeout(timer);
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  private startTimer(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.flush(), this.opts.flushMs);
    this.timer.unref();
  }

  private queue(w: Write): void {
    this.pending.push(w);
    this.pump();
  }

  private pump(): void {
    while (this.running < 4 && this.pending.length > 0) {
      const w = this.pending.shift() as Write;
      this.running++;
      this.write(w)
        .catch((e: unknown) => {
          this.stats0.failed++;
          this.opts.log?.debug({ err: String(e) }, 'event not written');
        })
        .finally(() => {
          this.running--;
          this.pump();
          if (this.running === 0 && this.pending.length === 0) {
            const waiting = this.idle;
            this.idle = [];
            for (const r of waiting) r();
          }
        });
    }
  }

  private async write(w: Write): Promise<void> {
    const s = w.series;
    if (w.record) {
      const body = this.eventBody(w.record, s, w.at);
      const res = await this.client.create(body);
      s.name = res.metadata.name;
      s.written = 1;
      this.stats0.created++;
      // Repeats counted while the create was in flight (else the next flush writes them).
      if (s.count > 1 && this.global.take()) this.queue({ series: s, at: this.opts.now() });
      return;
    }
    if (s.name === undefined || s.count <= s.written) return;
    const count = s.count;
    await this.client.patch(
      { apiVersion: 'events.k8s.io/v1', kind: 'Event', namespace: s.namespace, name: s.name },
      { series: { count, lastObservedTime: microTime(s.lastObserved) } },
      { type: 'merge' },
    );
    s.written = Math.max(s.written, count);
    this.stats0.seriesUpdates++;
  }

  private eventBody(rec: EventRecord, s: Series, at: number): KubeObject {
    const r = rec.regarding;
    return {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: {
        // client-go's form, `<object>.<hex nanoseconds>`; the sub-millisecond digits are a counter.
        name: `${r.name}.${(BigInt(at) * 1_000_000n + BigInt(this.seq++ % 1_000_000)).toString(16)}`,
        namespace: s.namespace,
      },
      eventTime: microTime(at),
      reportingController: this.opts.controller,
      reportingInstance: this.opts.instance,
      action: rec.action,
      reason: rec.reason,
      type: rec.type,
      note: cutNote(rec.note),
      regarding: {
        apiVersion: r.apiVersion,
        kind: r.kind,
        name: r.name,
        ...(r.namespace ? { namespace: r.namespace } : {}),
        ...(r.uid ? { uid: r.uid } : {}),
        ...(r.resourceVersion ? { resourceVersion: r.resourceVersion } : {}),
      },
    };
  }
}

function objectKey(r: EventRegarding): string {
  return `${r.apiVersion}|${r.kind}|${r.namespace ?? ''}|${r.name}|${r.uid ?? ''}`;
}

function seriesKey(rec: EventRecord): string {
  return `${objectKey(rec.regarding)}|${rec.type}|${rec.reason}|${rec.action}|${rec.note}`;
}

/** The API's MicroTime: RFC 3339 with microseconds. */
function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

function cutNote(note: string): string {
  if (Buffer.byteLength(note) <= MAX_NOTE_BYTES) return note;
  let cut = note.slice(0, MAX_NOTE_BYTES - 3);
  while (Buffer.byteLength(`${cut}…`) > MAX_NOTE_BYTES) cut = cut.slice(0, -1);
  return `${cut}…`;
}
