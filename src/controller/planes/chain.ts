/**
 * The decorating part of the applier chains (design/planes.md §6.2): Labeling (the three GC labels, design/planes.md §9) on
 * every plane, Qualifying (design/planes.md §7.2) on the provider plane, OwnerRef on the consumer plane where Kubernetes
 * accepts it (design/planes.md §13.2). Every step works on a copy; the rendered object is never mutated. Pure.
 */

import { isRecord } from '../../diag/record.ts';
import type { CompiledNode } from '../../graph/model.ts';
import { LABEL_BLUEPRINT, LABEL_CONSUMER_CLUSTER, LABEL_INSTANCE_UID, LABEL_LIVENESS } from './kropApi.ts';
import { qualifiedName, safeLabelValue } from './naming.ts';

export interface InstanceRef {
  apiVersion: string;
  kind: string;
  name: string;
  /** '' when the instance kind is cluster-scoped. */
  namespace: string;
  uid: string;
}

export interface ChainContext {
  clusterID: string;
  exportName: string;
  instance: InstanceRef;
}

/** The GC labels of every child and liveness record; long values hashed, full value in an annotation. */
export function gcLabels(ctx: ChainContext): {
  labels: Record<string, string>;
  annotations: Record<string, string>;
} {
  const labels: Record<string, string> = {};
  const annotations: Record<string, string> = {};
  const put = (k: string, v: string): void => {
    const safe = safeLabelValue(v);
    labels[k] = safe;
    if (safe !== v) annotations[k] = v;
  };
  put(LABEL_INSTANCE_UID, ctx.instance.uid);
  put(LABEL_CONSUMER_CLUSTER, ctx.clusterID);
  put(LABEL_BLUEPRINT, ctx.exportName);
  return { labels, annotations };
}

/**
 * The label selector of one instance's children on any plane. The liveness record carries the same
 * labels (and is a ConfigMap in the management cluster), so it is excluded explicitly.
 */
export function childSelector(ctx: ChainContext): string {
  const { labels } = gcLabels(ctx);
  return selectorFor(labels[LABEL_INSTANCE_UID] ?? '', labels[LABEL_CONSUMER_CLUSTER] ?? '');
}

export function selectorFor(instanceUidLabel: string, clusterLabel: string): string {
  return `${LABEL_INSTANCE_UID}=${instanceUidLabel},${LABEL_CONSUMER_CLUSTER}=${clusterLabel},!${LABEL_LIVENESS}`;
}

/** Whether an owner reference from this child to the instance is valid (design/planes.md §13.2). */
export function ownerRefValid(ctx: ChainContext, childNamespace: string | undefined): boolean {
  if (ctx.instance.namespace === '') return true; // cluster-scoped owner: any child
  return childNamespace !== undefined && childNamespace !== '' && childNamespace === ctx.instance.namespace;
}

export function decorate(
  ctx: ChainContext,
  obj: Record<string, unknown>,
  node: Pick<CompiledNode, 'target' | 'resolved'>,
): Record<string, unknown> {
  const meta = isRecord(obj.metadata) ? { ...obj.metadata } : {};
  const { labels, annotations } = gcLabels(ctx);
  meta.labels = { ...(isRecord(meta.labels) ? meta.labels : {}), ...labels };
  if (Object.keys(annotations).length > 0)
    meta.annotations = { ...(isRecord(meta.annotations) ? meta.annotations : {}), ...annotations };
  const kind = typeof obj.kind === 'string' ? obj.kind : '';
  if (node.target === 'provider' && typeof meta.name === 'string') {
    meta.name = qualifiedName(ctx.clusterID, ctx.instance.namespace, ctx.instance.name, meta.name, kind);
  }
  if (node.target === 'consumer') {
    const ns = typeof meta.namespace === 'string' ? meta.namespace : undefined;
    const clusterScoped = node.resolved?.scope === 'Cluster';
    if (
      ownerRefValid(ctx, clusterScoped ? undefined : ns) &&
      !(clusterScoped && ctx.instance.namespace !== '')
    ) {
      meta.ownerReferences = [
        {
          apiVersion: ctx.instance.apiVersion,
          kind: ctx.instance.kind,
          name: ctx.instance.name,
          uid: ctx.instance.uid,
        },
      ];
    } else {
      delete meta.ownerReferences;
    }
  }
  return { ...obj, metadata: meta };
}
