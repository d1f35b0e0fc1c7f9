/**
 * Typed API errors. Every failed request becomes an `ApiError` built from the
 * server's `Status` object, so callers branch on `code`/`reason` instead of
 * parsing messages — and server-side-apply conflicts carry the conflicting
 * managers and fields, which the Graph reconciler needs to decide between
 * "another Graph owns this field" (report, never steal) and "reclaim with force".
 */

import { isRecord } from '../diag/record.ts';

/** One conflicting (manager, field) pair of a server-side-apply 409. */
export interface FieldConflict {
  /** The other field manager's name, e.g. `kubectl` or `kro-graphengine.tmpl.d2ba416cfd76`. */
  manager: string;
  /** The field path as the server prints it, e.g. `.data.key` or `.spec.containers[name="app"].image`. */
  field: string;
  /** Set when the other manager wrote through a subresource (e.g. `status`). */
  subresource?: string;
  /** For managers whose operation was Update (not Apply): the apiVersion they used. */
  apiVersion?: string;
  /** The raw cause message. */
  message: string;
}

export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

/** Reasons for failures that never reached the server or had no Status body. */
export type LocalReason = 'NetworkError' | 'Timeout' | 'Aborted' | 'BadResponse';

export class ApiError extends Error {
  /** HTTP status code; 0 when the request never got an answer (network, timeout, abort). */
  readonly code: number;
  /** The Status `reason` (`NotFound`, `Conflict`, `AlreadyExists`, `Forbidden`, `Gone`, `Invalid`, …) or a local reason. */
  readonly reason: string;
  readonly details: StatusDetails | undefined;
  /** Server-side-apply field conflicts (empty unless this is an SSA 409). */
  readonly conflicts: readonly FieldConflict[];
  /** Method and path of the failed request, for logs. */
  readonly request: string | undefined;

  constructor(init: {
    code: number;
    reason: string;
    message: string;
    details?: StatusDetails | undefined;
    request?: string | undefined;
  }) {
    super(init.message);
    this.name = 'ApiError';
    this.code = init.code;
    this.reason = init.reason;
    this.details = init.details;
    this.request = init.request;
    this.conflicts = parseConflicts(init.details);
  }

  /** Distinct conflicting manager names, in the order the server listed them. */
  get conflictingManagers(): string[] {
    return [...new Set(this.conflicts.map((c) => c.manager))];
  }

  /** True for an SSA apply conflict (409 with FieldManagerConflict causes). */
  get isApplyConflict(): boolean {
    return this.code === 409 && this.conflicts.length > 0;
  }
}

export function isApiError(e: unknown): e is ApiError {
  return e instanceof ApiError;
}
export function isNotFound(e: unknown): boolean {
  return isApiError(e) && e.code === 404;
}
export function isConflict(e: unknown): boolean {
  return isApiError(e) && e.code === 409;
}
export function isAlreadyExists(e: unknown): boolean {
  return isApiError(e) && e.code === 409 && e.reason === 'AlreadyExists';
}
export function isForbidden(e: unknown): boolean {
  return isApiError(e) && e.code === 403;
}
export function isGone(e: unknown): boolean {
  return isApiError(e) && (e.code === 410 || e.reason === 'Expired' || e.reason === 'Gone');
}
/**
 * A server-side apply the server could not even type-check against the schema
 * (e.g. `.spec.x: field not declared in schema`). The API server answers these
 * with 500 InternalError, but retrying cannot help: the request itself is wrong.
 */
export function isInvalidApply(e: unknown): boolean {
  return isApiError(e) && e.code === 500 && e.message.includes('failed to create typed patch object');
}
/** Errors worth retrying with backoff: no answer, throttling, server-side trouble (except invalid applies). */
export function isTransient(e: unknown): boolean {
  if (!isApiError(e)) return false;
  if (isInvalidApply(e)) return false;
  return e.code === 0 || e.code === 429 || e.code >= 500;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/** Narrows an unknown `details` value of a Status object. */
export function parseStatusDetails(v: unknown): StatusDetails | undefined {
  if (!isRecord(v)) return undefined;
  const details: StatusDetails = {};
  const name = str(v.name);
  if (name !== undefined) details.name = name;
  const group = str(v.group);
  if (group !== undefined) details.group = group;
  const kind = str(v.kind);
  if (kind !== undefined) details.kind = kind;
  const uid = str(v.uid);
  if (uid !== undefined) details.uid = uid;
  if (typeof v.retryAfterSeconds === 'number') details.retryAfterSeconds = v.retryAfterSeconds;
  if (Array.isArray(v.causes)) {
    details.causes = v.causes.filter(isRecord).map((c) => {
      const cause: StatusCause = {};
      const reason = str(c.reason);
      if (reason !== undefined) cause.reason = reason;
      const message = str(c.message);
      if (message !== undefined) cause.message = message;
      const field = str(c.field);
      if (field !== undefined) cause.field = field;
      return cause;
    });
  }
  return details;
}

/**
 * Builds the error for a non-2xx response. `body` is the parsed JSON body when
 * there was one (normally a `Status`), else the raw text.
 */
export function apiErrorFromResponse(httpCode: number, body: unknown, request?: string): ApiError {
  if (isRecord(body) && body.kind === 'Status') {
    const code = typeof body.code === 'number' && body.code > 0 ? body.code : httpCode;
    return new ApiError({
      code,
      reason: str(body.reason) || reasonForCode(code),
      message: str(body.message) || `HTTP ${code}`,
      details: parseStatusDetails(body.details),
      request,
    });
  }
  const text = typeof body === 'string' ? body.trim().slice(0, 500) : '';
  return new ApiError({
    code: httpCode,
    reason: reasonForCode(httpCode),
    message: text || `HTTP ${httpCode}`,
    request,
  });
}

/** An error from a watch `ERROR` event, whose object is a Status. */
export function apiErrorFromStatus(status: unknown, request?: string): ApiError {
  const code = isRecord(status) && typeof status.code === 'number' ? status.code : 500;
  return apiErrorFromResponse(code, status, request);
}

/** The Status reason the API server uses for an HTTP code, when a body lacks one. */
export function reasonForCode(code: number): string {
  switch (code) {
    case 400:
      return 'BadRequest';
    case 401:
      return 'Unauthorized';
    case 403:
      return 'Forbidden';
    case 404:
      return 'NotFound';
    case 405:
      return 'MethodNotAllowed';
    case 406:
      return 'NotAcceptable';
    case 409:
      return 'Conflict';
    case 410:
      return 'Gone';
    case 415:
      return 'UnsupportedMediaType';
    case 422:
      return 'Invalid';
    case 429:
      return 'TooManyRequests';
    case 500:
      return 'InternalError';
    case 503:
      return 'ServiceUnavailable';
    case 504:
      return 'Timeout';
    default:
      return code >= 500 ? 'InternalError' : 'Unknown';
  }
}

/**
 * The server prints a conflicting manager with Go's `%q`, then, for Update
 * managers, ` using <apiVersion>` and maybe ` at <time>`; a subresource adds
 * ` with subresource "<name>"` after the name. Examples:
 *   conflict with "kubectl"
 *   conflict with "kube-controller-manager" using apps/v1
 *   conflict with "ctl" with subresource "status" using v1 at 2024-01-01T00:00:00Z
 */
const CONFLICT_RE =
  /^conflict with "((?:[^"\\]|\\.)*)"(?: with subresource "((?:[^"\\]|\\.)*)")?(?: using (\S+))?(?: at \S+)?$/;

function unquoteGo(s: string): string {
  try {
    const v: unknown = JSON.parse(`"${s}"`);
    return typeof v === 'string' ? v : s;
  } catch {
    return s;
  }
}

export function parseConflicts(details: StatusDetails | undefined): FieldConflict[] {
  const out: FieldConflict[] = [];
  for (const cause of details?.causes ?? []) {
    if (cause.reason !== 'FieldManagerConflict') continue;
    const message = cause.message ?? '';
    const m = CONFLICT_RE.exec(message);
    const conflict: FieldConflict = {
      manager: m?.[1] !== undefined ? unquoteGo(m[1]) : message.replace(/^conflict with /, ''),
      field: cause.field ?? '',
      message,
    };
    if (m?.[2] !== undefined) conflict.subresource = unquoteGo(m[2]);
    if (m?.[3] !== undefined) conflict.apiVersion = m[3];
    out.push(conflict);
  }
  return out;
}
