/**
 * The field-level answer of `kgraph fleet diff` for one object (design/rgd.md §19.9): which fields an
 * apply of the new desired object sets to another value than the cluster holds, and which fields the old
 * desired object wrote that the new one no longer does (server-side apply removes those). Only the fields
 * the desired objects name are compared, so what the server defaults or other managers own is no change.
 * Values compare as stored (quantities, numbers as BigInt). Pure.
 */
import { contains } from '../controller/core/applyNeeded.ts';
import { storedScalarEqual } from '../controller/core/serverValues.ts';
import { isRecord } from '../diag/record.ts';

export interface FieldChange {
  /** `spec.template.spec.containers[name=web].image`, `data.key`, `metadata.labels.tier`. */
  path: string;
  /** `set`: the new desired value differs (or is new); `remove`: the old spec wrote it, the new one does not. */
  op: 'set' | 'remove';
  /** What the cluster holds now (absent: nothing). */
  from?: unknown;
  /** What the new spec writes (absent for `remove`). */
  to?: unknown;
}

/** Identity fields are addresses, not content: never reported. */
const SKIPPED_TOP = new Set(['apiVersion', 'kind']);
const SKIPPED_META = new Set(['name', 'namespace']);

/**
 * The changes applying `next` would make to `live`; `prev` (the old spec's render, if any) tells which
 * fields the new spec stops writing.
 */
export function fieldChanges(live: unknown, prev: unknown, next: unknown): FieldChange[] {
  const out: FieldChange[] = [];
  const liveRec = isRecord(live) ? live : {};
  const nextRec = isRecord(next) ? next : {};
  const prevRec = isRecord(prev) ? prev : {};
  for (const key of Object.keys(nextRec)) {
    if (SKIPPED_TOP.has(key)) continue;
    if (key === 'metadata') {
      diffMeta(liveRec.metadata, prevRec.metadata, nextRec.metadata, out);
      continue;
    }
    diffValue(key, liveRec[key], prevRec[key], nextRec[key], out);
  }
  for (const key of Object.keys(prevRec)) {
    if (SKIPPED_TOP.has(key) || key in nextRec) continue;
    removed(key, liveRec[key], prevRec[key], out);
  }
  return out;
}

function diffMeta(live: unknown, prev: unknown, next: unknown, out: FieldChange[]): void {
  const l = isRecord(live) ? live : {};
  const p = isRecord(prev) ? prev : {};
  const n = isRecord(next) ? next : {};
  for (const key of Object.keys(n)) {
    if (SKIPPED_META.has(key)) continue;
    diffValue(`metadata.${key}`, l[key], p[key], n[key], out);
  }
  for (const key of Object.keys(p)) {
    if (SKIPPED_META.has(key) || key in n) continue;
    removed(`metadata.${key}`, l[key], p[key], out);
  }
}

/** A field the old render wrote and the new one drops: removed from the cluster if it is still there. */
function removed(path: string, live: unknown, prev: unknown, out: FieldChange[]): void {
  if (live === undefined) return;
  if (isRecord(prev) && isRecord(live)) {
    for (const k of Object.keys(prev)) removed(join(path, k), live[k], prev[k], out);
    return;
  }
  out.push({ path, op: 'remove', from: live });
}

function diffValue(path: string, live: unknown, prev: unknown, next: unknown, out: FieldChange[]): void {
  if (next === null || next === undefined) return;
  if (isRecord(next)) {
    if (!isRecord(live)) {
      if (Object.keys(next).length === 0) return; // the server stores no empty map
      out.push(
        live === undefined ? { path, op: 'set', to: next } : { path, op: 'set', from: live, to: next },
      );
      return;
    }
    const p = isRecord(prev) ? prev : {};
    for (const k of Object.keys(next)) diffValue(join(path, k), live[k], p[k], next[k], out);
    for (const k of Object.keys(p)) if (!(k in next)) removed(join(path, k), live[k], p[k], out);
    return;
  }
  if (Array.isArray(next)) {
    diffList(path, live, prev, next, out);
    return;
  }
  if (!storedScalarEqual(next, live)) {
    out.push(live === undefined ? { path, op: 'set', to: next } : { path, op: 'set', from: live, to: next });
  }
}

/**
 * Lists of named items (containers, ports with names, env) compare item by item under `[name=…]`; other
 * lists compare whole (`contains`: the server may default fields inside the items).
 */
function diffList(path: string, live: unknown, prev: unknown, next: unknown[], out: FieldChange[]): void {
  if (next.length === 0 && live === undefined) return;
  const liveList = Array.isArray(live) ? live : undefined;
  const named = next.length > 0 && next.every((x) => isRecord(x) && typeof x.name === 'string');
  const liveNamed = liveList?.every((x) => isRecord(x) && typeof x.name === 'string') ?? false;
  if (!named || !liveList || !liveNamed) {
    if (!contains(live, next)) {
      out.push(
        live === undefined ? { path, op: 'set', to: next } : { path, op: 'set', from: live, to: next },
      );
    }
    return;
  }
  const byName = (xs: unknown[]) => new Map(xs.map((x) => [(x as { name: string }).name, x] as const));
  const liveItems = byName(liveList);
  const prevItems = byName(Array.isArray(prev) ? prev : []);
  const order = (xs: unknown[]) => xs.map((x) => (x as { name: string }).name).join('\0');
  for (const item of next) {
    const name = (item as { name: string }).name;
    diffValue(`${path}[name=${name}]`, liveItems.get(name), prevItems.get(name), item, out);
  }
  const nextNames = new Set(next.map((x) => (x as { name: string }).name));
  for (const [name, item] of liveItems) {
    // An item the old render wrote and the new one drops; items others added stay.
    if (!nextNames.has(name) && prevItems.has(name))
      out.push({ path: `${path}[name=${name}]`, op: 'remove', from: item });
  }
  const liveKept = liveList.filter((x) => nextNames.has((x as { name: string }).name));
  if (liveKept.length === next.length && order(liveKept) !== order(next)) {
    out.push({
      path,
      op: 'set',
      from: liveKept.map((x) => (x as { name: string }).name),
      to: [...nextNames],
    });
  }
}

function join(path: string, key: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? `${path}.${key}` : `${path}["${key}"]`;
}
