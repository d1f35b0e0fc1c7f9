/**
 * The shard map as one API object (design/sharding.md §3): the ConfigMap `kgraph-shards` in the
 * controller namespace, key `map`, compact JSON — `{"epoch":E,"owners":[…],"buckets":[[owner, phase,
 * next, epoch], …]}` with owners and next as indexes into `owners` (-1 for none) and phase 0 active,
 * 1 draining, and `"labellingChildren":true` while the two-phase upgrade runs (childLabelAudit.ts); about
 * 15 KB for 1024 buckets. Only the coordinator writes it (optimistic concurrency on
 * its resourceVersion); every replica reads it through a watch.
 */
import { isRecord } from '../../diag/record.ts';
import type { KubeObject, RestClient } from '../../kube/index.ts';
import { BUCKET_COUNT } from '../core/bucket.ts';
import type { BucketEntry, ShardMap } from './shardPlan.ts';

export const SHARD_MAP_NAME = 'kgraph-shards';
export const SHARD_MAP_KEY = 'map';

/** The shard map object is there but cannot be read as one: a replica refuses to reconcile. */
export class ShardMapError extends Error {
  readonly code = 'ShardMapUnreadable';
  constructor(message: string) {
    super(message);
    this.name = 'ShardMapError';
  }
}

export function encodeShardMap(map: ShardMap): string {
  const owners: string[] = [];
  const index = new Map<string, number>();
  const idx = (o: string | undefined): number => {
    if (!o) return -1;
    let i = index.get(o);
    if (i === undefined) {
      i = owners.length;
      owners.push(o);
      index.set(o, i);
    }
    return i;
  };
  const buckets = map.buckets.map((e) => [
    idx(e.owner),
    e.phase === 'draining' ? 1 : 0,
    idx(e.next),
    e.epoch,
  ]);
  return JSON.stringify({
    epoch: map.epoch,
    owners,
    buckets,
    ...(map.labellingChildren ? { labellingChildren: true } : {}),
  });
}

export function decodeShardMap(text: string): ShardMap {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new ShardMapError(`shard map is not JSON: ${String(e)}`);
  }
  if (!isRecord(v) || typeof v.epoch !== 'number' || !Array.isArray(v.owners) || !Array.isArray(v.buckets))
    throw new ShardMapError('shard map lacks epoch, owners or buckets');
  const owners = v.owners.map((o) => (typeof o === 'string' ? o : ''));
  if (v.buckets.length !== BUCKET_COUNT)
    throw new ShardMapError(`shard map has ${v.buckets.length} buckets, not ${BUCKET_COUNT}`);
  const buckets = v.buckets.map((row, b): BucketEntry => {
    if (!Array.isArray(row) || row.length !== 4 || !row.every((x) => typeof x === 'number'))
      throw new ShardMapError(`shard map bucket ${b} is malformed`);
    const [o, p, n, e] = row as number[];
    const owner = (o as number) >= 0 ? owners[o as number] : '';
    const next = (n as number) >= 0 ? owners[n as number] : undefined;
    if (owner === undefined) throw new ShardMapError(`shard map bucket ${b} names no owner`);
    return { owner, phase: p === 1 ? 'draining' : 'active', ...(next ? { next } : {}), epoch: e as number };
  });
  return { epoch: v.epoch, buckets, ...(v.labellingChildren === true ? { labellingChildren: true } : {}) };
}

/** The map an object holds; undefined when the object is absent. */
export function shardMapOf(cm: KubeObject | undefined): ShardMap | undefined {
  if (!cm) return undefined;
  const text = isRecord(cm.data) ? cm.data[SHARD_MAP_KEY] : undefined;
  if (typeof text !== 'string')
    throw new ShardMapError(`ConfigMap ${SHARD_MAP_NAME} has no ${SHARD_MAP_KEY}`);
  return decodeShardMap(text);
}

export function shardMapTarget(namespace: string) {
  return { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespace, name: SHARD_MAP_NAME };
}

/**
 * Writes `next` over the object last read (`current`, with its resourceVersion), or creates it; a
 * conflict (someone else wrote meanwhile) throws and the coordinator plans again from what it reads.
 */
export async function writeShardMap(
  client: RestClient,
  namespace: string,
  current: KubeObject | undefined,
  next: ShardMap,
): Promise<KubeObject> {
  const data = { [SHARD_MAP_KEY]: encodeShardMap(next) };
  if (!current) {
    return client.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: SHARD_MAP_NAME, namespace, labels: { 'app.kubernetes.io/managed-by': 'kgraph' } },
      data,
    });
  }
  return client.update({ ...current, data });
}
