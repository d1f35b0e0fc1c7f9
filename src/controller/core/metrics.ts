/**
 * The controller's Prometheus metrics, through prom-client: reconciles by result,
 * their durations (a histogram), API requests by verb (the RestClient counters, read at scrape
 * time), the work-queue depth, and gauges of Graphs and informers. Each controller has its own
 * registry; the process host adds the process and Node.js runtime metrics (host/metricsEndpoint.ts)
 * when it serves `/metrics`.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { type RequestCounters, VERBS } from '../../kube/index.ts';
import { observeStandardReconcile } from './standardMetrics.ts';

const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export class ControllerMetrics {
  readonly registry = new Registry();
  private readonly reconciles: Counter<'result'>;
  private readonly durations: Histogram;
  private readonly results = new Map<string, number>();
  private durationSum = 0;
  /** The `controller` label of the standard reconcile metrics (standardMetrics.ts). */
  private readonly controller: string;

  constructor(
    counters: RequestCounters,
    gauges: { queueDepth: () => number; graphs: () => number; informers: () => number },
    controller = 'graph',
  ) {
    this.controller = controller;
    const registers = [this.registry];
    this.reconciles = new Counter({
      name: 'kgraph_reconciles_total',
      help: 'Graph reconciles by result.',
      labelNames: ['result'],
      registers,
    });
    this.durations = new Histogram({
      name: 'kgraph_reconcile_duration_seconds',
      help: 'Duration of Graph reconciles.',
      buckets: BUCKETS,
      registers,
    });
    // The request counters live in the client (one per process): copied in at each scrape.
    const fromCounters = (name: string, help: string, read: () => Record<string, number>) =>
      new Counter({
        name,
        help,
        labelNames: ['verb'],
        registers,
        collect() {
          this.reset();
          const counts = read();
          for (const verb of VERBS) this.inc({ verb }, counts[verb] ?? 0);
        },
      });
    fromCounters('kgraph_api_requests_total', 'API requests by verb.', () => counters.snapshot());
    fromCounters('kgraph_api_request_errors_total', 'Failed API requests by verb.', () => counters.errors());
    const gauge = (name: string, help: string, read: () => number) =>
      new Gauge({
        name,
        help,
        registers,
        collect() {
          this.set(read());
        },
      });
    gauge('kgraph_workqueue_depth', 'Graphs waiting in the work queue.', gauges.queueDepth);
    gauge('kgraph_graphs', 'Graphs in the cache.', gauges.graphs);
    gauge('kgraph_informers', 'Informers on kinds Graphs read or write.', gauges.informers);
  }

  observeReconcile(result: string, seconds: number): void {
    this.reconciles.inc({ result });
    this.durations.observe(seconds);
    this.results.set(result, (this.results.get(result) ?? 0) + 1);
    this.durationSum += seconds;
    observeStandardReconcile(this.controller, result, seconds);
  }

  reconcileCount(result?: string): number {
    if (result !== undefined) return this.results.get(result) ?? 0;
    let n = 0;
    for (const v of this.results.values()) n += v;
    return n;
  }

  /** Total seconds spent reconciling (the histogram's sum). */
  get reconcileSeconds(): number {
    return this.durationSum;
  }

  /** The Prometheus text exposition of this controller's metrics. */
  render(): Promise<string> {
    return this.registry.metrics();
  }
}
