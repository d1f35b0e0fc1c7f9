/**
 * The transport under the REST client (`rest.ts`): one request to the API server over Node's `http`/`https`,
 * with the client's credentials, impersonation, keep-alive agents and TLS contexts, retries of what the server
 * asks to be retried, and every failure turned into an `ApiError`. The client above it only builds paths,
 * queries and bodies; this module is what client-go calls its rest transport.
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import tls from 'node:tls';
import { sleep } from './backoff.ts';
import type { Connectivity } from './connectivity.ts';
import { ApiError, apiErrorFromResponse, isApiError } from './errors.ts';
import type { KubeConfig } from './kubeconfig.ts';
import type { RequestCounters, Verb } from './metrics.ts';
import { type QueryValue, queryString } from './paths.ts';
import { requestSpan } from './tracing/tracing.ts';

/** Who to act as (Impersonate-User / Impersonate-Group / Impersonate-Uid headers). */
export interface Impersonation {
  user: string;
  groups?: string[];
  uid?: string;
  extra?: Record<string, string[]>;
}

export interface CallOptions {
  /** Act as this identity for this call; `null` drops the client's default impersonation. */
  impersonate?: Impersonation | null;
  signal?: AbortSignal;
  /** Socket idle timeout; default the client's (30 s). */
  timeoutMs?: number;
}

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RawRequest extends CallOptions {
  method: HttpMethod;
  /** Absolute API path, e.g. `/api/v1/namespaces`. May already carry a query string. */
  path: string;
  query?: Record<string, QueryValue> | undefined;
  /** Serialized with JSON.stringify unless it is already a string or Buffer. */
  body?: unknown;
  contentType?: string | undefined;
  accept?: string | undefined;
  /** The verb counted; inferred from method and content type when omitted. */
  verb?: Verb;
}

export const APPLY_CONTENT_TYPE = 'application/apply-patch+yaml';

/** What a client and its impersonating copies share for sending: credentials, counters, connections, limits. */
export interface TransportShared {
  kc: KubeConfig;
  counters: RequestCounters;
  agents: Map<string, http.Agent>;
  /** TLS contexts per agent key (CA, client certificate and key parsed once). */
  contexts: Map<string, tls.SecureContext>;
  timeoutMs: number;
  userAgent: string;
  onWarning: ((warning: string, request: string) => void) | undefined;
  maxRetries: number;
  /** Whether the server answers (connectivity.ts); made by the first `RestClient.connectivity` read. */
  connectivity?: Connectivity;
}

/** A 2xx answer: the parsed body, or (streaming) the open response. */
export interface Answer {
  status: number;
  body: unknown;
  stream?: http.IncomingMessage;
}

/** One prepared request: where it goes, how it is sent, what it carries and how it is named in errors. */
interface Prepared {
  url: URL;
  label: string;
  verb: Verb;
  opts: https.RequestOptions;
  payload: Buffer | undefined;
}

/** The API server URL of the kubeconfig's current context, without a trailing slash. */
export function serverUrl(kc: KubeConfig): string {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error('kubeconfig has no current cluster');
  return cluster.server.replace(/\/+$/, '');
}

/**
 * Retries what the server asks us to retry (429 Too Many Requests — API Priority
 * and Fairness — and 5xx answers carrying Retry-After), like client-go, up to
 * `maxRetries` times, waiting what the server says (capped at 10 s). A GET whose
 * reused keep-alive connection was reset is retried once.
 */
export async function sendWithRetry(
  shared: TransportShared,
  impersonation: Impersonation | undefined,
  req: RawRequest,
  streaming: boolean,
): Promise<Answer> {
  let networkRetried = false;
  for (let attempt = 0; ; attempt++) {
    try {
      return await send(shared, impersonation, req, streaming);
    } catch (e) {
      if (!isApiError(e) || req.signal?.aborted) throw e;
      const retryAfter = e.details?.retryAfterSeconds;
      const throttled = e.code === 429 || (e.code >= 500 && retryAfter !== undefined);
      if (throttled && attempt < shared.maxRetries) {
        await sleep(Math.min(10_000, Math.max(1, retryAfter ?? 1) * 1000), req.signal);
        continue;
      }
      if (e.code === 0 && e.reason === 'NetworkError' && req.method === 'GET' && !networkRetried) {
        networkRetried = true;
        continue;
      }
      throw e;
    }
  }
}

/** One attempt: counted by verb, prepared, exchanged; a failed exchange is counted as an error of that verb. */
async function send(
  shared: TransportShared,
  impersonation: Impersonation | undefined,
  req: RawRequest,
  streaming: boolean,
): Promise<Answer> {
  const verb = req.verb ?? inferVerb(req);
  shared.counters.inc(verb, req.method, req.path);
  const prepared = await prepare(shared, impersonation, req, verb);
  // Inside a traced pass: a client span, its context sent on (tracing/tracing.ts).
  const span = streaming ? undefined : requestSpan(verb, req.method, prepared.url.pathname);
  if (span) (prepared.opts.headers as Record<string, string>).traceparent = span.traceparent();
  try {
    const answer = await exchange(shared, req, prepared, streaming);
    span?.setAttributes({ 'http.response.status_code': answer.status });
    return answer;
  } catch (e) {
    shared.counters.incError(verb);
    shared.connectivity?.noteFailure(e);
    span?.fail(errMessage(e));
    throw e;
  } finally {
    span?.end();
  }
}

/** The URL, headers, credentials, impersonation, agent and body of a request; failed credentials count as an error. */
async function prepare(
  shared: TransportShared,
  impersonation: Impersonation | undefined,
  req: RawRequest,
  verb: Verb,
): Promise<Prepared> {
  const url = new URL(
    serverUrl(shared.kc) + req.path + (req.query ? queryStringAppend(req.path, req.query) : ''),
  );
  const label = `${req.method} ${url.pathname}`;
  const headers: Record<string, string | string[]> = {
    Accept: req.accept ?? 'application/json',
    'User-Agent': shared.userAgent,
  };
  let payload: Buffer | undefined;
  if (req.body !== undefined) {
    payload = Buffer.isBuffer(req.body)
      ? req.body
      : Buffer.from(typeof req.body === 'string' ? req.body : JSON.stringify(req.body), 'utf8');
    headers['Content-Type'] = req.contentType ?? 'application/json';
    headers['Content-Length'] = String(payload.length);
  }
  const opts: https.RequestOptions = { method: req.method, headers };
  try {
    await shared.kc.applyToHTTPSOptions(opts);
  } catch (e) {
    shared.counters.incError(verb);
    throw new ApiError({
      code: 401,
      reason: 'Unauthorized',
      message: `credentials: ${errMessage(e)}`,
      request: label,
    });
  }
  // applyToHTTPSOptions may add Impersonate-* headers from the kubeconfig (`as`, `as-groups`); ours override.
  const hdrs = (opts.headers ?? headers) as Record<string, string | string[] | number>;
  const who = req.impersonate === undefined ? impersonation : (req.impersonate ?? undefined);
  if (req.impersonate === null) {
    for (const k of Object.keys(hdrs)) if (k.toLowerCase().startsWith('impersonate-')) delete hdrs[k];
  }
  if (who) applyImpersonation(hdrs, who);
  opts.headers = hdrs;
  opts.agent = agentFor(shared, url, opts);
  return { url, label, verb, opts, payload };
}

/** Sends a prepared request and waits for its answer (or, streaming, for the response to open). */
async function exchange(
  shared: TransportShared,
  req: RawRequest,
  { url, label, opts, payload }: Prepared,
  streaming: boolean,
): Promise<Answer> {
  const timeoutMs = req.timeoutMs ?? shared.timeoutMs;
  const mod = url.protocol === 'http:' ? http : https;
  // Until the answer arrives, an abort destroys the request; after that (streams) the reader owns it.
  let abortRequest = (): void => {};
  try {
    return await new Promise<Answer>((resolve, reject) => {
      const r = mod.request(url, opts, (res) => {
        const status = res.statusCode ?? 0;
        shared.connectivity?.noteAnswer(status);
        if (shared.onWarning) {
          for (const w of parseWarnings(res.rawHeaders)) shared.onWarning(w, label);
        }
        if (streaming && status >= 200 && status < 300) {
          resolve({ status, body: undefined, stream: res });
          return;
        }
        readAnswer(res, status, label).then(resolve, reject);
      });
      abortRequest = () =>
        r.destroy(new ApiError({ code: 0, reason: 'Aborted', message: 'request aborted', request: label }));
      r.setTimeout(timeoutMs, () => {
        r.destroy(
          new ApiError({
            code: 0,
            reason: 'Timeout',
            message: `no answer within ${timeoutMs} ms`,
            request: label,
          }),
        );
      });
      r.on('error', (e) => {
        reject(
          isApiError(e)
            ? e
            : new ApiError({ code: 0, reason: 'NetworkError', message: e.message, request: label }),
        );
      });
      if (req.signal) {
        if (req.signal.aborted) abortRequest();
        else req.signal.addEventListener('abort', abortRequest, { once: true });
      }
      r.end(payload);
    });
  } finally {
    req.signal?.removeEventListener('abort', abortRequest);
  }
}

/** Reads a whole answer: JSON (or text) on 2xx, an `ApiError` from the Status otherwise. */
function readAnswer(res: http.IncomingMessage, status: number, label: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('error', (e) =>
      reject(new ApiError({ code: 0, reason: 'NetworkError', message: e.message, request: label })),
    );
    res.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown = text;
      const ctype = String(res.headers['content-type'] ?? '');
      if (text !== '' && (ctype.includes('json') || /^\s*[{[]/.test(text))) {
        try {
          body = JSON.parse(text);
        } catch {
          if (status < 300) {
            reject(
              new ApiError({
                code: status,
                reason: 'BadResponse',
                message: 'invalid JSON response',
                request: label,
              }),
            );
            return;
          }
        }
      }
      if (status >= 200 && status < 300) resolve({ status, body });
      else reject(withRetryAfter(apiErrorFromResponse(status, body, label), res.headers['retry-after']));
    });
  });
}

/**
 * One keep-alive agent per distinct TLS identity so connections are reused (client-node
 * created a fresh agent per call). Proxied clusters keep client-node's proxy agent.
 */
function agentFor(shared: TransportShared, url: URL, opts: https.RequestOptions): http.Agent | undefined {
  const cluster = shared.kc.getCurrentCluster();
  if (cluster?.['proxy-url']) return opts.agent instanceof http.Agent ? opts.agent : undefined;
  const h = createHash('sha256');
  h.update(url.protocol);
  for (const v of [opts.ca, opts.cert, opts.key, opts.pfx, opts.passphrase, opts.servername]) {
    h.update('\0');
    if (v !== undefined) h.update(typeof v === 'string' || Buffer.isBuffer(v) ? v : JSON.stringify(v));
  }
  h.update(String(opts.rejectUnauthorized));
  const key = h.digest('hex');
  let agent = shared.agents.get(key);
  if (url.protocol === 'https:' && (opts.ca || opts.cert || opts.key || opts.pfx)) {
    // One TLS context per identity: without it Node parses the CA, certificate and key again for
    // every new connection (a large share of the controller's CPU under many short-lived sockets).
    let context = shared.contexts.get(key);
    if (!context) {
      context = tls.createSecureContext({
        ca: opts.ca,
        cert: opts.cert,
        key: opts.key,
        pfx: opts.pfx,
        passphrase: opts.passphrase,
      });
      shared.contexts.set(key, context);
    }
    (opts as https.RequestOptions & { secureContext?: tls.SecureContext }).secureContext = context;
  }
  if (!agent) {
    agent =
      url.protocol === 'http:'
        ? new http.Agent({ keepAlive: true, maxFreeSockets: 16 })
        : new https.Agent({
            keepAlive: true,
            maxFreeSockets: 16,
            ca: opts.ca,
            cert: opts.cert,
            key: opts.key,
            pfx: opts.pfx,
            passphrase: opts.passphrase,
            servername: opts.servername,
            ...(opts.rejectUnauthorized !== undefined ? { rejectUnauthorized: opts.rejectUnauthorized } : {}),
          });
    shared.agents.set(key, agent);
  }
  return agent;
}

/** Closes idle keep-alive connections (call on shutdown so the process can exit). */
export function closeAgents(shared: TransportShared): void {
  for (const agent of shared.agents.values()) agent.destroy();
  shared.agents.clear();
}

function applyImpersonation(h: Record<string, string | string[] | number>, who: Impersonation): void {
  for (const k of Object.keys(h)) {
    if (k.toLowerCase().startsWith('impersonate-')) delete h[k];
  }
  h['Impersonate-User'] = who.user;
  if (who.groups && who.groups.length > 0) h['Impersonate-Group'] = [...who.groups];
  if (who.uid) h['Impersonate-Uid'] = who.uid;
  for (const [k, vs] of Object.entries(who.extra ?? {})) {
    h[`Impersonate-Extra-${encodeURIComponent(k)}`] = [...vs];
  }
}

/** Folds a `Retry-After: <seconds>` header into the error's details when the Status lacked it. */
export function withRetryAfter(e: ApiError, header: string | undefined): ApiError {
  const secs = header !== undefined && /^\d+$/.test(header.trim()) ? Number(header.trim()) : undefined;
  if (secs === undefined || e.details?.retryAfterSeconds !== undefined) return e;
  return new ApiError({
    code: e.code,
    reason: e.reason,
    message: e.message,
    details: { ...e.details, retryAfterSeconds: secs },
    request: e.request,
  });
}

/** Messages of `Warning` headers (`299 - "text"`), from raw header pairs. */
export function parseWarnings(rawHeaders: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    if (rawHeaders[i]?.toLowerCase() !== 'warning') continue;
    const re = /\d{3} \S+ "((?:[^"\\]|\\.)*)"/g;
    for (const m of (rawHeaders[i + 1] ?? '').matchAll(re)) out.push((m[1] ?? '').replace(/\\(.)/g, '$1'));
  }
  return out;
}

function inferVerb(req: RawRequest): Verb {
  switch (req.method) {
    case 'GET':
      return /[?&]watch=(true|1)/.test(req.path) || req.query?.watch === true || req.query?.watch === 'true'
        ? 'watch'
        : 'get';
    case 'POST':
      return 'create';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return req.contentType === APPLY_CONTENT_TYPE ? 'apply' : 'patch';
    case 'DELETE':
      return 'delete';
  }
}

function queryStringAppend(path: string, query: Record<string, QueryValue>): string {
  const qs = queryString(query);
  if (qs === '') return '';
  return path.includes('?') ? `&${qs.slice(1)}` : qs;
}

function errMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
