/**
 * Exponential backoff, with optional jitter. Used by the informer (jittered,
 * so a restarted API server is not hit by every watch at once) and by the work
 * queue (deterministic per-key delays from 1 s to 5 min).
 */

export interface BackoffOptions {
  initialMs: number;
  maxMs: number;
  /** Growth per attempt (default 2). */
  factor?: number;
  /** Fraction of the delay added at random: delay × (1 + jitter × random()). 0 = none (default). */
  jitter?: number;
  random?: () => number;
}

/** Delay before retry number `attempt` (0-based): initial × factor^attempt, capped, then jittered. */
export function backoffDelay(attempt: number, o: BackoffOptions): number {
  const factor = o.factor ?? 2;
  const base = Math.min(o.maxMs, o.initialMs * factor ** Math.max(0, attempt));
  const jitter = o.jitter ?? 0;
  if (jitter <= 0) return base;
  const r = (o.random ?? Math.random)();
  return Math.min(o.maxMs * (1 + jitter), base * (1 + jitter * r));
}

/** Stateful backoff: `next()` grows, `reset()` after a success. */
export class Backoff {
  private attempt = 0;
  constructor(private readonly opts: BackoffOptions) {}
  next(): number {
    const d = backoffDelay(this.attempt, this.opts);
    this.attempt += 1;
    return d;
  }
  reset(): void {
    this.attempt = 0;
  }
  get attempts(): number {
    return this.attempt;
  }
}

/** A sleep that ends early (resolving false) when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) {
      resolve(false);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
