/**
 * The waiting-state backoff of the reconcilers (design/graph.md §21.1): 1 s doubling to 5 min per
 * object, reset by any non-waiting outcome. A fixed interval (RGD instances waiting for data, design/graph.md §25:
 * 3 s) is the same class with base = max.
 */
export class WaitBackoff {
  private readonly attempts = new Map<string, number>();
  private readonly baseMs: number;
  private readonly maxMs: number;

  constructor(baseMs = 1_000, maxMs = 300_000) {
    this.baseMs = baseMs;
    this.maxMs = maxMs;
  }

  /** The delay before the next attempt of `key`, counting this one. */
  next(key: string): number {
    const n = this.attempts.get(key) ?? 0;
    this.attempts.set(key, n + 1);
    return Math.min(this.maxMs, this.baseMs * 2 ** n);
  }

  reset(key: string): void {
    this.attempts.delete(key);
  }

  /** Keys with a wait in progress. */
  get size(): number {
    return this.attempts.size;
  }

  /** Every key starts over (new information that may end every wait, such as a CRD change). */
  resetAll(): void {
    this.attempts.clear();
  }
}
