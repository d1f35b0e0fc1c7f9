/**
 * How the reconcile core reads API errors: which ones mean "the object (or its kind) is gone", which
 * mean "the target of a patch vanished", and the text put into conditions. Shared by the Graph and the
 * RGD-instance reconcilers.
 */
import type { Logger } from 'pino';
import type { Diagnostic } from '../../diag/diagnostic.ts';
import { kubectlNameIn } from '../../diag/objectName.ts';
import { type ApiError, isApiError } from '../../kube/index.ts';
import type { ObjectIdentity } from '../../runtime/observed.ts';
import { forbiddenMessageHint } from './rbacHint.ts';

/** 404, 409 on a UID precondition (another object has the name now), or a kind no longer served. */
export function isGoneError(e: unknown): boolean {
  if (isApiError(e)) return e.code === 404 || e.code === 409;
  return e instanceof Error && e.name === 'NoKindMatchError';
}

/** A patch or release target that disappeared (or was replaced) between the read and the write. */
export function isTargetVanished(e: unknown): boolean {
  if (!isApiError(e) || e.isApplyConflict) return false;
  return e.code === 404 || e.code === 409 || (e.code === 422 && /metadata\.uid/.test(e.message));
}

export function errorMessage(e: unknown): string {
  if (isApiError(e)) return `${e.code} ${e.reason}: ${e.message}`;
  return e instanceof Error ? e.message : String(e);
}

/**
 * An object in a condition message, kubectl-style (`configmap/cm -n ns`, as every command names one).
 * These messages are kgraph's own (kro's apply failures read `apply failed: …`); the UI finds the
 * parts about an object by this text (ui/nodeStates.ts).
 */
export function describeIdentity(id: ObjectIdentity): string {
  return kubectlNameIn(id);
}

export function conflictMessage(id: ObjectIdentity, e: ApiError): string {
  const fields = e.conflicts.map((c) => `${c.field} (owned by ${c.manager})`).join(', ');
  return `${describeIdentity(id)}: field conflict on ${fields}`;
}

export function applyError(id: ObjectIdentity, e: unknown): string {
  return `apply ${describeIdentity(id)}: ${errorMessage(e)}${forbiddenHint(e)}`;
}

/** For a 403 to a ServiceAccount: ` (what to grant, rbacHint.ts)`; '' otherwise. */
export function forbiddenHint(e: unknown): string {
  if (!isApiError(e) || e.code !== 403) return '';
  const hint = forbiddenMessageHint(e.message);
  return hint ? ` (${hint})` : '';
}

/**
 * A patch or release must never create its target: the apply body carries the observed UID, which the
 * API server checks (409 when no object exists, 422 when another object now has the name) and does not
 * record as a managed field.
 */
export function withUidPrecondition(
  obj: Record<string, unknown>,
  target: Record<string, unknown>,
): Record<string, unknown> {
  const uid = (target.metadata as { uid?: unknown } | undefined)?.uid;
  if (typeof uid !== 'string') return obj;
  return { ...obj, metadata: { ...(obj.metadata as Record<string, unknown>), uid } };
}

/**
 * The compiler's errors as one condition message: code, node, field path and, when known, the line and
 * column in the object as the compiler read it (capped at 2000 characters).
 */
export function diagnosticsMessage(ds: readonly Diagnostic[], fallback: string): string {
  const errors = ds.filter((d) => d.severity === 'error');
  const text = errors
    .map((d) => {
      const at = d.location?.line
        ? ` at ${d.location.file ?? ''}:${d.location.line}:${d.location.column ?? 1}`
        : '';
      return `${d.code}${d.node ? ` node ${d.node}` : ''}${d.path ? ` (${d.path})` : ''}${at}: ${d.message}`;
    })
    .join('; ');
  return text.length > 2000 ? `${text.slice(0, 1997)}...` : text || fallback;
}

/**
 * The work queue's failure callback every controller passes: one warning naming the key under
 * `field`, the error and when the queue retries.
 */
export function failedPassLogger(
  log: Pick<Logger, 'warn'>,
  field: string,
  message = `${field} reconcile failed`,
): (key: string, e: unknown, retryInMs: number) => void {
  return (key, e, retryInMs) => log.warn({ [field]: key, err: errorMessage(e), retryInMs }, message);
}
