/**
 * "No write when nothing changed": decides, without a request, whether applying
 * `desired` with field manager `manager` would change anything. It compares the desired object with
 * what that manager owns on the observed object — the manager's `fieldsV1` set in `managedFields` must
 * be exactly the desired object's field set, and every desired value must be what the server holds.
 * Values the server rewrites on the way in (quantities, Secret `stringData`, defaulted list keys, empty
 * containers) compare as stored (serverValues.ts). Anything else unsure (unknown list shapes, another
 * apiVersion) answers "apply"; applyMemory.ts then asks a dry run before writing. Pure.
 */

import { isRecord } from '../../diag/record.ts';
import { jsonEqual, scalarEqual } from './jsonEqual.ts';
import { isEmptyContainer, observedAsApplied, storedScalarEqual } from './serverValues.ts';

type Json = unknown;
type FieldsNode = Record<string, unknown>;

export interface ManagedFieldsLike {
  manager?: string;
  operation?: string;
  apiVersion?: string;
  subresource?: string;
  fieldsV1?: Record<string, unknown>;
}

/** The Apply entry of `manager` for the endpoint (`''` = main resource, `'status'`). */
export function managerEntry(
  observed: Record<string, unknown>,
  manager: string,
  subresource = '',
): ManagedFieldsLike | undefined {
  const meta = isRecord(observed.metadata) ? observed.metadata : {};
  const entries = Array.isArray(meta.managedFields) ? (meta.managedFields as ManagedFieldsLike[]) : [];
  return entries.find(
    (e) => e.manager === manager && e.operation === 'Apply' && (e.subresource ?? '') === subresource,
  );
}

/** The part of an apply payload that SSA tracks as fields (identity fields are not tracked). */
export function trackedContent(desired: Record<string, unknown>): Record<string, unknown> {
  const { apiVersion: _a, kind: _k, metadata, ...rest } = desired;
  if (isRecord(metadata)) {
    const { name: _n, namespace: _ns, ...m } = metadata;
    if (Object.keys(m).length > 0) return { metadata: m, ...rest };
  }
  return rest;
}

/**
 * True when applying `desired` as `manager` on the endpoint would be a no-op: the manager owns exactly
 * the desired fields and the observed values equal the desired ones.
 */
export function appliedFieldsAgree(
  desired: Record<string, unknown>,
  observed: Record<string, unknown> | undefined,
  manager: string,
  subresource = '',
): boolean {
  if (!observed) return false;
  const entry = managerEntry(observed, manager, subresource);
  if (!entry || !isRecord(entry.fieldsV1)) return false;
  if (entry.apiVersion !== undefined && entry.apiVersion !== desired.apiVersion) return false;
  return agreeMap(trackedContent(desired), entry.fieldsV1, observedAsApplied(desired, observed));
}

function childKeys(node: FieldsNode): string[] {
  return Object.keys(node).filter((k) => k !== '.');
}

function agreeMap(desired: Record<string, unknown>, fields: FieldsNode, observed: unknown): boolean {
  const keys = Object.keys(desired);
  const owned = childKeys(fields);
  if (owned.length !== keys.length) return false;
  const o = isRecord(observed) ? observed : undefined;
  for (const k of keys) {
    const child = fields[`f:${k}`];
    if (!isRecord(child)) return false;
    if (!agreeValue(desired[k], child, o?.[k])) return false;
  }
  return true;
}

function agreeValue(d: Json, fields: FieldsNode, o: Json): boolean {
  if (d === null || d === undefined) return false; // a null in an apply removes; let the server decide
  const sub = childKeys(fields);
  if (o === undefined && isEmptyContainer(d)) return sub.length === 0; // the server drops empty ones
  if (Array.isArray(d)) {
    if (sub.length === 0) return contains(o, d); // atomic list: owned as one leaf
    return agreeList(d, fields, o);
  }
  if (isRecord(d)) {
    if (sub.length === 0) {
      // An atomic map, or an empty desired map.
      return contains(o, d);
    }
    return agreeMap(d, fields, o);
  }
  return sub.length === 0 && storedScalarEqual(d, o);
}

/** Lists with keyed (`k:{…}`) or set (`v:…`) items. */
function agreeList(d: Json[], fields: FieldsNode, o: Json): boolean {
  const entries = childKeys(fields);
  if (entries.length !== d.length) return false;
  const observedItems = Array.isArray(o) ? o : [];
  const used = new Set<string>();
  for (const item of d) {
    // An exact key first; else a key whose fields missing from the item were defaulted by the server.
    const matched =
      entries.find((e) => !used.has(e) && entryMatches(e, item, false)) ??
      entries.find((e) => !used.has(e) && entryMatches(e, item, true));
    if (!matched) return false;
    used.add(matched);
    if (matched.startsWith('v:')) {
      if (!observedItems.some((x) => jsonEqual(x, item))) return false;
      continue;
    }
    const key = parseKey(matched.slice(2)) as Record<string, unknown>;
    const oItem = observedItems.find(
      (x) => isRecord(x) && Object.entries(key).every(([kk, kv]) => scalarEqual(x[kk], kv)),
    );
    const child = fields[matched];
    if (!isRecord(child) || !isRecord(item) || oItem === undefined) return false;
    if (!agreeMap(item, child, oItem)) return false;
  }
  return true;
}

/** Does a `v:`/`k:` fieldsV1 entry name this desired item (`defaulted`: key fields it lacks are ok)? */
function entryMatches(e: string, item: Json, defaulted: boolean): boolean {
  if (e.startsWith('v:')) return !defaulted && jsonEqual(parseKey(e.slice(2)), item);
  if (!e.startsWith('k:')) return false;
  const key = parseKey(e.slice(2));
  if (!isRecord(key) || !isRecord(item)) return false;
  const fields = Object.entries(key);
  const present = fields.filter(([kk]) => item[kk] !== undefined);
  if (present.length === 0) return false;
  if (!defaulted && present.length !== fields.length) return false;
  return present.every(([kk, kv]) => scalarEqual(item[kk], kv));
}

function parseKey(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return undefined;
  }
}

/** Observed holds desired: equal scalars, same-length lists item by item, maps with at least the desired keys (server defaults may add fields). */
export function contains(o: Json, d: Json): boolean {
  if (Array.isArray(d)) {
    return Array.isArray(o) && o.length === d.length && d.every((x, i) => contains(o[i], x));
  }
  if (isRecord(d)) {
    return isRecord(o) && Object.entries(d).every(([k, v]) => contains(o[k], v));
  }
  return storedScalarEqual(d, o);
}
