/**
 * The raw JSON shapes kgraph reads and writes. Deliberately loose: objects are
 * passed through untouched (no typed models, no serializer dropping unknown
 * fields), and only the metadata kgraph relies on is typed.
 */

import { isRecord } from '../diag/record.ts';

export interface ManagedFieldsEntry {
  manager?: string;
  operation?: 'Apply' | 'Update' | string;
  apiVersion?: string;
  time?: string;
  fieldsType?: string;
  fieldsV1?: Record<string, unknown>;
  subresource?: string;
}

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: Record<string, unknown>[];
  managedFields?: ManagedFieldsEntry[];
  [key: string]: unknown;
}

export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  [key: string]: unknown;
}

export interface ListMeta {
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
}

export interface KubeList<T extends KubeObject = KubeObject> {
  apiVersion: string;
  kind: string;
  metadata: ListMeta;
  items: T[];
}

/** What a delete returns: the object (when it lingers with finalizers or on Foreground) or a Status. */
export type DeleteResult = KubeObject;

/** Narrows a response body to a Kubernetes object, or throws. */
export function asKubeObject(v: unknown, what = 'response'): KubeObject {
  if (
    !isRecord(v) ||
    typeof v.apiVersion !== 'string' ||
    typeof v.kind !== 'string' ||
    !isRecord(v.metadata)
  ) {
    throw new Error(`${what} is not a Kubernetes object`);
  }
  return v as KubeObject;
}

export function asKubeList(v: unknown, what = 'response'): KubeList {
  // Empty PartialObjectMetadataLists come without `items`.
  if (!isRecord(v) || (v.items !== undefined && v.items !== null && !Array.isArray(v.items))) {
    throw new Error(`${what} is not a Kubernetes list`);
  }
  const metadata = isRecord(v.metadata) ? (v.metadata as ListMeta) : {};
  return {
    apiVersion: typeof v.apiVersion === 'string' ? v.apiVersion : '',
    kind: typeof v.kind === 'string' ? v.kind : '',
    metadata,
    items: Array.isArray(v.items) ? (v.items as KubeObject[]) : [],
  };
}
