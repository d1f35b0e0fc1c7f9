/**
 * `kix.run/cede-fields` (design/sdk.md §B6.4): paths the author sets on create and then
 * hands to another owner (an autoscaler owning `spec.replicas`, a webhook
 * injector owning `caBundle`). Pure helpers over manifests and managedFields.
 */

import type { KubeObject, ManagedFieldsEntry } from '../kube/types.ts';
import { type CedeStep, parseCedePath } from '../sdk/index.ts';

type Obj = Record<string, unknown>;

export function cededPaths(m: KubeObject): CedeStep[][] {
  const raw = m.metadata.annotations?.['kix.run/cede-fields'];
  if (!raw) return [];
  const list = JSON.parse(raw) as unknown;
  if (!Array.isArray(list)) throw new Error('kix.run/cede-fields must be a JSON array of paths');
  return list.map((p) => parseCedePath(String(p)));
}

function matches(item: unknown, sel: CedeStep['selectors'][number], index: number): boolean {
  if ('all' in sel) return true;
  if ('index' in sel) return sel.index === index;
  return item !== null && typeof item === 'object' && String((item as Obj)[sel.key]) === sel.value;
}

/** Removes every ceded path from a deep copy of `m`; emptied parents stay (an empty map is still intent). */
export function stripCeded(m: KubeObject, paths: CedeStep[][]): KubeObject {
  const copy = structuredClone(m);
  for (const steps of paths) strip(copy, steps);
  return copy;
}

function strip(node: unknown, steps: readonly CedeStep[]): void {
  if (node === null || typeof node !== 'object' || steps.length === 0) return;
  const [step, ...rest] = steps as [CedeStep, ...CedeStep[]];
  const obj = node as Obj;
  if (!(step.field in obj)) return;
  if (step.selectors.length === 0) {
    if (rest.length === 0) delete obj[step.field];
    else strip(obj[step.field], rest);
    return;
  }
  let targets: unknown[] = [obj[step.field]];
  for (const sel of step.selectors) {
    const next: unknown[] = [];
    for (const t of targets) {
      if (!Array.isArray(t)) continue;
      t.forEach((item, i) => {
        if (matches(item, sel, i)) next.push(item);
      });
    }
    targets = next;
  }
  if (rest.length === 0) {
    // Ceding whole list items is not a field hand-over; keep them (documented limitation).
    return;
  }
  for (const t of targets) strip(t, rest);
}

/** The live value at a selector-free path, or undefined. */
export function valueAt(obj: unknown, steps: readonly CedeStep[]): unknown {
  let cur = obj;
  for (const s of steps) {
    if (s.selectors.length > 0 || cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Obj)[s.field];
  }
  return cur;
}

/** A minimal apply body holding only `value` at `steps` (selector-free paths only). */
export function payloadAt(base: KubeObject, steps: readonly CedeStep[], value: unknown): KubeObject {
  const body: KubeObject = {
    apiVersion: base.apiVersion,
    kind: base.kind,
    metadata: {
      name: base.metadata.name,
      ...(base.metadata.namespace ? { namespace: base.metadata.namespace } : {}),
    },
  };
  let cur: Obj = body;
  steps.forEach((s, i) => {
    if (i === steps.length - 1) cur[s.field] = value;
    else {
      cur[s.field] = (cur[s.field] as Obj | undefined) ?? {};
      cur = cur[s.field] as Obj;
    }
  });
  return body;
}

/** Whether a manager other than `except` owns the selector-free path, per managedFields. */
export function ownedByOthers(
  live: KubeObject,
  steps: readonly CedeStep[],
  except: readonly string[],
): boolean {
  if (steps.some((s) => s.selectors.length > 0)) return true; // cannot tell; never hand over blindly
  const entries: ManagedFieldsEntry[] = live.metadata.managedFields ?? [];
  return entries.some((e) => {
    if (!e.manager || except.includes(e.manager)) return false;
    let cur: unknown = e.fieldsV1;
    for (const s of steps) {
      if (cur === null || typeof cur !== 'object') return false;
      cur = (cur as Obj)[`f:${s.field}`];
    }
    return cur !== undefined;
  });
}
