/**
 * Names every controller writes: field managers (design/graph.md §13.2), labels and annotations
 * (design/graph.md §23.1), the label hashing rule (design/graph.md §23.4) and the identities writes impersonate (design/graph.md §24). Pure.
 */
import { createHash } from 'node:crypto';

/** The manager the controller uses for its own writes (Graph status, the CRD). */
export const CONTROLLER_MANAGER = 'kgraph-controller';
/** Prefix shared by every Graph-owned manager: conflicts with one of these are never forced. */
export const GRAPH_MANAGER_PREFIX = 'kro-graphengine.';

export const LABEL_NODE_ID = 'kro.run/node-id';
export const LABEL_COLLECTION_INDEX = 'kro.run/collection-index';
export const LABEL_COLLECTION_SIZE = 'kro.run/collection-size';
export const LABEL_INSTANCE_ID = 'kro.run/instance-id';
export const ANNOTATION_NODE_PATH = 'internal.kro.run/node-path';
export const ANNOTATION_APPLY_ORDER = 'internal.kro.run/apply-order';
/** Where the full node id goes when the label had to be hashed. */
export const ANNOTATION_NODE_ID = 'internal.kro.run/node-id';

/** First 12 hex characters of SHA-256 (design/graph.md §13.2). */
export function digest12(input: string): string {
  return createHash('sha256').update(input).digest('hex').slice(0, 12);
}

/** `kro-graphengine.tmpl.<g>`: the one manager of a Graph's template nodes. */
export function templateManager(graphUid: string): string {
  return `${GRAPH_MANAGER_PREFIX}tmpl.${digest12(graphUid)}`;
}

/** `kro-graphengine.patch.<g>.<n>`: the manager of one patch node (its dotted path). */
export function patchManager(graphUid: string, nodePath: string): string {
  return `${GRAPH_MANAGER_PREFIX}patch.${digest12(graphUid)}.${digest12(nodePath)}`;
}

export function isGraphManager(manager: string): boolean {
  return manager.startsWith(GRAPH_MANAGER_PREFIX);
}

/** A label value, hashed to `h-<40 hex>` when longer than 63 characters (design/graph.md §23.4). */
export function labelValue(value: string): { value: string; hashed: boolean } {
  if (value.length <= 63) return { value, hashed: false };
  return { value: `h-${createHash('sha256').update(value).digest('hex').slice(0, 40)}`, hashed: true };
}

/** `system:serviceaccount:<ns>:<name>` (design/graph.md §24). */
export function serviceAccountUser(namespace: string, name: string): string {
  return `system:serviceaccount:${namespace}:${name}`;
}

/**
 * The identity a Graph writes as: only the ServiceAccount's user name. The API server adds the
 * ServiceAccount groups itself when no group is given, so the controller needs `impersonate` on
 * `serviceaccounts` and nothing on `groups` (least privilege, deploy/rbac).
 */
export function graphImpersonation(namespace: string, name: string): { user: string } {
  return { user: serviceAccountUser(namespace, name) };
}

/** Parses `system:serviceaccount:<ns>:<name>`. */
export function parseServiceAccountUser(user: string): { namespace: string; name: string } | undefined {
  const m = /^system:serviceaccount:([^:]+):([^:]+)$/.exec(user);
  return m ? { namespace: m[1] ?? '', name: m[2] ?? '' } : undefined;
}
