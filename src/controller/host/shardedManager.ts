/**
 * A manager whose controllers follow the shard map (design/sharding.md §3): the sharded host builds the
 * Graph, RGD and planes controllers for each assignment with manager.ts's builders, selecting the
 * replica's buckets (planes: its ConsumerClusters), registering RGDs and blueprints and sweeping the
 * planes' liveness records only on the coordinator.
 */

import { BUCKET_COUNT } from '../core/bucket.ts';
import type { Observability } from '../core/observability.ts';
import type { SharedReadAccess } from '../core/rbacChanges.ts';
import { graphRunnable, type Manager, type ManagerOptions, planesRunnable, rgdRunnable } from './manager.ts';
import { buildObservability } from './observe.ts';
import { type Assignment, ShardedHost, type ShardingOptions, type ShardRunnable } from './shardedHost.ts';

export async function shardedManager(
  opts: ManagerOptions,
  sharding: ShardingOptions,
  make: (
    opts: ManagerOptions,
    host: ShardedHost,
    observe: Observability,
    sharedReads?: SharedReadAccess,
  ) => Manager,
): Promise<Manager> {
  if (opts.planes?.kcp) throw new Error('sharded replicas do not run the planes controller on kcp');
  if (opts.leaderElection) throw new Error('sharded replicas elect their coordinator themselves');
  // One RBAC watch for the process, whatever the controllers of the moment.
  const sharedReads: SharedReadAccess | undefined =
    opts.graphs && opts.rgds
      ? (await import('../core/rbacChanges.ts')).sharedReadAccess(opts.client, { log: opts.log })
      : undefined;
  // One events recorder and history for the process: they outlive the controllers of an assignment.
  const observe = buildObservability(opts.client, opts.observe ?? {}, opts.log);
  const build = async (a: Assignment): Promise<ShardRunnable[]> => {
    // The fleet writes about one replica's worth of events: each replica its buckets' part (the
    // coordinator a floor for its RGD and rollout events).
    observe.events?.setShare(Math.max(a.buckets / BUCKET_COUNT, a.coordinator ? 0.1 : 0));
    const out: ShardRunnable[] = [];
    if (opts.graphs && a.buckets > 0)
      out.push(await graphRunnable(opts, opts.graphs, sharedReads, observe, a));
    if (opts.rgds && (a.buckets > 0 || a.coordinator))
      out.push(await rgdRunnable(opts, opts.rgds, sharedReads, observe, a));
    // The coordinator sweeps the liveness records; whoever is the coordinator for this assignment.
    if (opts.planes && (a.buckets > 0 || a.coordinator))
      out.push(await planesRunnable(opts, opts.planes, { isLeader: () => a.coordinator }, a));
    return out;
  };
  const host = new ShardedHost({
    client: opts.client,
    log: opts.log,
    sharding,
    graphs: opts.graphs !== undefined,
    rgds: opts.rgds !== undefined,
    planes: opts.planes !== undefined,
    ...(opts.namespaces ? { namespaces: opts.namespaces } : {}),
    build,
    onFatal: () => opts.onLostLeadership?.(),
  });
  return make(opts, host, observe, sharedReads);
}
