/**
 * The shard map and its planning (design/sharding.md §3), pure: which replica owns each bucket, in which
 * phase, since which epoch; and the next map the coordinator writes given the live replicas and the
 * epochs they acknowledged. Balanced with minimal movement: a bucket stays with its owner while that
 * owner is live and within its quota; only the surplus of over-quota owners and the buckets of lost
 * owners move.
 */
import { BUCKET_COUNT } from '../core/bucket.ts';

export type BucketPhase = 'active' | 'draining';

export interface BucketEntry {
  /** The replica that owns the bucket ('' for none). A draining bucket's owner still holds it. */
  owner: string;
  phase: BucketPhase;
  /** Draining: who takes the bucket once its owner has acknowledged the drain. */
  next?: string;
  /** The map epoch this entry last changed in. */
  epoch: number;
}

export interface ShardMap {
  /** Incremented by every change. */
  epoch: number;
  /** Indexed by bucket; BUCKET_COUNT entries. */
  buckets: BucketEntry[];
  /**
   * Set while children without a bucket label exist that an owner claims (childLabelAudit.ts): the
   * replicas cache kgraph's children whole, not only their buckets', until it is cleared.
   */
  labellingChildren?: true;
}

export function emptyShardMap(count = BUCKET_COUNT): ShardMap {
  return {
    epoch: 0,
    buckets: Array.from({ length: count }, () => ({ owner: '', phase: 'active', epoch: 0 })),
  };
}

/**
 * The owner each bucket should have: every live replica gets ⌊B/R⌋ or ⌈B/R⌉ buckets, and a bucket
 * keeps its present owner (the one it is draining to, if it is draining) whenever that owner is live
 * and has room.
 */
export function targetOwners(map: ShardMap, live: readonly string[]): string[] {
  const count = map.buckets.length;
  const replicas = [...new Set(live)].sort();
  if (replicas.length === 0) return map.buckets.map(() => '');
  const holder = (e: BucketEntry): string => (e.phase === 'draining' && e.next ? e.next : e.owner);
  const held = new Map<string, number>(replicas.map((r) => [r, 0]));
  for (const e of map.buckets) {
    const h = holder(e);
    if (held.has(h)) held.set(h, (held.get(h) ?? 0) + 1);
  }
  // The replicas that hold most get the larger quotas: fewer buckets move.
  const base = Math.floor(count / replicas.length);
  let extra = count % replicas.length;
  const quota = new Map<string, number>();
  for (const r of [...replicas].sort((a, b) => (held.get(b) ?? 0) - (held.get(a) ?? 0) || (a < b ? -1 : 1))) {
    quota.set(r, base + (extra > 0 ? 1 : 0));
    if (extra > 0) extra--;
  }
  const out = new Array<string>(count).fill('');
  const taken = new Map<string, number>(replicas.map((r) => [r, 0]));
  const free: number[] = [];
  map.buckets.forEach((e, b) => {
    const h = holder(e);
    if (quota.has(h) && (taken.get(h) ?? 0) < (quota.get(h) ?? 0)) {
      out[b] = h;
      taken.set(h, (taken.get(h) ?? 0) + 1);
    } else {
      free.push(b);
    }
  });
  let i = 0;
  for (const r of replicas) {
    while ((taken.get(r) ?? 0) < (quota.get(r) ?? 0) && i < free.length) {
      out[free[i++] as number] = r;
      taken.set(r, (taken.get(r) ?? 0) + 1);
    }
  }
  return out;
}

/**
 * The next map: buckets of owners no longer live (their Lease expired: they stopped writing,
 * design/sharding.md §5) go to their target at once; a bucket whose live owner is not its target
 * starts draining; a draining bucket whose owner acknowledged an epoch at least its own passes to
 * its next owner. `acked` maps each live replica to the epoch it last acknowledged. Returns the same
 * object when nothing changes.
 */
export function nextShardMap(
  map: ShardMap,
  live: readonly string[],
  acked: ReadonlyMap<string, number>,
): ShardMap {
  const liveSet = new Set(live);
  const target = targetOwners(map, live);
  const epoch = map.epoch + 1;
  let changed = false;
  const buckets = map.buckets.map((e, b): BucketEntry => {
    const t = target[b] ?? '';
    let n: BucketEntry = e;
    if (!liveSet.has(e.owner)) {
      n = t === '' ? { owner: '', phase: 'active', epoch: e.epoch } : { owner: t, phase: 'active', epoch };
    } else if (e.phase === 'active') {
      if (e.owner !== t && t !== '') n = { owner: e.owner, phase: 'draining', next: t, epoch };
    } else if ((acked.get(e.owner) ?? -1) >= e.epoch) {
      const to = e.next && liveSet.has(e.next) ? e.next : t;
      n = { owner: to, phase: 'active', epoch };
    } else if (e.next !== t) {
      n =
        t === e.owner
          ? { owner: e.owner, phase: 'active', epoch }
          : { owner: e.owner, phase: 'draining', next: t, epoch };
    }
    if (n !== e && (n.owner !== e.owner || n.phase !== e.phase || n.next !== e.next)) changed = true;
    else n = e;
    return n;
  });
  return changed ? { ...map, epoch, buckets } : map;
}

/** The map with its children phase set (a new epoch when it changes). */
export function withChildrenLabelling(map: ShardMap, labelling: boolean): ShardMap {
  if ((map.labellingChildren === true) === labelling) return map;
  const { labellingChildren: _, ...rest } = map;
  return { ...rest, epoch: map.epoch + 1, ...(labelling ? { labellingChildren: true as const } : {}) };
}

/** The buckets a replica serves: those it owns and is not draining. */
export function servedBuckets(map: ShardMap, identity: string): number[] {
  const out: number[] = [];
  map.buckets.forEach((e, b) => {
    if (e.owner === identity && e.phase === 'active') out.push(b);
  });
  return out;
}

/** Per replica: buckets owned (active), draining away from it, and coming to it. */
export function shardSummary(
  map: ShardMap,
): Map<string, { active: number; draining: number; incoming: number }> {
  const out = new Map<string, { active: number; draining: number; incoming: number }>();
  const row = (r: string) => {
    const x = out.get(r) ?? { active: 0, draining: 0, incoming: 0 };
    out.set(r, x);
    return x;
  };
  for (const e of map.buckets) {
    if (e.owner === '') continue;
    if (e.phase === 'active') row(e.owner).active++;
    else {
      row(e.owner).draining++;
      if (e.next) row(e.next).incoming++;
    }
  }
  return out;
}
