/**
 * Graph deletion through the finalizer (design/graph.md §22.1), from status alone — the spec is not
 * compiled, so an invalid Graph still cleans up:
 *   1. delete the tracked resources in reverse `managedResources` order, each preconditioned on its
 *      UID; an object that lingers (its own finalizers) is waited for before the next one is deleted;
 *   2. release every contribution;
 *   3. remove the finalizer.
 * Writes impersonate `status.appliedServiceAccount`. A failure reports DeleteFailed and keeps the
 * finalizer; the controller retries.
 */
import type { Logger } from 'pino';
import type { KubeObject, RestClient } from '../../kube/index.ts';
import { identityKey } from '../../runtime/observed.ts';
import { managerEntry } from '../core/applyNeeded.ts';
import { condition } from '../core/conditions.ts';
import { idOf } from '../core/desired.ts';
import { errorMessage, isGoneError } from '../core/errors.ts';
import { resourceKey } from '../core/inventory.ts';
import { graphImpersonation, parseServiceAccountUser, templateManager } from '../core/names.ts';
import { releaseContributions } from '../core/prune.ts';
import type { Interest, WatchSet } from '../core/watches.ts';
import { setFinalizer } from './finalizer.ts';
import { serviceAccountNameOf } from './serviceAccount.ts';
import { type GraphStatus, readyCondition } from './status.ts';

export interface FinalizeDeps {
  client: RestClient;
  watches: WatchSet;
  log: Logger;
  writeStatus: (s: GraphStatus) => Promise<void>;
  now: () => string;
}

export interface FinalizeOutcome {
  kind: 'deleted' | 'waiting' | 'failed';
  reason: string;
  interest: Interest;
  error?: Error;
}

export async function finalizeGraph(
  deps: FinalizeDeps,
  graph: KubeObject,
  status: GraphStatus,
  interest: Interest,
): Promise<FinalizeOutcome> {
  const namespace = graph.metadata.namespace ?? 'default';
  const sa = parseServiceAccountUser(status.appliedServiceAccount) ?? {
    namespace,
    name: serviceAccountNameOf(graph),
  };
  const writer = deps.client.withImpersonation(graphImpersonation(sa.namespace, sa.name));
  const remaining = [...status.managedResources];
  let error: string | undefined;
  let waitingFor: string | undefined;

  while (remaining.length > 0) {
    const r = remaining[remaining.length - 1];
    if (!r) break;
    if (!r.uid) {
      // An intent entry (a crash between apply and the UID record): delete the object only when our
      // template manager, derived from this Graph's UID, owns fields on it — never by name alone.
      await deps.watches.prepare(r.apiVersion, r.kind, [r.namespace]).catch(() => undefined);
      const obj = deps.watches.peek(idOf(r));
      const uid = obj?.metadata?.uid;
      if (!obj || !uid || !managerEntry(obj, templateManager(graph.metadata.uid ?? ''))) {
        remaining.pop();
        continue;
      }
      remaining[remaining.length - 1] = { ...r, uid };
      continue;
    }
    interest.gets.add(identityKey(idOf(r)));
    try {
      await deps.watches.prepare(r.apiVersion, r.kind, [r.namespace]);
      const res = await writer.delete(
        { apiVersion: r.apiVersion, kind: r.kind, namespace: r.namespace, name: r.name },
        { preconditions: { uid: r.uid }, propagationPolicy: 'Background' },
      );
      const obj = res as KubeObject | undefined;
      const lingering =
        obj?.kind !== 'Status' &&
        obj?.metadata?.deletionTimestamp !== undefined &&
        (obj.metadata.finalizers ?? []).length > 0;
      if (lingering) {
        waitingFor = resourceKey(r);
        break;
      }
      deps.watches.noteDeleted(idOf(r), r.uid);
      deps.log.info({ resource: resourceKey(r) }, 'deleted');
      remaining.pop();
    } catch (e) {
      if (isGoneError(e)) {
        remaining.pop(); // gone, or a different object now has the name
        continue;
      }
      error = `delete ${resourceKey(r)}: ${errorMessage(e)}`;
      break;
    }
  }

  let contributions = status.contributions;
  if (!error && !waitingFor) {
    const released = await releaseContributions(writer, deps.watches, status.contributions);
    contributions = released.kept;
    if (released.errors.length > 0) error = released.errors.join('; ');
  }

  if (error || waitingFor) {
    const gen = graph.metadata.generation ?? 0;
    let conditions = status.conditions;
    if (error) {
      const now = deps.now;
      const accepted =
        status.conditions.find((c) => c.type === 'Accepted') ??
        condition([], 'Accepted', 'Unknown', 'Deleting', 'the graph is being deleted', gen, now);
      const converged = condition(
        status.conditions,
        'ResourcesConverged',
        'False',
        'DeleteFailed',
        error,
        gen,
        now,
      );
      conditions = [accepted, converged, readyCondition(status.conditions, accepted, converged, gen, now)];
    }
    await deps.writeStatus({ ...status, conditions, managedResources: remaining, contributions });
    if (error)
      return { kind: 'failed', reason: 'DeleteFailed', interest, error: new Error(`DeleteFailed: ${error}`) };
    return { kind: 'waiting', reason: `waiting for ${waitingFor} to be deleted`, interest };
  }

  await setFinalizer(deps.client, graph, false);
  deps.log.info({ graph: `${namespace}/${graph.metadata.name}` }, 'graph deleted');
  return { kind: 'deleted', reason: 'Deleted', interest };
}
