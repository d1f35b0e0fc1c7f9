/**
 * Prometheus text exposition of the controller's metrics: reconciles by result, their durations (a
 * histogram), API requests by verb (the RestClient counters), the work-queue depth, and gauges of
 * Graphs and informers. No client library: the text format is small.
 */
import { type RequestCounters, VERBS } from '../kube/index.ts';

const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export class ControllerMetrics {
  private readonly reconciles = new Map<string, number>();
  private readonly bucketCounts = BUCKETS.map(() => 0);
  private durationSum = 0;
  private durationCount = 0;

  constructor(
    private readonly counters: RequestCounters,
    private readonly gauges: { queueDepth: () => number; graphs: () => number; informers: () => number },
  ) {}

  observeReconcile(result: string, seconds: number): void {
    this.reconciles.set(result, (this.reconciles.get(result) ?? 0) + 1);
    this.durationSum += seconds;
    this.durationCount += 1;
    BUCKETS.forEach((b, i) => {
      if (seconds <= b) this.bucketCounts[i] = (this.bucketCounts[i] ?? 0) + 1;
    });
  }

  reconcileCount(result?: string): number {
    if (result !== undefined) return this.reconciles.get(result) ?? 0;
    let n = 0;
    for (const v of this.reconciles.values()) n += v;
    return n;
  }

  /** Total seconds spent reconciling (the histogram's sum). */
  get reconcileSeconds(): number {
    return this.durationSum;
  }

  render(): string {
    const lines: string[] = [];
    lines.push('# HELP kgraph_reconciles_total Graph reconciles by result.');
    lines.push('# TYPE kgraph_reconciles_total counter');
    for (const [result, n] of [...this.reconciles].sort()) {
      lines.push(`kgraph_reconciles_total{result="${result}"} ${n}`);
    }
    lines.push('# HELP kgraph_reconcile_duration_seconds Duration of Graph reconciles.');
    lines.push('# TYPE kgraph_reconcile_duration_seconds histogram');
    BUCKETS.forEach((b, i) => {
      lines.push(`kgraph_reconcile_duration_seconds_bucket{le="${b}"} ${this.bucketCounts[i] ?? 0}`);
    });
    lines.push(`kgraph_reconcile_duration_seconds_bucket{le="+Inf"} ${this.durationCount}`);
    lines.push(`kgraph_reconcile_duration_seconds_sum ${this.durationSum}`);
    lines.push(`kgraph_reconcile_duration_seconds_count ${this.durationCount}`);
    lines.push('# HELP kgraph_api_requests_total API requests by verb.');
    lines.push('# TYPE kgraph_api_requests_total counter');
    const counts = this.counters.snapshot();
    for (const v of VERBS) lines.push(`kgraph_api_requests_total{verb="${v}"} ${counts[v]}`);
    lines.push('# HELP kgraph_api_request_errors_total Failed API requests by verb.');
    lines.push('# TYPE kgraph_api_request_errors_total counter');
    const errors = this.counters.errors();
    for (const v of VERBS) lines.push(`kgraph_api_request_errors_total{verb="${v}"} ${errors[v]}`);
    lines.push('# HELP kgraph_workqueue_depth Graphs waiting in the work queue.');
    lines.push('# TYPE kgraph_workqueue_depth gauge');
    lines.push(`kgraph_workqueue_depth ${this.gauges.queueDepth()}`);
    lines.push('# HELP kgraph_graphs Graphs in the cache.');
    lines.push('# TYPE kgraph_graphs gauge');
    lines.push(`kgraph_graphs ${this.gauges.graphs()}`);
    lines.push('# HELP kgraph_informers Informers on kinds Graphs read or write.');
    lines.push('# TYPE kgraph_informers gauge');
    lines.push(`kgraph_informers ${this.gauges.informers()}`);
    return `${lines.join('\n')}\n`;
  }
}
