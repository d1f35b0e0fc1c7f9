/**
 * controller-runtime's and client-go's workqueue metric names, where ours mean the same thing, so
 * dashboards and alerts built for kro and other controllers work on kgraph (docs/observability.md):
 *
 *   controller_runtime_reconcile_total{controller,result}      result: success, error, requeue_after
 *   controller_runtime_reconcile_errors_total{controller}
 *   controller_runtime_reconcile_time_seconds{controller}      histogram
 *   controller_runtime_active_workers{controller}
 *   workqueue_depth{name} workqueue_adds_total{name} workqueue_retries_total{name}
 *   workqueue_queue_duration_seconds{name} workqueue_work_duration_seconds{name}   histograms
 *
 * One registry for the process (the Graph and RGD controllers' own registries hold the same `kgraph_*`
 * names and only one of them is rendered; these carry the controller in a label instead).
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { QueueStats, WorkQueue } from '../../kube/index.ts';

/** controller-runtime's reconcile-time buckets. */
const RECONCILE_BUCKETS = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1, 1.25, 1.5,
  1.75, 2, 2.5, 3, 3.5, 4, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
];
/** client-go's workqueue buckets: 10^-8 … 10^1 seconds. */
const QUEUE_BUCKETS = Array.from({ length: 10 }, (_, i) => 10 ** (i - 8));

interface Standard {
  registry: Registry;
  reconciles: Counter<'controller' | 'result'>;
  errors: Counter<'controller'>;
  time: Histogram<'controller'>;
  queued: Histogram<'name'>;
  worked: Histogram<'name'>;
  queues: Map<string, () => QueueStats>;
}

let standard: Standard | undefined;

function metrics(): Standard {
  if (standard) return standard;
  const registry = new Registry();
  const registers = [registry];
  const queues = new Map<string, () => QueueStats>();
  const perQueue = (name: string, help: string, read: (s: QueueStats) => number, counter: boolean) => {
    const opts = {
      name,
      help,
      labelNames: ['name'] as const,
      registers,
      collect(this: Gauge<'name'> | Counter<'name'>) {
        this.reset();
        for (const [q, stats] of queues) this.inc({ name: q }, read(stats()));
      },
    };
    return counter ? new Counter(opts) : new Gauge(opts);
  };
  perQueue('workqueue_depth', 'Current depth of the workqueue.', (s) => s.depth, false);
  perQueue('workqueue_adds_total', 'Total number of adds handled by the workqueue.', (s) => s.adds, true);
  perQueue(
    'workqueue_retries_total',
    'Total number of retries handled by the workqueue.',
    (s) => s.retries,
    true,
  );
  new Gauge({
    name: 'controller_runtime_active_workers',
    help: 'Number of currently used workers per controller.',
    labelNames: ['controller'],
    registers,
    collect() {
      this.reset();
      for (const [q, stats] of queues) this.set({ controller: q }, stats().processing);
    },
  });
  standard = {
    registry,
    queues,
    reconciles: new Counter({
      name: 'controller_runtime_reconcile_total',
      help: 'Total number of reconciliations per controller.',
      labelNames: ['controller', 'result'],
      registers,
    }),
    errors: new Counter({
      name: 'controller_runtime_reconcile_errors_total',
      help: 'Total number of reconciliation errors per controller.',
      labelNames: ['controller'],
      registers,
    }),
    time: new Histogram({
      name: 'controller_runtime_reconcile_time_seconds',
      help: 'Length of time per reconciliation per controller.',
      labelNames: ['controller'],
      buckets: RECONCILE_BUCKETS,
      registers,
    }),
    queued: new Histogram({
      name: 'workqueue_queue_duration_seconds',
      help: 'How long in seconds an item stays in workqueue before being requested.',
      labelNames: ['name'],
      buckets: QUEUE_BUCKETS,
      registers,
    }),
    worked: new Histogram({
      name: 'workqueue_work_duration_seconds',
      help: 'How long in seconds processing an item from workqueue takes.',
      labelNames: ['name'],
      buckets: QUEUE_BUCKETS,
      registers,
    }),
  };
  return standard;
}

/** The process's registry of the standard names (rendered by `/metrics`). */
export function standardMetricsRegistry(): Registry {
  return metrics().registry;
}

/** Reports a queue under `name` (also the controller label): depth, adds, retries, timings, workers. */
export function instrumentQueue(name: string, queue: WorkQueue<string>): void {
  const m = metrics();
  m.queues.set(name, () => queue.stats());
  queue.observe({
    queued: (s) => m.queued.observe({ name }, s),
    worked: (s) => m.worked.observe({ name }, s),
  });
}

/** One reconcile by our outcome kinds: converged/deleted/gone/invalid are successes, waiting a requeue_after. */
export function observeStandardReconcile(controller: string, outcome: string, seconds: number): void {
  const m = metrics();
  const result =
    outcome === 'error' || outcome === 'failed'
      ? 'error'
      : outcome === 'waiting'
        ? 'requeue_after'
        : 'success';
  m.reconciles.inc({ controller, result });
  if (result === 'error') m.errors.inc({ controller });
  m.time.observe({ controller }, seconds);
}
