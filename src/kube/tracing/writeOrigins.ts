/**
 * Which traced pass last wrote an object, so that the pass of that object — a nested RGD instance,
 * a Graph stamped by another — joins the writer's trace instead of starting its own. Kept in memory
 * (no annotation: writing one per pass would break zero writes in steady state), bounded, and only
 * while tracing is on; a pass more than a minute after the write starts a trace of its own.
 */
const TTL_MS = 60_000;
const MAX = 10_000;

const origins = new Map<string, { traceparent: string; at: number }>();

/** `<apiVersion>/<kind>/<namespace>/<name>`, as controller/core/inventory.ts keys resources. */
export function objectKey(
  apiVersion: string,
  kind: string,
  namespace: string | undefined,
  name: string,
): string {
  return `${apiVersion}/${kind}/${namespace ?? ''}/${name}`;
}

export function noteWriteOrigin(key: string, traceparent: string): void {
  origins.delete(key);
  origins.set(key, { traceparent, at: Date.now() });
  while (origins.size > MAX) {
    const oldest = origins.keys().next().value;
    if (oldest === undefined) break;
    origins.delete(oldest);
  }
}

/** The `traceparent` of the pass that wrote `key` within the last minute (once: a later pass starts its own). */
export function takeWriteOrigin(key: string): string | undefined {
  const o = origins.get(key);
  if (!o) return undefined;
  origins.delete(key);
  return Date.now() - o.at <= TTL_MS ? o.traceparent : undefined;
}
