/**
 * The ApplySet inventory of an instance (KEP-3659, design/graph.md §22.2): the GroupKinds and the
 * namespaces other than the instance's own that its children live in, recorded on the instance as
 * annotations. Each pass writes the union of the recorded and the desired sets before applying, and
 * shrinks it to the desired set once pruning succeeded. Pure.
 */
import { createHash } from 'node:crypto';
import {
  ANNOTATION_APPLYSET_GKS,
  ANNOTATION_APPLYSET_HASH,
  ANNOTATION_APPLYSET_NAMESPACES,
  ANNOTATION_APPLYSET_TOOLING,
  APPLYSET_TOOLING,
} from './names.ts';

export interface Inventory {
  /** `Kind` (core group) or `Kind.group`, sorted. */
  groupKinds: string[];
  /** Namespaces other than the parent's, sorted. */
  namespaces: string[];
}

export function groupKindOf(apiVersion: string, kind: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? kind : `${kind}.${apiVersion.slice(0, slash)}`;
}

/** Splits `Kind.group` (the group may contain dots; the kind never does). */
export function parseGroupKind(gk: string): { group: string; kind: string } {
  const dot = gk.indexOf('.');
  return dot < 0 ? { group: '', kind: gk } : { group: gk.slice(dot + 1), kind: gk.slice(0, dot) };
}

function sortedSet(xs: Iterable<string>): string[] {
  return [...new Set([...xs].filter((x) => x !== ''))].sort();
}

function list(annotation: string | undefined): string[] {
  return sortedSet((annotation ?? '').split(',').map((x) => x.trim()));
}

export function readInventory(annotations: Record<string, string> | undefined): Inventory {
  return {
    groupKinds: list(annotations?.[ANNOTATION_APPLYSET_GKS]),
    namespaces: list(annotations?.[ANNOTATION_APPLYSET_NAMESPACES]),
  };
}

/** The inventory of a set of objects, relative to the parent's namespace. */
export function inventoryOf(
  objects: readonly { apiVersion: string; kind: string; namespace?: string }[],
  parentNamespace: string,
): Inventory {
  return {
    groupKinds: sortedSet(objects.map((o) => groupKindOf(o.apiVersion, o.kind))),
    namespaces: sortedSet(objects.map((o) => o.namespace ?? '').filter((ns) => ns !== parentNamespace)),
  };
}

export function unionInventory(a: Inventory, b: Inventory): Inventory {
  return {
    groupKinds: sortedSet([...a.groupKinds, ...b.groupKinds]),
    namespaces: sortedSet([...a.namespaces, ...b.namespaces]),
  };
}

/** The parent annotations for an inventory. */
export function inventoryAnnotations(id: string, inv: Inventory): Record<string, string> {
  const hash = createHash('sha256')
    .update(JSON.stringify([id, inv.groupKinds, inv.namespaces]))
    .digest('hex')
    .slice(0, 32);
  return {
    [ANNOTATION_APPLYSET_TOOLING]: APPLYSET_TOOLING,
    [ANNOTATION_APPLYSET_GKS]: inv.groupKinds.join(','),
    [ANNOTATION_APPLYSET_NAMESPACES]: inv.namespaces.join(','),
    [ANNOTATION_APPLYSET_HASH]: `sha256:${hash}`,
  };
}
