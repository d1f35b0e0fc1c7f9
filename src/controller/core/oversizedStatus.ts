/**
 * Status writes that always leave something readable. The API server stores an object whole: etcd
 * refuses a request over 1.5 MiB (`etcdserver: request is too large`), the server a body over 3 MiB
 * (413), so a status that copies a large field (an instance projecting an 800,000-character value, a
 * Graph inventory of thousands of long names) can never be written — and retrying it changes nothing.
 * Before a status write the object as it would be stored (its spec and metadata with the new status) is
 * measured against a limit below etcd's; over it, or when the server refuses anyway, the status written
 * instead keeps what fits, drops the largest fields until the object fits, sets `state: ERROR` (when the
 * status has a state) and a `Ready=False` condition with reason `StatusTooLarge` naming the fields and
 * their sizes. The caller's pass then fails with a typed error (KG6091) and is retried with backoff.
 * Shared by the Graph, RGD-instance and planes-instance status writers (design/graph.md §21.3).
 */
import { KgraphError } from '../../diag/diagnostic.ts';
import { isApiError, type KubeObject } from '../../kube/index.ts';
import { type Condition, condition } from './conditions.ts';
import { jsonEqual } from './jsonEqual.ts';

/** etcd's default request limit (`--max-request-bytes`, 1.5 MiB). */
export const ETCD_REQUEST_LIMIT_BYTES = 1_572_864;
/**
 * The largest object (JSON) a status write aims for: etcd's limit minus headroom for what the
 * measurement cannot see — managedFields the cache dropped, the etcd key and transaction framing.
 */
export const STATUS_OBJECT_LIMIT_BYTES = ETCD_REQUEST_LIMIT_BYTES - 64 * 1024;

export const STATUS_TOO_LARGE_REASON = 'StatusTooLarge';

/** One status field that was left out, with its serialized size. */
export interface DroppedField {
  field: string;
  bytes: number;
}

/** Why the full status was not stored. */
export interface TooLargeStatus {
  /** The fields left out, largest first. */
  dropped: DroppedField[];
  /** The object as it would have been stored with the full status, in bytes of JSON. */
  objectBytes: number;
  limitBytes: number;
  /** The server's refusal, when the measurement thought it would fit. */
  refusal?: string;
}

/** A status that could not be stored whole: a smaller one says so on the object. */
export class StatusTooLargeError extends KgraphError {
  readonly tooLarge: TooLargeStatus;
  constructor(what: string, tooLarge: TooLargeStatus) {
    super('KG6091', `${what}: ${tooLargeMessage(tooLarge)}`);
    this.name = 'StatusTooLargeError';
    this.tooLarge = tooLarge;
  }
}

/** The condition message: which fields, how large, against which limit. */
export function tooLargeMessage(t: TooLargeStatus): string {
  const fields = t.dropped.map((d) => `status.${d.field} (${d.bytes} bytes)`).join(', ');
  const why = t.refusal
    ? `the API server refused the status (${t.refusal})`
    : `the object with its status would be ${t.objectBytes} bytes, over the ${t.limitBytes} the API server can store`;
  return `${why}; left out: ${fields || 'nothing (the object is too large without its status)'}`;
}

/** The server refused a write for its size: 413, or etcd's request limit passed through as a 500/422. */
export function isTooLargeError(e: unknown): boolean {
  if (!isApiError(e)) return false;
  if (e.code === 413) return true;
  return (
    (e.code >= 500 || e.code === 422) && /request is too large|entity too large|too large/i.test(e.message)
  );
}

function bytesOf(v: unknown): number {
  return Buffer.byteLength(JSON.stringify(v) ?? '', 'utf8');
}

/** The object as the server would store it with `status` (without managedFields' growth). */
export function storedBytes(object: KubeObject, status: Record<string, unknown>): number {
  return bytesOf({ ...object, status });
}

export interface BoundedStatusWrite {
  /** What the writer calls the object in errors, e.g. `Graph ns/name`. */
  what: string;
  /** The object as last read (spec and metadata count toward the stored size). */
  object: KubeObject;
  /** The full status to write. */
  status: Record<string, unknown>;
  /** Sends one status; resolves with the stored object. */
  write: (status: Record<string, unknown>) => Promise<KubeObject>;
  /**
   * The fields the smaller status starts from (default: the full status's). A Graph passes its stored
   * inventory: a record it cannot store must not replace the one it has.
   */
  keep?: Record<string, unknown>;
  generation: number;
  now: () => string;
  limitBytes?: number;
}

/**
 * Writes `status`, or — when the object with it would be too large, or the server says so — a smaller
 * one that says why, then throws StatusTooLargeError. Resolves with the stored object on success.
 */
export async function writeBoundedStatus(w: BoundedStatusWrite): Promise<KubeObject> {
  const limitBytes = w.limitBytes ?? STATUS_OBJECT_LIMIT_BYTES;
  const objectBytes = storedBytes(w.object, w.status);
  if (objectBytes > limitBytes)
    throw new StatusTooLargeError(w.what, await writeSmaller(w, { objectBytes, limitBytes }));
  try {
    return await w.write(w.status);
  } catch (e) {
    if (!isTooLargeError(e)) throw e;
    const refusal = e instanceof Error ? e.message.slice(0, 200) : String(e);
    // The measurement missed something (managedFields, a lower server limit): aim lower.
    const lower = Math.floor(objectBytes * 0.75);
    throw new StatusTooLargeError(w.what, await writeSmaller(w, { objectBytes, limitBytes: lower, refusal }));
  }
}

async function writeSmaller(
  w: BoundedStatusWrite,
  at: { objectBytes: number; limitBytes: number; refusal?: string },
): Promise<TooLargeStatus> {
  const { smaller, dropped } = shrink(w, at.limitBytes);
  const tooLarge: TooLargeStatus = {
    dropped,
    objectBytes: at.objectBytes,
    limitBytes: at.limitBytes,
    ...(at.refusal !== undefined ? { refusal: at.refusal } : {}),
  };
  const conditions = withTooLarge(w, tooLarge);
  const next: Record<string, unknown> = { ...smaller, conditions };
  if ('state' in w.status) next.state = 'ERROR';
  const current = (w.object.status ?? {}) as Record<string, unknown>;
  if (jsonEqual(current, next)) return tooLarge; // already says so
  try {
    await w.write(next);
  } catch (e) {
    if (!isTooLargeError(e)) throw e;
    // Even the smaller status does not fit (the spec alone is near the limit): conditions and state only.
    const bare: Record<string, unknown> = { conditions };
    if ('state' in w.status) bare.state = 'ERROR';
    if (!jsonEqual(current, bare)) await w.write(bare);
  }
  return tooLarge;
}

/** The starting fields minus the largest ones until the object fits; what was dropped. */
function shrink(
  w: BoundedStatusWrite,
  limitBytes: number,
): { smaller: Record<string, unknown>; dropped: DroppedField[] } {
  const base = { ...(w.keep ?? w.status) };
  delete base.conditions;
  delete base.state;
  const sizes = Object.entries(w.status)
    .filter(([k]) => k !== 'conditions' && k !== 'state')
    .map(([field, v]) => ({ field, bytes: bytesOf(v) }))
    .sort((a, b) => b.bytes - a.bytes);
  const dropped: DroppedField[] = [];
  // The fields of the full status that did not make it into the kept base count as left out.
  for (const s of sizes)
    if (!(s.field in base) || !jsonEqual(base[s.field], w.status[s.field])) dropped.push(s);
  const room = () =>
    storedBytes(w.object, { ...base, conditions: w.status.conditions, state: w.status.state });
  const keptSizes = Object.entries(base)
    .map(([field, v]) => ({ field, bytes: bytesOf(v) }))
    .sort((a, b) => b.bytes - a.bytes);
  for (const s of keptSizes) {
    if (room() <= limitBytes) break;
    delete base[s.field];
    if (!dropped.some((d) => d.field === s.field)) dropped.push(s);
  }
  dropped.sort((a, b) => b.bytes - a.bytes);
  // Named: the fields that made the status too large, not every field that merely changed.
  const named = dropped.length > 0 ? dropped.filter((d) => d.bytes >= dropped[0]!.bytes / 10) : [];
  return { smaller: base, dropped: named };
}

/** The full status's conditions with Ready=False/StatusTooLarge in place of Ready. */
function withTooLarge(w: BoundedStatusWrite, t: TooLargeStatus): Condition[] {
  const given = Array.isArray(w.status.conditions) ? (w.status.conditions as Condition[]) : [];
  const previous = Array.isArray((w.object.status as { conditions?: unknown } | undefined)?.conditions)
    ? ((w.object.status as { conditions: Condition[] }).conditions ?? [])
    : [];
  const ready = condition(
    previous,
    'Ready',
    'False',
    STATUS_TOO_LARGE_REASON,
    tooLargeMessage(t),
    w.generation,
    w.now,
  );
  const out = given.filter((c) => c.type !== 'Ready');
  out.push(ready);
  return out;
}
