/**
 * kro's instance reconcile series, under kro's names and its `gvr` label (Go's GroupVersionResource text,
 * `group/version, Resource=plural`), so dashboards and alerts built for kro read kgraph
 * (docs/observability.md):
 *
 *   instance_reconcile_total{gvr}              every pass
 *   instance_reconcile_errors_total{gvr}       passes that failed as a whole (an exception)
 *   instance_reconcile_duration_seconds{gvr}   histogram, kro's buckets
 *
 * As kro, a resource that fails to apply and is retried is not a reconcile error: it is reported in the
 * instance's conditions and retried, and counting it would make an absolute alert threshold fire for an
 * instance that is merely waiting (a namespace not created yet, a webhook refusing for a while).
 */
import { Counter, Histogram, type Registry } from 'prom-client';

const BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 20, 25, 30, 45, 60, 120];

/** What names the instance kind in the `gvr` label. */
export interface ServedResource {
  group: string;
  version: string;
  plural: string;
}

export interface InstanceMetrics {
  /** One pass ended: `outcome` is the pass's outcome kind, or `error` when it threw. */
  observe(api: ServedResource, outcome: string, seconds: number): void;
}

/** kro's `gvr` label value: `schema.GroupVersionResource.String()`. */
export function gvrLabel(api: ServedResource): string {
  return `${api.group}/${api.version}, Resource=${api.plural}`;
}

export function instanceMetrics(registry: Registry): InstanceMetrics {
  const registers = [registry];
  const total = new Counter({
    name: 'instance_reconcile_total',
    help: 'Total number of instance reconciliations per GVR',
    labelNames: ['gvr'],
    registers,
  });
  const errors = new Counter({
    name: 'instance_reconcile_errors_total',
    help: 'Total number of instance reconciliation errors per GVR',
    labelNames: ['gvr'],
    registers,
  });
  const duration = new Histogram({
    name: 'instance_reconcile_duration_seconds',
    help: 'Duration of instance reconciliation in seconds per GVR',
    labelNames: ['gvr'],
    buckets: BUCKETS,
    registers,
  });
  return {
    observe(api, outcome, seconds) {
      const gvr = gvrLabel(api);
      total.inc({ gvr });
      duration.observe({ gvr }, seconds);
      if (outcome === 'error') errors.inc({ gvr });
    },
  };
}
