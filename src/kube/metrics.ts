/**
 * Request counters by verb. The controller's "no write when nothing changed"
 * guarantee is asserted on these numbers (a steady-state resync makes zero
 * writes), and they feed the Prometheus `kgraph_api_requests_total{verb}` metric.
 * Shared by a RestClient and every impersonating or derived copy of it.
 */

/**
 * `review`: access reviews (SubjectAccessReview and friends) — POSTs the server answers without storing
 * anything, so they are not writes. `dryrun`: server-side dry-run applies, never persisted either.
 */
export const VERBS = [
  'get',
  'list',
  'watch',
  'create',
  'patch',
  'apply',
  'update',
  'delete',
  'review',
  'dryrun',
] as const;
export type Verb = (typeof VERBS)[number];

/** Verbs that change server state. */
export const WRITE_VERBS: readonly Verb[] = ['create', 'patch', 'apply', 'update', 'delete'];

export type VerbCounts = Record<Verb, number>;

function zero(): VerbCounts {
  const out = {} as VerbCounts;
  for (const v of VERBS) out[v] = 0;
  return out;
}

/** Told of every request as it is sent (benchmarks attribute requests to Graphs by path). */
export type RequestListener = (verb: Verb, method: string, path: string) => void;

export class RequestCounters {
  private counts: VerbCounts = zero();
  /** Requests that failed with an ApiError, by verb. */
  private errorCounts: VerbCounts = zero();
  private listener: RequestListener | undefined;

  inc(verb: Verb, method = '', path = ''): void {
    this.counts[verb] += 1;
    this.listener?.(verb, method, path);
  }
  /** One listener (or none with undefined); a profiling aid, not a metric. */
  listen(listener: RequestListener | undefined): void {
    this.listener = listener;
  }
  incError(verb: Verb): void {
    this.errorCounts[verb] += 1;
  }
  get(verb: Verb): number {
    return this.counts[verb];
  }
  /** A copy of the current counts. */
  snapshot(): VerbCounts {
    return { ...this.counts };
  }
  errors(): VerbCounts {
    return { ...this.errorCounts };
  }
  total(): number {
    return VERBS.reduce((n, v) => n + this.counts[v], 0);
  }
  writes(): number {
    return WRITE_VERBS.reduce((n, v) => n + this.counts[v], 0);
  }
  reset(): void {
    this.counts = zero();
    this.errorCounts = zero();
  }
}

/** Per-verb difference `after - before` of two snapshots. */
export function diffCounts(before: VerbCounts, after: VerbCounts): VerbCounts {
  const out = zero();
  for (const v of VERBS) out[v] = after[v] - before[v];
  return out;
}
