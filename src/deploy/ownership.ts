/**
 * Which deploy owns an object (design/sdk.md §B6.7 "never delete objects outside
 * the inventory"). Every object the deployer applies carries the label
 * `kix.run/inventory: <name>` (for `kubectl get -l`) and the annotation
 * `kix.run/inventory: <namespace>/<name>` (the exact inventory, namespace included).
 * A prune or an apply over an object stamped by another inventory is refused, so two
 * deploy names can never delete or silently overwrite each other's objects.
 */
import { KgraphError } from '../diag/diagnostic.ts';
import type { KubeObject } from '../kube/types.ts';
import type { InventoryRef } from './inventory.ts';

export const INVENTORY_LABEL = 'kix.run/inventory';
export const INVENTORY_ANNOTATION = 'kix.run/inventory';

/**
 * A deploy name names the inventory ConfigMap (`kix-inventory-<name>`) and is a label
 * value, so it is a lowercase DNS label short enough for both.
 */
export function checkDeployName(name: string): string {
  if (!/^[a-z0-9]([-a-z0-9]{0,47}[a-z0-9])?$/.test(name)) {
    throw new KgraphError(
      'KG7104',
      `deploy name "${name}" must be a lowercase DNS label of at most 49 characters (letters, digits, "-")`,
    );
  }
  return name;
}

export function ownerValue(ref: InventoryRef): string {
  return `${ref.namespace}/${ref.deployName}`;
}

/** Stamps the ownership label and annotation on the intent (a copy is the caller's job). */
export function stampOwner(obj: KubeObject, ref: InventoryRef): KubeObject {
  obj.metadata.labels = { ...(obj.metadata.labels ?? {}), [INVENTORY_LABEL]: ref.deployName };
  obj.metadata.annotations = { ...(obj.metadata.annotations ?? {}), [INVENTORY_ANNOTATION]: ownerValue(ref) };
  return obj;
}

export type Owner =
  | { kind: 'ours' }
  /** Applied by another deploy name. */
  | { kind: 'other'; owner: string }
  /** Carries no ownership stamp: created by hand, by another tool, or by a deploy before stamps existed. */
  | { kind: 'unstamped' };

export function ownerOf(live: KubeObject, ref: InventoryRef): Owner {
  const owner = live.metadata.annotations?.[INVENTORY_ANNOTATION];
  if (owner === undefined) return { kind: 'unstamped' };
  return owner === ownerValue(ref) ? { kind: 'ours' } : { kind: 'other', owner };
}
