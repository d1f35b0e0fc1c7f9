/**
 * What one evaluation asks the reconciler to write: the template objects (stamped by the caller's
 * labelling rule — design/graph.md §23.1 for Graphs, design/graph.md §23.2 for RGD instances) and the patch payloads with the
 * contribution each one makes. Pure.
 */

import { asRecord } from '../../diag/record.ts';
import { identityOf, type ObjectIdentity } from '../../runtime/observed.ts';
import type { EvaluationResult, NodeResult } from '../../runtime/types.ts';
import { type Contribution, resourceKey } from './inventory.ts';
import { patchManager } from './names.ts';

export interface DesiredObject {
  node: NodeResult;
  obj: Record<string, unknown>;
  id: ObjectIdentity;
  key: string;
}

export interface DesiredPatch extends DesiredObject {
  contribution: Contribution;
}

/** Where a template object sits: its node, and its position in a collection. */
export interface TemplateItem {
  node: NodeResult;
  /** Collection items only. */
  collection?: { index: number; size: number };
}

/** Adds the labels and annotations of the caller's API to a rendered template object. */
export type Stamp = (obj: Record<string, unknown>, item: TemplateItem) => Record<string, unknown>;

function rendered(n: NodeResult): boolean {
  return (n.state === 'ready' || n.state === 'waiting') && n.objects.length > 0;
}

export function desiredTemplates(result: EvaluationResult, stamp: Stamp): DesiredObject[] {
  const out: DesiredObject[] = [];
  for (const n of result.nodes) {
    if (n.kind !== 'template' || !rendered(n)) continue;
    n.objects.forEach((o, i) => {
      const value = asRecord(o.value);
      if (!value) return;
      const obj = stamp(value, {
        node: n,
        ...(n.collection ? { collection: { index: o.index ?? i, size: n.objects.length } } : {}),
      });
      const id = identityOf(obj);
      if (!id) return;
      out.push({ node: n, obj, id, key: resourceKey(id) });
    });
  }
  return out;
}

/** Patch payloads; `ownerUid` names the per-node field managers (design/graph.md §13.2). */
export function desiredPatches(result: EvaluationResult, ownerUid: string): DesiredPatch[] {
  const out: DesiredPatch[] = [];
  for (const n of result.nodes) {
    if (n.kind !== 'patch' || !rendered(n)) continue;
    const fieldManager = patchManager(ownerUid, n.path);
    n.objects.forEach((o, i) => {
      const obj = asRecord(o.value);
      const id = obj ? identityOf(obj) : undefined;
      if (!obj || !id) return;
      if (n.items[i] && !n.items[i].observed) return; // target missing: the node waits
      const contribution: Contribution = {
        nodeID: n.path,
        apiVersion: id.apiVersion,
        kind: id.kind,
        name: id.name,
        subresource: (n.patchEndpoint ?? 'main') === 'status' ? 'status' : '',
        fieldManager,
      };
      if (id.namespace) contribution.namespace = id.namespace;
      out.push({ node: n, obj, id, key: resourceKey(id), contribution });
    });
  }
  return out;
}

export function idOf(r: {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
}): ObjectIdentity {
  return r.namespace
    ? { apiVersion: r.apiVersion, kind: r.kind, namespace: r.namespace, name: r.name }
    : { apiVersion: r.apiVersion, kind: r.kind, name: r.name };
}
