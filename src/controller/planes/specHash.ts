/**
 * The blueprint spec hash (design/planes.md §2.5) and the routing split (design/planes.md §2.4). Pure.
 */
import { createHash } from 'node:crypto';
import type { Plane } from '../../graph/model.ts';
import { canonicalJson } from '../core/canonicalJson.ts';

export { canonicalJson };

/** design/planes.md §2.5: 12 hex of SHA-256 over the canonical JSON of the whole spec, `target` included. */
export function blueprintSpecHash(spec: unknown): string {
  return createHash('sha256').update(canonicalJson(spec)).digest('hex').slice(0, 12);
}

export interface RoutingSplit {
  /** id → non-consumer-default target (only non-empty targets enter the map). */
  routing: Map<string, string>;
  /** Resources whose target is not consumer/provider/host. */
  invalid: { id: string; target: string }[];
}

/** design/planes.md §2.4: the routing map of a blueprint spec; a missing id routes to consumer. */
export function splitRouting(spec: unknown): RoutingSplit {
  const routing = new Map<string, string>();
  const invalid: { id: string; target: string }[] = [];
  const resources = (spec as { resources?: unknown } | undefined)?.resources;
  for (const r of Array.isArray(resources) ? resources : []) {
    const id = typeof r?.id === 'string' ? r.id : '';
    const t = r?.target;
    if (t === undefined || t === null || t === '') continue;
    if (t === 'consumer' || t === 'provider' || t === 'host') routing.set(id, t);
    else invalid.push({ id, target: String(t) });
  }
  return { routing, invalid };
}

export function targetOf(routing: ReadonlyMap<string, string>, id: string): Plane {
  const t = routing.get(id);
  return t === 'provider' || t === 'host' ? t : 'consumer';
}
