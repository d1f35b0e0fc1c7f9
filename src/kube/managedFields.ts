/**
 * "Would this server-side apply change anything?" — answered locally from the
 * observed object's managedFields, so a steady-state reconcile sends no write.
 *
 * An apply by manager M is a no-op when the set of fields in the desired object
 * equals the set M owns on the observed object (an apply drops M's fields it no
 * longer mentions) and every one of those fields already has the desired value.
 * Fields owned by other managers are ignored. Field sets are read from
 * `managedFields[].fieldsV1` (`f:<name>` fields, `k:<json>` keyed list items,
 * `v:<json>` set items, `.` the node itself).
 *
 * Conservative by design: whenever unsure (a value the server normalises, e.g.
 * quantities `1000m` → `1`, or an unknown fieldsV1 form) it answers "changed",
 * which costs one apply, never a missed update.
 */

import { isRecord } from '../diag/record.ts';
import type { KubeObject } from './types.ts';

export type FieldsV1 = Record<string, unknown>;

/** The union of the fieldsV1 sets that `manager` owns through Apply on the given subresource ('' = main resource). */
export function ownedFields(obj: KubeObject, manager: string, subresource = ''): FieldsV1 | undefined {
  let out: FieldsV1 | undefined;
  for (const e of obj.metadata.managedFields ?? []) {
    if (e.manager !== manager || e.operation !== 'Apply' || (e.subresource ?? '') !== subresource) continue;
    if (!isRecord(e.fieldsV1)) continue;
    out = out ? mergeSets(out, e.fieldsV1) : e.fieldsV1;
  }
  return out;
}

function mergeSets(a: FieldsV1, b: FieldsV1): FieldsV1 {
  const out: FieldsV1 = { ...a };
  for (const [k, v] of Object.entries(b)) {
    const prev = out[k];
    out[k] = isRecord(prev) && isRecord(v) ? mergeSets(prev, v) : v;
  }
  return out;
}

export interface ApplyDiff {
  changed: boolean;
  /** Where the first difference is (for logs), e.g. `.spec.replicas` or `.spec.containers[name=app].image`. */
  path?: string;
  reason?: string;
}

export interface ApplyDiffOptions {
  /** `status` when comparing a status apply (only `.status` is compared). */
  subresource?: string;
}

/**
 * Compares a desired apply configuration with what `manager` owns on `observed`.
 * `observed` undefined (not found) is always a change.
 */
export function applyWouldChange(
  desired: KubeObject,
  observed: KubeObject | undefined,
  manager: string,
  opts: ApplyDiffOptions = {},
): ApplyDiff {
  if (!observed) return { changed: true, path: '', reason: 'object not found' };
  const owned = ownedFields(observed, manager, opts.subresource ?? '');
  if (!owned) return { changed: true, path: '', reason: `${manager} owns no fields` };
  // Identity is not part of the field set.
  const d = stripIdentity(desired, opts.subresource === 'status');
  const o = observed as Record<string, unknown>;
  const ownedTop = opts.subresource === 'status' ? pick(owned, ['f:status']) : withoutKey(owned, 'f:status');
  return compare(d, o, ownedTop, '');
}

function stripIdentity(desired: KubeObject, statusOnly: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(desired)) {
    if (k === 'apiVersion' || k === 'kind') continue;
    if (statusOnly ? k !== 'status' : k === 'status') continue;
    if (k === 'metadata' && isRecord(v)) {
      const meta: Record<string, unknown> = {};
      for (const [mk, mv] of Object.entries(v)) {
        if (mk === 'name' || mk === 'namespace' || mk === 'generateName') continue;
        if (mk === 'resourceVersion' || mk === 'uid' || mk === 'managedFields') continue;
        meta[mk] = mv;
      }
      if (Object.keys(meta).length > 0) out.metadata = meta;
      continue;
    }
    out[k] = v;
  }
  return out;
}

function pick(set: FieldsV1, keys: string[]): FieldsV1 {
  const out: FieldsV1 = {};
  for (const k of keys) if (k in set) out[k] = set[k];
  return out;
}
function withoutKey(set: FieldsV1, key: string): FieldsV1 {
  const out: FieldsV1 = { ...set };
  delete out[key];
  return out;
}

function children(node: FieldsV1): string[] {
  return Object.keys(node).filter((k) => k !== '.');
}

const same: ApplyDiff = { changed: false };
function diff(path: string, reason: string): ApplyDiff {
  return { changed: true, path, reason };
}

function compare(desired: unknown, observed: unknown, node: FieldsV1, path: string): ApplyDiff {
  const kids = children(node);
  if (kids.length === 0) {
    // A leaf (or atomic value): the whole value is ours.
    return jsonEqual(desired, observed) ? same : diff(path, 'value differs');
  }
  if (isRecord(desired)) {
    if (!isRecord(observed)) return diff(path, 'observed is not an object');
    const want = Object.keys(desired).filter((k) => desired[k] !== null);
    const fieldKids = kids.filter((k) => k.startsWith('f:'));
    if (fieldKids.length !== kids.length) return diff(path, 'unexpected field set form');
    const ownedNames = new Set(fieldKids.map((k) => k.slice(2)));
    for (const k of want) {
      if (!ownedNames.has(k)) return diff(`${path}.${k}`, 'field not owned yet');
    }
    for (const k of ownedNames) {
      if (!want.includes(k)) return diff(`${path}.${k}`, 'owned field no longer desired');
      const sub = node[`f:${k}`];
      const r = compare(desired[k], observed[k], isRecord(sub) ? sub : {}, `${path}.${k}`);
      if (r.changed) return r;
    }
    return same;
  }
  if (Array.isArray(desired)) {
    if (!Array.isArray(observed)) return diff(path, 'observed is not a list');
    if (kids.every((k) => k.startsWith('k:'))) return compareKeyedList(desired, observed, node, kids, path);
    if (kids.every((k) => k.startsWith('v:'))) {
      const ownedValues = kids.map((k) => parseJson(k.slice(2)));
      if (ownedValues.length !== desired.length) return diff(path, 'set items differ');
      for (const v of desired) {
        if (!ownedValues.some((o) => jsonEqual(o, v))) return diff(path, 'set item not owned yet');
        if (!observed.some((o) => jsonEqual(o, v))) return diff(path, 'set item missing');
      }
      return same;
    }
    return diff(path, 'unexpected list field set form');
  }
  return diff(path, 'desired scalar where a structure is owned');
}

function compareKeyedList(
  desired: unknown[],
  observed: unknown[],
  node: FieldsV1,
  kids: string[],
  path: string,
): ApplyDiff {
  const keys = kids.map((k) => ({ raw: k, key: parseJson(k.slice(2)) }));
  if (keys.some((k) => !isRecord(k.key))) return diff(path, 'unreadable list key');
  if (keys.length !== desired.length) return diff(path, 'list items differ');
  // A key field the desired item leaves out was defaulted by the server (e.g. a port's protocol).
  const matches = (item: unknown, key: Record<string, unknown>): boolean =>
    isRecord(item) && Object.entries(key).every(([f, v]) => item[f] === undefined || jsonEqual(item[f], v));
  for (const [i, item] of desired.entries()) {
    const k = keys.find((x) => matches(item, x.key as Record<string, unknown>));
    const label = `${path}[${i}]`;
    if (!k) return diff(label, 'list item not owned yet');
    const obs = observed.find((o) => matches(o, k.key as Record<string, unknown>));
    if (obs === undefined) return diff(label, 'list item missing');
    const sub = node[k.raw];
    const r = compare(item, obs, isRecord(sub) ? sub : {}, label);
    if (r.changed) return r;
  }
  return same;
}

function parseJson(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return undefined;
  }
}

/** Deep equality of JSON values (object key order ignored). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  }
  if (isRecord(a)) {
    if (!isRecord(b)) return false;
    const ka = Object.keys(a).filter((k) => a[k] !== undefined);
    const kb = Object.keys(b).filter((k) => b[k] !== undefined);
    return ka.length === kb.length && ka.every((k) => k in b && jsonEqual(a[k], b[k]));
  }
  return false;
}
