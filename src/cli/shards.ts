/**
 * `kgraph get shards [-n NAMESPACE]`: the sharded replicas of a controller (design/sharding.md §3) — the
 * shard map, each replica's membership Lease, its buckets (served, draining away, coming to it), the
 * epoch it acknowledged, and the Graphs, top-level instances and ConsumerClusters its buckets hold. Read-only.
 */
import { bucketLabel } from '../controller/core/bucket.ts';
import { LABEL_NODE_ID } from '../controller/core/names.ts';
import {
  ANNOTATION_ACKED_EPOCH,
  ANNOTATION_REPLICA_IDENTITY,
  LABEL_REPLICA,
} from '../controller/host/replicaLease.ts';
import { SHARD_MAP_NAME, shardMapOf, shardMapTarget } from '../controller/host/shardMapStore.ts';
import { shardSummary } from '../controller/host/shardPlan.ts';
import { CONSUMER_PLURAL, KROP_API_VERSION } from '../controller/planes/kropApi.ts';
import { generatedKindOf, LABEL_RGD_NAME } from '../controller/rgd/names.ts';
import { isRecord } from '../diag/record.ts';
import type { KubeObject, RestClient } from '../kube/index.ts';

export interface ShardRow {
  replica: string;
  coordinator: boolean;
  /** Seconds since the Lease's renewTime, by this machine's clock (informative: clocks differ). */
  renewedSecondsAgo: number | undefined;
  served: number;
  draining: number;
  incoming: number;
  acked: number | undefined;
  objects: number;
}

export interface ShardsView {
  namespace: string;
  epoch: number;
  rows: ShardRow[];
  unowned: number;
  unlabelled: number;
  /** The two-phase upgrade runs: children without a bucket are being labelled, caches hold every child. */
  labellingChildren: boolean;
}

async function topLevelObjects(client: RestClient): Promise<KubeObject[]> {
  const out: KubeObject[] = [];
  const graphs = await client
    .listAll({ apiVersion: 'kro.run/v1alpha1', plural: 'graphs' }, { metadataOnly: true })
    .catch(() => ({ items: [] as KubeObject[] }));
  out.push(...graphs.items);
  // Planes registrations: a consumer cluster and its instances are served by its bucket's owner.
  const consumers = await client
    .listAll({ apiVersion: KROP_API_VERSION, plural: CONSUMER_PLURAL }, { metadataOnly: true })
    .catch(() => ({ items: [] as KubeObject[] }));
  out.push(...consumers.items);
  const crds = await client.listAll(
    { apiVersion: 'apiextensions.k8s.io/v1', plural: 'customresourcedefinitions' },
    { labelSelector: LABEL_RGD_NAME },
  );
  for (const crd of crds.items) {
    const kind = generatedKindOf(crd);
    if (!kind) continue;
    const list = await client
      .listAll(
        { apiVersion: kind.apiVersion, plural: kind.plural },
        { metadataOnly: true, labelSelector: `!${LABEL_NODE_ID}` },
      )
      .catch(() => ({ items: [] as KubeObject[] }));
    out.push(...list.items);
  }
  return out;
}

export async function shardsView(client: RestClient, namespace: string): Promise<ShardsView> {
  const cm = await client.getOrUndefined(shardMapTarget(namespace));
  const map = shardMapOf(cm);
  if (!map)
    throw new Error(`no shard map (ConfigMap ${namespace}/${SHARD_MAP_NAME}): no sharded replicas run there`);
  const leases = await client.list(
    { apiVersion: 'coordination.k8s.io/v1', plural: 'leases', namespace },
    { labelSelector: LABEL_REPLICA },
  );
  const leader = await client.getOrUndefined({
    apiVersion: 'coordination.k8s.io/v1',
    plural: 'leases',
    namespace,
    name: 'kgraph-controller',
  });
  const coordinator = isRecord(leader?.spec) ? leader.spec.holderIdentity : undefined;
  const summary = shardSummary(map);
  const objectsPerReplica = new Map<string, number>();
  let unlabelled = 0;
  for (const o of await topLevelObjects(client)) {
    const b = bucketLabel(o.metadata.labels);
    if (b === undefined) {
      unlabelled++;
      continue;
    }
    const owner = map.buckets[Number(b)]?.owner ?? '';
    objectsPerReplica.set(owner, (objectsPerReplica.get(owner) ?? 0) + 1);
  }
  const ids = new Set<string>(summary.keys());
  const leaseOf = new Map<string, KubeObject>();
  for (const l of leases.items) {
    const spec = isRecord(l.spec) ? l.spec : {};
    const id =
      l.metadata.annotations?.[ANNOTATION_REPLICA_IDENTITY] ??
      (typeof spec.holderIdentity === 'string' ? spec.holderIdentity : '');
    if (!id) continue;
    ids.add(id);
    leaseOf.set(id, l);
  }
  const rows = [...ids].sort().map((replica): ShardRow => {
    const l = leaseOf.get(replica);
    const spec = l && isRecord(l.spec) ? l.spec : {};
    const renew = typeof spec.renewTime === 'string' ? Date.parse(spec.renewTime) : Number.NaN;
    const acked = l?.metadata.annotations?.[ANNOTATION_ACKED_EPOCH];
    const s = summary.get(replica) ?? { active: 0, draining: 0, incoming: 0 };
    return {
      replica,
      coordinator: replica === coordinator,
      renewedSecondsAgo: Number.isFinite(renew)
        ? Math.max(0, Math.round((Date.now() - renew) / 1000))
        : undefined,
      served: s.active,
      draining: s.draining,
      incoming: s.incoming,
      acked: acked !== undefined ? Number(acked) : undefined,
      objects: objectsPerReplica.get(replica) ?? 0,
    };
  });
  return {
    namespace,
    epoch: map.epoch,
    rows,
    unowned: map.buckets.filter((e) => e.owner === '').length,
    unlabelled,
    labellingChildren: map.labellingChildren === true,
  };
}

export function formatShards(v: ShardsView): string {
  const header = ['REPLICA', 'LEASE', 'BUCKETS', 'DRAINING', 'INCOMING', 'ACKED', 'OBJECTS'];
  const cells = v.rows.map((r) => [
    `${r.replica}${r.coordinator ? ' (coordinator)' : ''}`,
    r.renewedSecondsAgo === undefined ? 'none' : `renewed ${r.renewedSecondsAgo}s ago`,
    String(r.served),
    String(r.draining),
    String(r.incoming),
    r.acked === undefined ? '-' : String(r.acked),
    String(r.objects),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => (c[i] ?? '').length)));
  const line = (c: string[]) =>
    c
      .map((x, i) => x.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  const handovers = v.rows.reduce((n, r) => n + r.draining, 0);
  return [
    `shard map ${v.namespace}/${SHARD_MAP_NAME}: epoch ${v.epoch}, ${handovers} bucket(s) being handed over, ${v.unowned} unowned; ${v.unlabelled} object(s) without a bucket yet${v.labellingChildren ? '; children without a bucket being labelled (child caches unfiltered)' : ''}`,
    line(header),
    ...cells.map(line),
  ].join('\n');
}
