/**
 * Labels and annotations stamped on every resource a Graph's template nodes create
 * (design/graph.md §23.1). Pure: returns a new object.
 */

import { isRecord } from '../../diag/record.ts';
import { LABEL_BUCKET } from '../core/bucket.ts';
import {
  ANNOTATION_APPLY_ORDER,
  ANNOTATION_NODE_PATH,
  LABEL_COLLECTION_INDEX,
  LABEL_COLLECTION_SIZE,
  LABEL_INSTANCE_ID,
  LABEL_NODE_ID,
  labelValue,
} from '../core/names.ts';

export interface StampInfo {
  /** Dotted node path (`backend.deployment`). */
  nodePath: string;
  applyLayer: number;
  graphUid: string;
  /** For collection items. */
  collection?: { index: number; size: number };
  /** The Graph's `kgraph.dev/bucket` label, copied onto every child (design/sharding.md §2). */
  bucket?: string;
}

function stringMap(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (isRecord(v)) for (const [k, x] of Object.entries(v)) if (typeof x === 'string') out[k] = x;
  return out;
}

export function stampTemplate(obj: Record<string, unknown>, info: StampInfo): Record<string, unknown> {
  const meta = isRecord(obj.metadata) ? obj.metadata : {};
  const labels: Record<string, string> = { ...stringMap(meta.labels) };
  const annotations: Record<string, string> = { ...stringMap(meta.annotations) };
  labels[LABEL_NODE_ID] = labelValue(info.nodePath).value;
  if (info.bucket !== undefined) labels[LABEL_BUCKET] = info.bucket;
  if (info.collection) {
    labels[LABEL_COLLECTION_INDEX] = String(info.collection.index);
    labels[LABEL_COLLECTION_SIZE] = String(info.collection.size);
    labels[LABEL_INSTANCE_ID] = info.graphUid;
  }
  annotations[ANNOTATION_NODE_PATH] = info.nodePath.split('.').join('/');
  annotations[ANNOTATION_APPLY_ORDER] = String(info.applyLayer);
  return { ...obj, metadata: { ...meta, labels, annotations } };
}
