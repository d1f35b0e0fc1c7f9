/**
 * Whether a client reaches its API server, and the moment it does again. Work queues retry a failed key
 * with backoff that grows per key (1 s doubling to 5 min): through an API server outage every key keeps
 * failing, so when the server is back each waits out its own backoff — after a two-minute outage, up to
 * two minutes more. A client's requests tell this object when they got no answer (refused, reset, timed
 * out) and when an answer came; the first answer after a failure is a reconnect, which the queues
 * subscribed with `onReconnect` use to retry at once the keys that failed while the server was away.
 * While disconnected and watched, a probe (`/readyz`) runs every second, so a reconnect is seen even
 * when nothing else asks (every informer waiting on its own backoff).
 */
import { isApiError } from './errors.ts';

/** A request that got no answer from the server: connection refused or reset, or no answer in time. */
export function isConnectionError(e: unknown): boolean {
  for (let cur: unknown = e, depth = 0; cur !== undefined && depth < 5; depth++) {
    if (isApiError(cur)) return cur.code === 0 && (cur.reason === 'NetworkError' || cur.reason === 'Timeout');
    cur = cur instanceof Error ? cur.cause : undefined;
  }
  return false;
}

export interface ConnectivityOptions {
  /** One request that reaches the server; its answer passes through `noteAnswer` like any other. */
  probe: () => Promise<unknown>;
  /** Between probes while disconnected (default 1000 ms). */
  probeIntervalMs?: number;
}

export class Connectivity {
  private down = false;
  private downSince = 0;
  private readonly listeners = new Set<() => void>();
  private readonly probe: () => Promise<unknown>;
  private readonly probeIntervalMs: number;
  private probeTimer: ReturnType<typeof setTimeout> | undefined;
  private reconnects = 0;

  constructor(opts: ConnectivityOptions) {
    this.probe = opts.probe;
    this.probeIntervalMs = opts.probeIntervalMs ?? 1_000;
  }

  /** False from a request that got no answer until the next one that did. */
  get connected(): boolean {
    return !this.down;
  }

  /** When the connection was lost (ms since the epoch), while it is. */
  get disconnectedSince(): number | undefined {
    return this.down ? this.downSince : undefined;
  }

  /** How often the connection came back. */
  get reconnectCount(): number {
    return this.reconnects;
  }

  /** A request failed: a connection error marks the client disconnected. */
  noteFailure(e: unknown): void {
    if (!isConnectionError(e) || this.down) return;
    this.down = true;
    this.downSince = Date.now();
    this.scheduleProbe();
  }

  /**
   * A request was answered. A 5xx does not count: a restarting server answers 500/503 before it serves
   * (its /readyz among them), and work retried then would fail again.
   */
  noteAnswer(status: number): void {
    if (!this.down || status >= 500) return;
    this.down = false;
    this.reconnects += 1;
    if (this.probeTimer) clearTimeout(this.probeTimer);
    this.probeTimer = undefined;
    for (const l of [...this.listeners]) l();
  }

  /** Calls `listener` on each reconnect; returns the unsubscribe. */
  onReconnect(listener: () => void): () => void {
    this.listeners.add(listener);
    if (this.down) this.scheduleProbe();
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0 && this.probeTimer) {
        clearTimeout(this.probeTimer);
        this.probeTimer = undefined;
      }
    };
  }

  /** Probes only while someone waits for the reconnect: a client of a stopped server costs nothing. */
  private scheduleProbe(): void {
    if (this.probeTimer || this.listeners.size === 0) return;
    this.probeTimer = setTimeout(() => {
      this.probeTimer = undefined;
      if (!this.down) return;
      void this.probe()
        .catch(() => undefined)
        .finally(() => {
          if (this.down) this.scheduleProbe();
        });
    }, this.probeIntervalMs);
    if (typeof this.probeTimer === 'object' && typeof this.probeTimer.unref === 'function') {
      this.probeTimer.unref();
    }
  }
}
