/**
 * Removing what a reconcile no longer wants: retired objects deleted in reverse apply order, each
 * preconditioned on its UID (never by name alone), and retired patch contributions released by an
 * identity-only apply under their manager (design/graph.md §13.3). Shared by Graphs and RGD instances.
 */
import type { Logger } from 'pino';
import type { KubeObject, RestClient } from '../../kube/index.ts';
import { withSpan } from '../../kube/tracing/tracing.ts';
import { managerEntry } from './applyNeeded.ts';
import { idOf } from './desired.ts';
import { errorMessage, isGoneError, isTargetVanished, withUidPrecondition } from './errors.ts';
import { type Contribution, contributionKey, resourceKey } from './inventory.ts';
import type { WatchSet } from './watches.ts';

export interface Retired {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
  uid?: string;
}

/** Deletes `retired` from the end (dependents first); returns what could not be deleted, in order. */
export async function pruneRetired<T extends Retired>(
  writer: RestClient,
  watches: WatchSet,
  log: Logger,
  retired: T[],
): Promise<{ kept: T[]; errors: string[] }> {
  const kept: T[] = [];
  const errors: string[] = [];
  for (const r of [...retired].reverse()) {
    if (!r.uid) continue; // never delete by name alone
    try {
      await watches.prepare(r.apiVersion, r.kind, [r.namespace]);
      await withSpan('prune', { 'kgraph.object': resourceKey(r) }, () =>
        writer.delete(
          { apiVersion: r.apiVersion, kind: r.kind, namespace: r.namespace, name: r.name },
          { preconditions: { uid: r.uid }, propagationPolicy: 'Background' },
        ),
      );
      watches.noteDeleted(idOf(r), r.uid);
      log.info({ resource: resourceKey(r) }, 'pruned');
    } catch (e) {
      if (isGoneError(e)) continue; // gone (or its kind is), or replaced by another object
      errors.push(`delete ${resourceKey(r)}: ${errorMessage(e)}`);
      kept.unshift(r);
    }
  }
  return { kept, errors };
}

export async function releaseContributions(
  writer: RestClient,
  watches: WatchSet,
  retired: Contribution[],
): Promise<{ kept: Contribution[]; errors: string[] }> {
  const kept: Contribution[] = [];
  const errors: string[] = [];
  // Patch targets are not our objects: found in the whole kind's cache (design/sharding.md §1).
  watches.declareForeign({ kinds: retired.map((c) => `${c.apiVersion}/${c.kind}`), dynamic: false });
  for (const c of retired) {
    await watches.prepare(c.apiVersion, c.kind, [c.namespace]).catch(() => undefined);
    const target = watches.peek(idOf(c));
    // Gone, or nothing of ours on it: nothing to release.
    if (!target || !managerEntry(target, c.fieldManager, c.subresource)) continue;
    const body = withUidPrecondition(
      {
        apiVersion: c.apiVersion,
        kind: c.kind,
        metadata: c.namespace ? { name: c.name, namespace: c.namespace } : { name: c.name },
      },
      target,
    ) as KubeObject;
    try {
      const res =
        c.subresource === 'status'
          ? await writer.applyStatus(body, { fieldManager: c.fieldManager, force: true })
          : await writer.apply(body, { fieldManager: c.fieldManager, force: true });
      watches.noteWritten(res);
    } catch (e) {
      if (isTargetVanished(e) || (e instanceof Error && e.name === 'NoKindMatchError')) continue; // the target is gone
      errors.push(`release ${contributionKey(c)}: ${errorMessage(e)}`);
      kept.push(c);
    }
  }
  return { kept, errors };
}
