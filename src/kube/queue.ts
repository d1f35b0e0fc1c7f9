/**
 * The controller work queue (client-go semantics, our code):
 *  - deduplication: a key added while it waits is one item; a key added while a
 *    worker processes it is queued again once that worker calls `done`, so one key
 *    is never processed by two workers at once and no change is lost;
 *  - rate-limited requeue: per-key exponential backoff from 1 s to 5 min, reset by
 *    `forget` after a success;
 *  - delayed adds (`addAfter`) keep the earliest pending time per key;
 *  - N workers (`run`), a depth gauge, and shutdown;
 *  - after an API server outage (`retryOnReconnect`), the keys that failed while the server was away
 *    are retried at once instead of after each one's backoff (connectivity.ts).
 */
import { backoffDelay } from './backoff.ts';
import { type Connectivity, isConnectionError } from './connectivity.ts';

export interface WorkQueueOptions {
  /** First retry delay (default 1000 ms). */
  baseDelayMs?: number;
  /** Retry delay cap (default 300 000 ms). */
  maxDelayMs?: number;
  /** Called whenever the depth changes (for a gauge). */
  onDepth?: (depth: number) => void;
}

/** What a handler may ask for after a successful pass. */
export interface HandlerResult {
  /** Process this key again after this many ms (periodic re-check), without counting a failure. */
  requeueAfterMs?: number;
}

/** A handler may return nothing, or a `HandlerResult`. */
export type Handler<K> = (key: K) => Promise<HandlerResult | undefined> | Promise<void>;

export interface QueueStats {
  depth: number;
  processing: number;
  delayed: number;
  adds: number;
  retries: number;
  /** Keys retried at once because their client reconnected. */
  reconnectRetries: number;
}

/** Timings of a queue's keys, for workqueue_queue_duration_seconds and workqueue_work_duration_seconds. */
export interface QueueObserver {
  /** A key waited this long between its add and a worker taking it. */
  queued(seconds: number): void;
  /** A worker held a key this long. */
  worked(seconds: number): void;
}

export class WorkQueue<K = string> {
  private readonly queue: K[] = [];
  /** Keys that need processing (queued, or re-added while processing). */
  private readonly dirty = new Set<K>();
  private readonly processing = new Set<K>();
  private readonly failures = new Map<K, number>();
  private readonly delayed = new Map<K, { readyAt: number; timer: ReturnType<typeof setTimeout> }>();
  private readonly waiters: ((k: K | undefined) => void)[] = [];
  private readonly idleWaiters: (() => void)[] = [];
  private shuttingDown = false;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly onDepth: ((depth: number) => void) | undefined;
  private adds = 0;
  private observer: QueueObserver | undefined;
  /** When each queued key was added (its wait ends when a worker takes it). */
  private readonly addedAt = new Map<K, number>();
  /** When a worker took each key being processed, and how long the key had waited. */
  private readonly takenAt = new Map<K, { at: number; waitedMs: number }>();
  private retries = 0;
  /** Keys whose last pass failed on the connection (or while a watched client was disconnected). */
  private readonly connectionFailed = new Set<K>();
  private readonly connectivities: Connectivity[] = [];
  private readonly unsubscribes: (() => void)[] = [];
  private reconnectRetries = 0;
  /** Counts reconnect retries: a pass that saw it change failed across a reconnect. */
  private reconnectEpoch = 0;

  constructor(opts: WorkQueueOptions = {}) {
    this.baseDelayMs = opts.baseDelayMs ?? 1_000;
    this.maxDelayMs = opts.maxDelayMs ?? 300_000;
    this.onDepth = opts.onDepth;
  }

  /** Items waiting to be picked up. */
  get depth(): number {
    return this.queue.length;
  }

  get isShuttingDown(): boolean {
    return this.shuttingDown;
  }

  /** Reports key timings to `o` (the standard workqueue metrics). */
  observe(o: QueueObserver): void {
    this.observer = o;
  }

  /** How long a key being processed waited in the queue before its worker took it. */
  queueWaitMs(key: K): number | undefined {
    return this.takenAt.get(key)?.waitedMs;
  }

  stats(): QueueStats {
    return {
      depth: this.queue.length,
      processing: this.processing.size,
      delayed: this.delayed.size,
      adds: this.adds,
      retries: this.retries,
      reconnectRetries: this.reconnectRetries,
    };
  }

  add(key: K): void {
    if (this.shuttingDown) return;
    if (this.dirty.has(key)) return;
    this.adds += 1;
    this.dirty.add(key);
    if (!this.addedAt.has(key)) this.addedAt.set(key, performance.now());
    if (this.processing.has(key)) return; // re-queued by done()
    this.push(key);
  }

  /** Adds the key after `ms`; when it is already waiting for an earlier time, that time is kept. */
  addAfter(key: K, ms: number): void {
    if (this.shuttingDown) return;
    if (ms <= 0) {
      this.add(key);
      return;
    }
    const readyAt = Date.now() + ms;
    const pending = this.delayed.get(key);
    if (pending) {
      if (pending.readyAt <= readyAt) return;
      clearTimeout(pending.timer);
    }
    const timer = setTimeout(() => {
      this.delayed.delete(key);
      this.add(key);
    }, ms);
    if (typeof timer === 'object' && typeof timer.unref === 'function') timer.unref();
    this.delayed.set(key, { readyAt, timer });
  }

  /** Requeues after the key's next backoff delay (1 s, 2 s, 4 s … 5 min). */
  addRateLimited(key: K): number {
    const n = this.failures.get(key) ?? 0;
    this.failures.set(key, n + 1);
    this.retries += 1;
    const delay = backoffDelay(n, { initialMs: this.baseDelayMs, maxMs: this.maxDelayMs });
    this.addAfter(key, delay);
    return delay;
  }

  /** Clears the key's failure count (after a success). */
  forget(key: K): void {
    this.failures.delete(key);
    this.connectionFailed.delete(key);
  }

  /**
   * When `c` reconnects, retries at once — backoff bypassed and reset — every key whose last pass failed
   * on a connection error or while a watched client was disconnected (its error may have been turned
   * into a message on the way: an apply failure in a condition).
   */
  retryOnReconnect(c: Connectivity): void {
    if (this.shuttingDown) return;
    this.connectivities.push(c);
    this.unsubscribes.push(c.onReconnect(() => this.retryConnectionFailures()));
  }

  /** Re-queues now the keys that failed on the connection; returns how many. */
  retryConnectionFailures(): number {
    this.reconnectEpoch += 1;
    const keys = [...this.connectionFailed];
    this.connectionFailed.clear();
    for (const k of keys) {
      const pending = this.delayed.get(k);
      if (pending) {
        clearTimeout(pending.timer);
        this.delayed.delete(k);
      }
      this.failures.delete(k);
      this.add(k);
    }
    this.reconnectRetries += keys.length;
    return keys.length;
  }

  numRequeues(key: K): number {
    return this.failures.get(key) ?? 0;
  }

  /** The next key to process, or undefined once the queue shuts down. Call `done(key)` after. */
  get(): Promise<K | undefined> {
    const k = this.take();
    if (k !== undefined || this.shuttingDown) return Promise.resolve(k);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Marks a key processed; if it was added meanwhile it goes back in the queue. */
  done(key: K): void {
    this.processing.delete(key);
    const taken = this.takenAt.get(key);
    this.takenAt.delete(key);
    if (taken) this.observer?.worked((performance.now() - taken.at) / 1000);
    if (this.dirty.has(key) && !this.shuttingDown) this.push(key);
    if (this.processing.size === 0) {
      for (const w of this.idleWaiters.splice(0)) w();
    }
  }

  /** Stops accepting keys, cancels delayed adds, wakes idle workers; resolves when in-flight work is done. */
  async shutdown(): Promise<void> {
    this.shuttingDown = true;
    for (const u of this.unsubscribes.splice(0)) u();
    for (const d of this.delayed.values()) clearTimeout(d.timer);
    this.delayed.clear();
    this.queue.length = 0;
    this.dirty.clear();
    this.addedAt.clear();
    this.emitDepth();
    for (const w of this.waiters.splice(0)) w(undefined);
    if (this.processing.size > 0) await new Promise<void>((r) => this.idleWaiters.push(r));
  }

  /**
   * Runs `concurrency` workers until shutdown. A handler that throws has its key
   * requeued with backoff (and `onError` is told); one that returns forgets the
   * key's failures, and may ask for a later re-check.
   */
  async run(
    handler: Handler<K>,
    concurrency = 1,
    onError?: (key: K, error: unknown, retryInMs: number) => void,
  ): Promise<void> {
    const worker = async (): Promise<void> => {
      for (;;) {
        const key = await this.get();
        if (key === undefined) return;
        const epoch = this.reconnectEpoch;
        try {
          const result = await handler(key);
          this.forget(key);
          if (result && result.requeueAfterMs !== undefined) this.addAfter(key, result.requeueAfterMs);
        } catch (e) {
          const onConnection = isConnectionError(e) || this.connectivities.some((c) => !c.connected);
          if (onConnection) this.connectionFailed.add(key);
          else this.connectionFailed.delete(key);
          let delay = this.shuttingDown ? 0 : this.addRateLimited(key);
          // The connection came back while this pass was failing: its reconnect retry has passed by.
          if (onConnection && this.reconnectEpoch !== epoch && !this.shuttingDown) {
            this.retryConnectionFailures();
            delay = 0;
          }
          onError?.(key, e, delay);
        } finally {
          this.done(key);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, concurrency) }, () => worker()));
  }

  private push(key: K): void {
    const w = this.waiters.shift();
    if (w) {
      this.dirty.delete(key);
      this.processing.add(key);
      this.noteTaken(key);
      w(key);
      return;
    }
    this.queue.push(key);
    this.emitDepth();
  }

  private take(): K | undefined {
    const key = this.queue.shift();
    if (key === undefined) return undefined;
    this.dirty.delete(key);
    this.processing.add(key);
    this.noteTaken(key);
    this.emitDepth();
    return key;
  }

  private noteTaken(key: K): void {
    const now = performance.now();
    const added = this.addedAt.get(key) ?? now;
    this.addedAt.delete(key);
    this.takenAt.set(key, { at: now, waitedMs: now - added });
    this.observer?.queued((now - added) / 1000);
  }

  private emitDepth(): void {
    this.onDepth?.(this.queue.length);
  }
}
