/**
 * Liveness records (design/planes.md §12.2, §13.3): one ConfigMap per (consumer cluster, instance) in the
 * controller namespace of the management cluster, refreshed on every non-deleting pass (errors
 * included, design/planes.md §18.2), holding the ever-applied GVK union per plane (design/planes.md §18.4) the prune, the finalizer and
 * the sweeper list from.
 */
import type { KubeObject, RestClient } from '../../kube/index.ts';
import { type ChainContext, gcLabels } from './chain.ts';
import { CHILD_MANAGER, LABEL_LIVENESS } from './kropApi.ts';
import { livenessRecordName } from './naming.ts';

export interface LivenessRecord {
  name: string;
  lastReconciled?: string;
  instanceUID?: string;
  clusterID?: string;
  exportName?: string;
  instanceNamespace: string;
  instanceName: string;
  /** `group/version/Kind` (core: `/v1/ConfigMap`). */
  provider: string[];
  host: string[];
  /** `group/version/Kind@namespace`, no suffix for cluster-scoped kinds. */
  consumer: string[];
}

/** `group/version/Kind` of an apiVersion and kind (core group written as `/v1/Kind`). */
export function gvkToken(apiVersion: string, kind: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? `/${apiVersion}/${kind}` : `${apiVersion}/${kind}`;
}

export function parseGvkToken(
  token: string,
): { apiVersion: string; kind: string; namespace?: string } | undefined {
  const [gvk, ns] = token.split('@');
  const parts = (gvk ?? '').split('/');
  if (parts.length !== 3) return undefined;
  const [group, version, kind] = parts as [string, string, string];
  if (!version || !kind) return undefined;
  return { apiVersion: group ? `${group}/${version}` : version, kind, ...(ns ? { namespace: ns } : {}) };
}

const split = (v: unknown): string[] =>
  typeof v === 'string' && v !== '' ? v.split(',').filter((x) => x !== '') : [];

export function parseRecord(cm: KubeObject): LivenessRecord {
  const data = (cm.data ?? {}) as Record<string, unknown>;
  const labels = cm.metadata.labels ?? {};
  const annotations = cm.metadata.annotations ?? {};
  const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
  const uid = str(labels['krop.opendefense.cloud/instance-uid']);
  const cluster = str(labels['krop.opendefense.cloud/consumer-cluster']);
  const exp =
    str(annotations['krop.opendefense.cloud/blueprint']) ?? str(labels['krop.opendefense.cloud/blueprint']);
  const last = str(data.lastReconciled);
  return {
    name: cm.metadata.name ?? '',
    ...(last ? { lastReconciled: last } : {}),
    ...(uid ? { instanceUID: uid } : {}),
    ...(cluster ? { clusterID: cluster } : {}),
    ...(exp ? { exportName: exp } : {}),
    instanceNamespace: str(data.instanceNamespace) ?? '',
    instanceName: str(data.instanceName) ?? '',
    provider: split(data.providerChildGVKs),
    host: split(data.hostChildGVKs),
    consumer: split(data.consumerChildGVKs),
  };
}

export function recordObject(
  namespace: string,
  ctx: ChainContext,
  gvks: { provider: string[]; host: string[]; consumer: string[] },
  now: string,
): KubeObject {
  const { labels, annotations } = gcLabels(ctx);
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: livenessRecordName(ctx.clusterID, ctx.instance.uid),
      namespace,
      labels: { ...labels, [LABEL_LIVENESS]: 'true' },
      ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
    },
    data: {
      lastReconciled: now,
      providerChildGVKs: [...gvks.provider].sort().join(','),
      hostChildGVKs: [...gvks.host].sort().join(','),
      consumerChildGVKs: [...gvks.consumer].sort().join(','),
      instanceNamespace: ctx.instance.namespace,
      instanceName: ctx.instance.name,
    },
  };
}

export async function readRecord(
  client: RestClient,
  namespace: string,
  ctx: ChainContext,
): Promise<LivenessRecord | undefined> {
  const cm = await client.getOrUndefined({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    namespace,
    name: livenessRecordName(ctx.clusterID, ctx.instance.uid),
  });
  return cm ? parseRecord(cm) : undefined;
}

export async function writeRecord(client: RestClient, record: KubeObject): Promise<void> {
  await client.apply(record, { fieldManager: CHILD_MANAGER, force: true });
}
