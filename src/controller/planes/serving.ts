/**
 * Serving one blueprint in one consumer cluster (design/planes.md §3.3.3): the serving-role and claim-type
 * checks, the CRD ownership check, the instance CRD applied and Established, and the instance informer
 * feeding the instance queue. Start and stop are idempotent per (blueprint, cluster): a second start at
 * the same spec hash is a no-op.
 */
import type { Logger } from 'pino';
import { Informer, isNotFound, type KubeObject, selfSubjectAccessReview } from '../../kube/index.ts';
import { waitForCrd } from '../core/crdReady.ts';
import { errorMessage } from '../core/errors.ts';
import { ANNOTATION_BLUEPRINT, REGISTRAR_MANAGER } from './kropApi.ts';
import type { Connection, PublishedBlueprint } from './published.ts';

export type ServeReason = 'Served' | 'ServingNotGranted' | 'ClaimTypeUnresolved' | 'CRDConflict';

export interface ServeEntryStatus {
  name: string;
  exportedAPI: string;
  specHash: string;
  served: boolean;
  reason: ServeReason;
  message: string;
}

export interface ServingLoop {
  bp: PublishedBlueprint;
  conn: Connection;
  informer: Informer;
  /** Set once the loop ended on its own (its instance API vanished from the cluster). */
  exited?: string;
}

/** The SelfSubjectAccessReviews the serving role must pass (design/planes.md §10.2). */
async function servingMissing(bp: PublishedBlueprint, conn: Connection): Promise<string[]> {
  const checks = [
    { verb: 'create', group: 'apiextensions.k8s.io', resource: 'customresourcedefinitions' },
    {
      verb: 'patch',
      group: 'apiextensions.k8s.io',
      resource: 'customresourcedefinitions',
      name: bp.exportName,
    },
    { verb: 'list', group: bp.group, resource: bp.plural },
    { verb: 'watch', group: bp.group, resource: bp.plural },
    { verb: 'patch', group: bp.group, resource: bp.plural },
    { verb: 'patch', group: bp.group, resource: bp.plural, subresource: 'status' },
  ];
  const results = await Promise.all(
    checks.map(async (c) => ({ c, r: await selfSubjectAccessReview(conn.client, c) })),
  );
  return results
    .filter((x) => !x.r.allowed)
    .map(
      (x) =>
        `${x.c.verb} ${x.c.resource}${x.c.subresource ? `/${x.c.subresource}` : ''}${x.c.name ? ` ${x.c.name}` : ''}`,
    );
}

export interface ServeDeps {
  log: Logger;
  crdWaitMs: number;
  onInstance: (bp: PublishedBlueprint, conn: Connection, obj: KubeObject) => void;
  /**
   * The loop ended on its own: its informer found the instance API gone (the consumer deleted the
   * CRD). The owner clears its registry entry if this is still the current generation, and the next
   * resync serves again (design/planes.md §14.2).
   */
  onExit: (loop: ServingLoop) => void;
}

/** Checks and prepares serving; returns the entry status and, when served, a started loop. */
export async function startServing(
  deps: ServeDeps,
  bp: PublishedBlueprint,
  conn: Connection,
  running: ServingLoop | undefined,
): Promise<{ status: ServeEntryStatus; loop?: ServingLoop }> {
  const entry = (served: boolean, reason: ServeReason, message: string): ServeEntryStatus => ({
    name: bp.name,
    exportedAPI: bp.exportName,
    specHash: bp.specHash,
    served,
    reason,
    message,
  });
  const missing = await servingMissing(bp, conn);
  if (missing.length > 0) {
    return {
      status: entry(
        false,
        'ServingNotGranted',
        `the serving role is not granted: missing ${missing.join(', ')}`,
      ),
    };
  }
  const unresolved: string[] = [];
  for (const c of bp.claims) {
    conn.client.discovery.invalidate(c.apiVersion);
    try {
      await conn.client.discovery.resolveKind(c.apiVersion, c.kind);
    } catch {
      unresolved.push(`${c.resource}${c.group ? `.${c.group}` : ''}`);
    }
  }
  if (unresolved.length > 0) {
    return {
      status: entry(false, 'ClaimTypeUnresolved', `the cluster does not serve ${unresolved.join(', ')}`),
    };
  }
  const existing = await conn.client.getOrUndefined({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    name: bp.exportName,
  });
  const owner = existing?.metadata.annotations?.[ANNOTATION_BLUEPRINT];
  if (existing && owner !== bp.name) {
    return {
      status: entry(
        false,
        'CRDConflict',
        `CRD ${bp.exportName} exists and is not owned by blueprint ${bp.name}${owner ? ` (owner: ${owner})` : ''}`,
      ),
    };
  }
  if (running && !running.exited && running.bp.specHash === bp.specHash && running.conn === conn) {
    return { status: entry(true, 'Served', ''), loop: running };
  }
  await conn.client.apply(bp.crd, { fieldManager: REGISTRAR_MANAGER, force: true });
  await waitForCrd(conn.client, bp.exportName, deps.crdWaitMs);
  let loop: ServingLoop | undefined;
  const informer = new Informer(conn.client, {
    target: { apiVersion: `${bp.group}/${bp.version}`, plural: bp.plural },
    onError: (e) => {
      deps.log.debug(
        { err: errorMessage(e), cluster: conn.name, blueprint: bp.name },
        'instance watch error',
      );
      // A 404 on the instance resource: the API this loop serves is gone; the loop ends (not awaited:
      // we are inside the informer's own run loop) and the resync restarts serving.
      if (loop && !loop.exited && informer.hasSynced() && isNotFound(e)) {
        loop.exited = errorMessage(e);
        deps.log.warn({ cluster: conn.name, blueprint: bp.name, err: loop.exited }, 'serving loop ended');
        void informer.stop();
        deps.onExit(loop);
      }
    },
  });
  const enqueue = (o: KubeObject): void => deps.onInstance(bp, conn, o);
  informer.addHandlers({ add: enqueue, update: (_o, n) => enqueue(n), delete: enqueue });
  informer.start();
  await informer.waitForSync(30_000);
  deps.log.info({ cluster: conn.name, blueprint: bp.name, kind: bp.kind }, 'serving blueprint');
  loop = { bp, conn, informer };
  return { status: entry(true, 'Served', ''), loop };
}
