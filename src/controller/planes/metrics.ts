/**
 * The planes controller's Prometheus metrics (issue #14 item 6, planes.md §13.4), appended to the
 * controller's `/metrics`: API requests per plane (`plane` = consumer | provider | host, `cluster` = the
 * ConsumerCluster for consumer requests) and verb, instances and ready instances per (blueprint,
 * cluster), instance reconciles by outcome, child-watch events, and the sweeper's figures (stale records
 * kept because their cluster is unreachable, instances swept). Rendering only: the numbers live in the
 * clients' RequestCounters and the controller's state.
 */
import { type RequestCounters, VERBS } from '../../kube/index.ts';

export interface PlaneRequests {
  plane: 'consumer' | 'provider' | 'host';
  cluster?: string;
  counters: RequestCounters;
}

export interface InstanceCount {
  blueprint: string;
  cluster: string;
  instances: number;
  ready: number;
}

export interface PlanesMetricsSnapshot {
  requests: PlaneRequests[];
  instances: InstanceCount[];
  reconciles: Map<string, number>;
  childWatches: number;
  childWatchEvents: number;
  sweepKeptUnreachable: number;
  swept: number;
  isLeader: boolean;
}

/** A label value in the text format: backslash, quote and newline escaped. */
function lv(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

export function renderPlanesMetrics(s: PlanesMetricsSnapshot): string {
  const lines: string[] = [];
  const head = (name: string, type: 'counter' | 'gauge', help: string): void => {
    lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
  };
  head('kgraph_planes_api_requests_total', 'counter', 'Planes controller API requests by plane and verb.');
  for (const r of s.requests) {
    const labels = `plane="${r.plane}"${r.cluster !== undefined ? `,cluster="${lv(r.cluster)}"` : ''}`;
    const counts = r.counters.snapshot();
    for (const v of VERBS) lines.push(`kgraph_planes_api_requests_total{${labels},verb="${v}"} ${counts[v]}`);
  }
  head('kgraph_planes_api_request_errors_total', 'counter', 'Failed planes API requests by plane.');
  for (const r of s.requests) {
    const labels = `plane="${r.plane}"${r.cluster !== undefined ? `,cluster="${lv(r.cluster)}"` : ''}`;
    const errors = r.counters.errors();
    lines.push(
      `kgraph_planes_api_request_errors_total{${labels}} ${VERBS.reduce((n, v) => n + errors[v], 0)}`,
    );
  }
  head('kgraph_planes_instances', 'gauge', 'Instances of a blueprint served in a consumer cluster.');
  for (const i of s.instances)
    lines.push(
      `kgraph_planes_instances{blueprint="${lv(i.blueprint)}",cluster="${lv(i.cluster)}"} ${i.instances}`,
    );
  head(
    'kgraph_planes_instances_ready',
    'gauge',
    'Instances with Ready=True, per blueprint and consumer cluster.',
  );
  for (const i of s.instances)
    lines.push(
      `kgraph_planes_instances_ready{blueprint="${lv(i.blueprint)}",cluster="${lv(i.cluster)}"} ${i.ready}`,
    );
  head('kgraph_planes_instance_reconciles_total', 'counter', 'Instance reconciles by outcome.');
  for (const [k, n] of [...s.reconciles].sort())
    lines.push(`kgraph_planes_instance_reconciles_total{outcome="${lv(k)}"} ${n}`);
  head('kgraph_planes_child_watches', 'gauge', 'Child and externalRef watches open (planes.md §11.1).');
  lines.push(`kgraph_planes_child_watches ${s.childWatches}`);
  head('kgraph_planes_child_watch_events_total', 'counter', 'Watch events that requeued an instance.');
  lines.push(`kgraph_planes_child_watch_events_total ${s.childWatchEvents}`);
  head(
    'kgraph_planes_sweep_kept_unreachable',
    'gauge',
    'Stale liveness records the last sweep kept because their cluster is unreachable or changed.',
  );
  lines.push(`kgraph_planes_sweep_kept_unreachable ${s.sweepKeptUnreachable}`);
  head('kgraph_planes_swept_total', 'counter', 'Gone instances whose provider and host children were swept.');
  lines.push(`kgraph_planes_swept_total ${s.swept}`);
  head(
    'kgraph_planes_sweeper_leader',
    'gauge',
    '1 when this process may sweep (leader, or declared single replica).',
  );
  lines.push(`kgraph_planes_sweeper_leader ${s.isLeader ? 1 : 0}`);
  return `${lines.join('\n')}\n`;
}
