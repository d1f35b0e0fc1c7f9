/**
 * The inventory every controller keeps of what it wrote: managed resources (objects a template node
 * created) and contributions (fields a patch node applied to an object it does not own), with the keys
 * that identify them across passes (design/graph.md §21.1, §22.1). Pure.
 */

export interface ManagedResource {
  /** Dotted node path (`backend.deployment`). */
  nodeID: string;
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
  /** Absent on write-ahead intent entries (never deleted by name alone). */
  uid?: string;
}

export interface Contribution {
  /** Dotted path of the patch node (kgraph addition: lets a pending node keep its contribution). */
  nodeID?: string;
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
  /** `status` for the status subresource, `''` for the main resource. */
  subresource: string;
  fieldManager: string;
}

export function resourceKey(r: {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
}): string {
  return `${r.apiVersion}/${r.kind}/${r.namespace ?? ''}/${r.name}`;
}

export function contributionKey(c: Contribution): string {
  return `${resourceKey(c)}/${c.subresource}/${c.fieldManager}`;
}
