/**
 * Labels and annotations of RGD instance children (design/graph.md §23.2) and of the instance itself
 * (design/graph.md §23.3). Children carry the instance's identity and the ApplySet membership, never the
 * `kro.run/resource-graph-definition-*` labels. Pure: returns new objects.
 */

import { isRecord } from '../../diag/record.ts';
import { LABEL_BUCKET } from '../core/bucket.ts';
import type { TemplateItem } from '../core/desired.ts';
import {
  ANNOTATION_APPLY_ORDER,
  ANNOTATION_NODE_ID,
  ANNOTATION_NODE_PATH,
  LABEL_COLLECTION_INDEX,
  LABEL_COLLECTION_SIZE,
  LABEL_NODE_ID,
  labelValue,
} from '../core/names.ts';
import {
  ANNOTATION_INSTANCE_GROUP,
  ANNOTATION_INSTANCE_NAME,
  KGRAPH_VERSION,
  LABEL_APPLYSET_ID,
  LABEL_APPLYSET_PART_OF,
  LABEL_INSTANCE_GROUP,
  LABEL_INSTANCE_ID,
  LABEL_INSTANCE_KIND,
  LABEL_INSTANCE_NAME,
  LABEL_INSTANCE_NAMESPACE,
  LABEL_INSTANCE_VERSION,
  LABEL_KRO_VERSION,
  LABEL_MANAGED_BY,
  LABEL_OWNED,
  LABEL_RGD_ID,
  LABEL_RGD_NAME,
} from './names.ts';

/** Who an instance is: what children are labelled with. */
export interface InstanceIdentity {
  uid: string;
  name: string;
  /** '' for cluster-scoped instances. */
  namespace: string;
  group: string;
  version: string;
  kind: string;
  applySetId: string;
  /** The instance's `kgraph.dev/bucket` label, copied onto every child (design/sharding.md §2). */
  bucket?: string;
}

function stringMap(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (isRecord(v)) for (const [k, x] of Object.entries(v)) if (typeof x === 'string') out[k] = x;
  return out;
}

export function stampChild(
  obj: Record<string, unknown>,
  item: TemplateItem,
  inst: InstanceIdentity,
): Record<string, unknown> {
  const meta = isRecord(obj.metadata) ? obj.metadata : {};
  const labels: Record<string, string> = { ...stringMap(meta.labels) };
  const annotations: Record<string, string> = { ...stringMap(meta.annotations) };
  const name = labelValue(inst.name);
  const group = labelValue(inst.group);
  const node = labelValue(item.node.path);
  labels[LABEL_OWNED] = 'true';
  labels[LABEL_KRO_VERSION] = KGRAPH_VERSION;
  labels[LABEL_INSTANCE_ID] = inst.uid;
  labels[LABEL_INSTANCE_NAME] = name.value;
  // A cluster-scoped instance has no namespace: its children carry no such label, as kro's carry none.
  if (inst.namespace !== '') labels[LABEL_INSTANCE_NAMESPACE] = inst.namespace;
  else delete labels[LABEL_INSTANCE_NAMESPACE];
  labels[LABEL_INSTANCE_GROUP] = group.value;
  labels[LABEL_INSTANCE_VERSION] = inst.version;
  labels[LABEL_INSTANCE_KIND] = inst.kind;
  labels[LABEL_MANAGED_BY] = 'kro';
  labels[LABEL_NODE_ID] = node.value;
  labels[LABEL_APPLYSET_PART_OF] = inst.applySetId;
  if (inst.bucket !== undefined) labels[LABEL_BUCKET] = inst.bucket;
  if (item.collection) {
    labels[LABEL_COLLECTION_INDEX] = String(item.collection.index);
    labels[LABEL_COLLECTION_SIZE] = String(item.collection.size);
  }
  annotations[ANNOTATION_NODE_PATH] = item.node.path.split('.').join('/');
  annotations[ANNOTATION_APPLY_ORDER] = String(item.node.applyLayer);
  if (name.hashed) annotations[ANNOTATION_INSTANCE_NAME] = inst.name;
  if (group.hashed) annotations[ANNOTATION_INSTANCE_GROUP] = inst.group;
  if (node.hashed) annotations[ANNOTATION_NODE_ID] = item.node.path;
  return { ...obj, metadata: { ...meta, labels, annotations } };
}

/** The labels kgraph sets on an instance (design/graph.md §23.3); the ApplySet annotations are in applyset.ts. */
export function instanceLabels(
  inst: InstanceIdentity,
  rgd: { uid: string; name: string },
): Record<string, string> {
  return {
    [LABEL_OWNED]: 'true',
    [LABEL_KRO_VERSION]: KGRAPH_VERSION,
    [LABEL_RGD_ID]: rgd.uid,
    [LABEL_RGD_NAME]: labelValue(rgd.name).value,
    [LABEL_APPLYSET_ID]: inst.applySetId,
  };
}
