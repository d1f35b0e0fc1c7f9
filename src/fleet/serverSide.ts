/**
 * `kgraph fleet diff --server-side` (design/rgd.md §19.9): each object the diff would add or change is
 * applied as a server-side dry run, as the controller would apply it — its field manager, forced, and
 * as the instance's ServiceAccount where the RGD maps one — so admission (webhooks, policies, quota,
 * RBAC) and defaulting are part of the answer. A change the server would store as it holds it is a
 * `no-op`: the controller's own dry run (controller/core/applyMemory.ts) would write nothing either.
 */
import { graphImpersonation } from '../controller/core/names.ts';
import { APPLYSET_MANAGER, instanceServiceAccount } from '../controller/rgd/names.ts';
import { isRecord } from '../diag/record.ts';
import type { CompiledGraph } from '../graph/model.ts';
import { isApiError, type RestClient } from '../kube/index.ts';
import type { KubeObject } from '../runtime/observed.ts';
import type { InstanceDiff } from './instanceDiff.ts';
import { objectKey, type ServerSideAnswer } from './report.ts';

/** Dry-runs every add and change of `diffs` (in place: `serverSide` per instance), `concurrency` at a time. */
export async function dryRunApplies(
  client: RestClient,
  graph: CompiledGraph,
  diffs: (InstanceDiff & { serverSide?: Record<string, ServerSideAnswer> })[],
  live: (o: { apiVersion: string; kind: string; namespace?: string; name: string }) => KubeObject | undefined,
  concurrency = 16,
): Promise<void> {
  const jobs: (() => Promise<void>)[] = [];
  for (const d of diffs) {
    const sa = instanceServiceAccount(graph.rgd?.defaultServiceAccounts, d.namespace ?? '');
    const writer = sa ? client.withImpersonation(graphImpersonation(sa.namespace, sa.name)) : client;
    const as = sa ? `system:serviceaccount:${sa.namespace}:${sa.name}` : undefined;
    for (const o of d.objects) {
      if (o.action === 'prune' || !o.desired) continue;
      const desired = o.desired;
      jobs.push(async () => {
        let answer: ServerSideAnswer;
        try {
          const res = await writer.apply(desired as never, {
            fieldManager: APPLYSET_MANAGER,
            force: true,
            dryRun: true,
          });
          const before = live(o);
          answer = {
            outcome: before && sameStored(before, res as unknown as KubeObject) ? 'no-op' : 'admitted',
          };
        } catch (e) {
          answer = { outcome: 'refused', message: isApiError(e) ? `${e.code}: ${e.message}` : String(e) };
        }
        if (as) answer.as = as;
        d.serverSide ??= {};
        d.serverSide[objectKey(o)] = answer;
      });
    }
  }
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, jobs.length) }, async () => {
      while (next < jobs.length) await jobs[next++]!();
    }),
  );
}

/** Equal as stored, apart from what every write changes (resourceVersion, managedFields times, generation). */
function sameStored(a: KubeObject, b: KubeObject): boolean {
  return JSON.stringify(stored(a)) === JSON.stringify(stored(b));
}

function stored(o: KubeObject): unknown {
  const { metadata, status: _s, ...rest } = o as unknown as Record<string, unknown>;
  const m = isRecord(metadata) ? { ...metadata } : {};
  for (const k of ['resourceVersion', 'managedFields', 'generation', 'creationTimestamp']) delete m[k];
  return sortKeys({ ...rest, metadata: m });
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (!isRecord(v)) return v;
  return Object.fromEntries(
    Object.keys(v)
      .sort()
      .map((k) => [k, sortKeys(v[k])]),
  );
}
