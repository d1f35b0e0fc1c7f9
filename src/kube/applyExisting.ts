/**
 * Server-side apply to an object that must already exist — a parent's own metadata (labels,
 * finalizers, annotations), never its creation. A plain apply creates what it does not find, so an
 * apply made from a cache copy that outlived the object's deletion by a few milliseconds would bring
 * back an empty object of the same name. Sending the UID turns the apply into a precondition: the API
 * server answers 409 "uid mismatch" when no object holds the name (422 when a newer one does), and
 * writes nothing.
 * The UID is not a managed field (the field manager strips it), so ownership is unchanged.
 */
import { isApiError } from './errors.ts';
import type { ApplyOptions, RestClient } from './rest.ts';
import type { KubeObject } from './types.ts';

/** The applied object, or undefined when the object of that UID no longer exists. */
export async function applyToExisting(
  client: Pick<RestClient, 'apply'>,
  obj: KubeObject,
  uid: string | undefined,
  opts: ApplyOptions,
): Promise<KubeObject | undefined> {
  if (!uid) throw new Error(`internal: applyToExisting without a UID for ${obj.kind} ${obj.metadata.name}`);
  try {
    return await client.apply({ ...obj, metadata: { ...obj.metadata, uid } }, opts);
  } catch (e) {
    if (isApiError(e) && (e.code === 404 || isUidMismatch(e))) return undefined;
    throw e;
  }
}

/**
 * The UID the write was conditioned on is not the object's: 409 "uid mismatch" when the name is free,
 * 422 "metadata.uid … field is immutable" when a newer object holds it.
 */
export function isUidMismatch(e: unknown): boolean {
  if (!isApiError(e)) return false;
  if (e.code === 409) return /uid mismatch|precondition failed: uid/i.test(e.message);
  return e.code === 422 && /metadata\.uid\b.*immutable/i.test(e.message);
}
