/**
 * The planes controller's Prometheus metrics (design/planes.md §13.4), through prom-client,
 * in a registry of their own that `kgraph controller` merges into its `/metrics`: API requests per plane
 * (`plane` = consumer | provider | host, `cluster` = the ConsumerCluster for consumer requests; provider
 * = the management cluster) and verb, instances and ready instances per (blueprint, cluster), instance
 * reconciles by outcome, child watches and their events, and the sweeper's figures. Everything is read
 * from the controller's state at scrape time.
 */
import { Counter, Gauge, Registry } from 'prom-client';
import { type RequestCounters, VERBS } from '../../kube/index.ts';

export interface PlaneRequests {
  plane: 'consumer' | 'provider' | 'host';
  /** The ConsumerCluster name (consumer plane only). */
  cluster?: string;
  counters: RequestCounters;
}

export interface InstanceCount {
  blueprint: string;
  cluster: string;
  instances: number;
  ready: number;
}

export interface PlanesMetricsSource {
  requests: () => PlaneRequests[];
  instances: () => InstanceCount[];
  reconciles: () => ReadonlyMap<string, number>;
  childWatches: () => number;
  childWatchEvents: () => number;
  sweepKeptUnreachable: () => number;
  swept: () => number;
  /** Whether this process may sweep now (leader, or declared single replica). */
  sweeperLeader: () => boolean;
}

export class PlanesMetrics {
  readonly registry = new Registry();

  constructor(src: PlanesMetricsSource) {
    const registers = [this.registry];
    new Counter({
      name: 'kgraph_planes_api_requests_total',
      help: 'Planes controller API requests by plane (consumer with its cluster, provider, host) and verb.',
      labelNames: ['plane', 'cluster', 'verb'],
      registers,
      collect() {
        this.reset();
        for (const r of src.requests()) {
          const counts = r.counters.snapshot();
          for (const verb of VERBS)
            this.inc(
              r.cluster !== undefined
                ? { plane: r.plane, cluster: r.cluster, verb }
                : { plane: r.plane, verb },
              counts[verb],
            );
        }
      },
    });
    new Counter({
      name: 'kgraph_planes_api_request_errors_total',
      help: 'Failed planes controller API requests by plane.',
      labelNames: ['plane', 'cluster'],
      registers,
      collect() {
        this.reset();
        for (const r of src.requests()) {
          const errors = r.counters.errors();
          const n = VERBS.reduce((sum, v) => sum + errors[v], 0);
          this.inc(r.cluster !== undefined ? { plane: r.plane, cluster: r.cluster } : { plane: r.plane }, n);
        }
      },
    });
    const perInstance = (name: string, help: string, pick: (i: InstanceCount) => number) =>
      new Gauge({
        name,
        help,
        labelNames: ['blueprint', 'cluster'],
        registers,
        collect() {
          this.reset();
          for (const i of src.instances()) this.set({ blueprint: i.blueprint, cluster: i.cluster }, pick(i));
        },
      });
    perInstance(
      'kgraph_planes_instances',
      'Instances of a blueprint served in a consumer cluster.',
      (i) => i.instances,
    );
    perInstance(
      'kgraph_planes_instances_ready',
      'Instances with Ready=True, per blueprint and consumer cluster.',
      (i) => i.ready,
    );
    new Counter({
      name: 'kgraph_planes_instance_reconciles_total',
      help: 'Instance reconciles by outcome.',
      labelNames: ['outcome'],
      registers,
      collect() {
        this.reset();
        for (const [outcome, n] of src.reconciles()) this.inc({ outcome }, n);
      },
    });
    const counter = (name: string, help: string, read: () => number) =>
      new Counter({
        name,
        help,
        registers,
        collect() {
          this.reset();
          this.inc(read());
        },
      });
    const gauge = (name: string, help: string, read: () => number) =>
      new Gauge({
        name,
        help,
        registers,
        collect() {
          this.set(read());
        },
      });
    gauge(
      'kgraph_planes_child_watches',
      'Child and externalRef watches open (design/planes.md §11.1).',
      src.childWatches,
    );
    counter(
      'kgraph_planes_child_watch_events_total',
      'Watch events that requeued an instance.',
      src.childWatchEvents,
    );
    gauge(
      'kgraph_planes_sweep_kept_unreachable',
      'Stale liveness records the last sweep kept because their cluster is unreachable or changed.',
      src.sweepKeptUnreachable,
    );
    counter(
      'kgraph_planes_swept_total',
      'Gone instances whose provider and host children were swept.',
      src.swept,
    );
    gauge(
      'kgraph_planes_sweeper_leader',
      '1 when this process may sweep (leader, or declared single replica).',
      () => (src.sweeperLeader() ? 1 : 0),
    );
  }

  render(): Promise<string> {
    return this.registry.metrics();
  }
}
