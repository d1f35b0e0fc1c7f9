/**
 * Deregistering a consumer cluster (design/planes.md §13.5) and reclaiming one gone instance (design/planes.md §13.4): delete
 * the provider and host children listed in the liveness records, then the records; where the cluster
 * is reachable, release kgraph's finalizer from its instances (consumer children are the consumer's).
 */
import type { Logger } from 'pino';
import { applyToExisting, type KubeObject, type RestClient } from '../../kube/index.ts';
import { errorMessage } from '../core/errors.ts';
import { selectorFor } from './chain.ts';
import { deleteChildren } from './children.ts';
import { CHILD_MANAGER, FINALIZER_INSTANCE, LABEL_CONSUMER_CLUSTER, LABEL_LIVENESS } from './kropApi.ts';
import { type LivenessRecord, parseRecord } from './liveness.ts';
import { safeLabelValue } from './naming.ts';
import type { Connection, PublishedBlueprint } from './published.ts';

export async function listRecords(
  provider: RestClient,
  namespace: string,
  clusterID?: string,
): Promise<{ obj: KubeObject; record: LivenessRecord }[]> {
  const sel = clusterID
    ? `${LABEL_LIVENESS}=true,${LABEL_CONSUMER_CLUSTER}=${safeLabelValue(clusterID)}`
    : `${LABEL_LIVENESS}=true`;
  const { items } = await provider.listAll(
    { apiVersion: 'v1', kind: 'ConfigMap', namespace },
    { labelSelector: sel },
  );
  return items.map((obj) => ({ obj, record: parseRecord(obj) }));
}

/** Deletes the provider and host children of one record, then the record; errors leave the record. */
export async function reclaimRecord(
  provider: RestClient,
  host: RestClient | undefined,
  namespace: string,
  record: LivenessRecord,
): Promise<string[]> {
  if (!record.instanceUID || !record.clusterID)
    return ['record without instance-uid or consumer-cluster label'];
  const selector = selectorFor(safeLabelValue(record.instanceUID), safeLabelValue(record.clusterID));
  const errors: string[] = [];
  errors.push(...(await deleteChildren(provider, record.provider, selector, undefined)).errors);
  if (host) errors.push(...(await deleteChildren(host, record.host, selector, undefined)).errors);
  if (errors.length > 0) return errors;
  try {
    await provider.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name: record.name });
  } catch (e) {
    errors.push(`delete record ${record.name}: ${errorMessage(e)}`);
  }
  return errors;
}

export interface CleanupInput {
  provider: RestClient;
  host: RestClient | undefined;
  namespace: string;
  clusterID: string;
  /** Set when the cluster is reachable and verified. */
  conn: Connection | undefined;
  blueprints: PublishedBlueprint[];
  log: Logger;
}

export async function cleanupCluster(input: CleanupInput): Promise<void> {
  if (input.clusterID) {
    for (const { record } of await listRecords(input.provider, input.namespace, input.clusterID)) {
      const errors = await reclaimRecord(input.provider, input.host, input.namespace, record);
      if (errors.length > 0) throw new Error(`clean up ${record.name}: ${errors.join('; ')}`);
    }
  }
  const conn = input.conn;
  if (!conn) return;
  for (const bp of input.blueprints) {
    let items: KubeObject[] = [];
    try {
      items = (await conn.client.listAll({ apiVersion: `${bp.group}/${bp.version}`, plural: bp.plural }))
        .items;
    } catch {
      continue; // not served there
    }
    for (const inst of items) {
      if (!(inst.metadata.finalizers ?? []).includes(FINALIZER_INSTANCE)) continue;
      try {
        await applyToExisting(
          conn.client,
          {
            apiVersion: `${bp.group}/${bp.version}`,
            kind: bp.kind,
            metadata: {
              name: inst.metadata.name,
              ...(inst.metadata.namespace ? { namespace: inst.metadata.namespace } : {}),
              finalizers: [],
            },
          } as KubeObject,
          inst.metadata.uid,
          { fieldManager: CHILD_MANAGER, force: true },
        );
      } catch (e) {
        input.log.warn(
          { err: errorMessage(e), instance: inst.metadata.name },
          'could not release the instance finalizer',
        );
      }
    }
  }
}
