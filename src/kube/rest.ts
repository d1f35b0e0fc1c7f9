/**
 * The raw-JSON REST client: the one place kgraph sends requests to an API server.
 *
 * Why raw: client-node's typed APIs run built-in kinds through ObjectSerializer,
 * which silently drops fields its models lack (design/platform.md §4.2) — wrong for an
 * orchestrator that must apply exactly what a template says. Credentials come from our
 * own `KubeConfig` (kubeconfig.ts: client certificates, tokens, basic auth; exec and
 * auth-provider plugins and proxies through client-node, loaded only for them) through
 * `applyToHTTPSOptions`, and we send JSON with Node's `https`/`http`.
 *
 * Every request is counted by verb (`counters`), every failure is an `ApiError`.
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import tls from 'node:tls';
import { sleep } from './backoff.ts';
import { Connectivity } from './connectivity.ts';
import { Discovery, type ResourceInfo } from './discovery.ts';
import { ApiError, apiErrorFromResponse, isApiError } from './errors.ts';
import type { KubeConfig } from './kubeconfig.ts';
import { RequestCounters, type Verb } from './metrics.ts';
import { labelSelector, parseApiVersion, type QueryValue, queryString, resourcePath } from './paths.ts';
import { asKubeList, asKubeObject, type KubeList, type KubeObject } from './types.ts';

/** Who to act as (Impersonate-User / Impersonate-Group / Impersonate-Uid headers). */
export interface Impersonation {
  user: string;
  groups?: string[];
  uid?: string;
  extra?: Record<string, string[]>;
}

/** The user name and groups the API server gives a ServiceAccount. */
export function serviceAccountImpersonation(namespace: string, name: string): Impersonation {
  return {
    user: `system:serviceaccount:${namespace}:${name}`,
    groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`, 'system:authenticated'],
  };
}

/**
 * Addresses a resource: by `plural` directly, or by `kind` (resolved through
 * discovery, which also tells whether the resource is namespaced; a namespace
 * given for a cluster-scoped resource is then ignored).
 */
export interface ResourceTarget {
  apiVersion: string;
  kind?: string | undefined;
  plural?: string | undefined;
  namespace?: string | undefined;
  name?: string | undefined;
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

export interface ListOptions extends CallOptions {
  labelSelector?: string | Record<string, string>;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  resourceVersionMatch?: 'Exact' | 'NotOlderThan';
  /** Ask for PartialObjectMetadataList: items carry only apiVersion, kind, metadata. */
  metadataOnly?: boolean;
}

export interface WriteOptions extends CallOptions {
  fieldManager?: string;
  dryRun?: boolean;
  /**
   * `Strict` / `Warn` (the server's default since 1.23) / `Ignore`; default the client's write defaults
   * (`withWriteDefaults`), else the server's. On a server-side apply, fields the schema lacks are refused
   * whatever this says; the directive decides whether the server also decodes the patch strictly
   * (duplicate fields) — work that `Ignore` skips.
   */
  fieldValidation?: FieldValidation;
}

export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

/** What every write of a client carries unless the call says otherwise (`RestClient.withWriteDefaults`). */
export interface WriteDefaults {
  fieldValidation?: FieldValidation;
}

export interface ApplyOptions extends WriteOptions {
  fieldManager: string;
  force?: boolean;
}

export type PatchType = 'merge' | 'json' | 'strategic';

export interface PatchOptions extends WriteOptions {
  type?: PatchType;
  subresource?: string;
}

export interface DeleteOptions extends CallOptions {
  propagationPolicy?: 'Background' | 'Foreground' | 'Orphan';
  preconditions?: { uid?: string; resourceVersion?: string };
  gracePeriodSeconds?: number;
  dryRun?: boolean;
}

export interface RestClientOptions {
  /** Default impersonation for every call of this client. */
  impersonate?: Impersonation;
  /** Default socket idle timeout in ms (30 000). */
  timeoutMs?: number;
  userAgent?: string;
  counters?: RequestCounters;
  discovery?: Discovery;
  /** Retries of 429 / Retry-After answers (default 5; 0 disables). */
  maxRetries?: number;
  /** Server warnings (`Warning: 299 - "…"` headers: deprecated APIs, unknown fields, …). */
  onWarning?: (warning: string, request: string) => void;
  /** Defaults of every create, update, apply and patch of this client (and its impersonating copies). */
  writeDefaults?: WriteDefaults;
}

export const METADATA_LIST_ACCEPT =
  'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json;q=0.9';
export const METADATA_ACCEPT =
  'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json;q=0.9';
const APPLY_CONTENT_TYPE = 'application/apply-patch+yaml';
const PATCH_CONTENT_TYPES: Record<PatchType, string> = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  strategic: 'application/strategic-merge-patch+json',
};

/** State shared by a client and its impersonating copies (internal: pass only what another client exposes). */
export interface RestClientShared {
  kc: KubeConfig;
  counters: RequestCounters;
  agents: Map<string, http.Agent>;
  /** TLS contexts per agent key (CA, client certificate and key parsed once). */
  contexts: Map<string, tls.SecureContext>;
  timeoutMs: number;
  userAgent: string;
  discovery: Discovery | undefined;
  onWarning: ((warning: string, request: string) => void) | undefined;
  maxRetries: number;
  /** Whether the server answers; created with the first client (its probe is a request of that client). */
  connectivity?: Connectivity;
}

export class RestClient {
  readonly counters: RequestCounters;
  private readonly shared: RestClientShared;
  private readonly impersonation: Impersonation | undefined;
  private readonly writeDefaults: WriteDefaults;

  constructor(kc: KubeConfig, opts: RestClientOptions = {}, shared?: RestClientShared) {
    this.shared = shared ?? {
      kc,
      counters: opts.counters ?? new RequestCounters(),
      agents: new Map(),
      contexts: new Map(),
      timeoutMs: opts.timeoutMs ?? 30_000,
      userAgent: opts.userAgent ?? 'kgraph/0.1',
      discovery: opts.discovery,
      onWarning: opts.onWarning,
      maxRetries: opts.maxRetries ?? 5,
    };
    this.counters = this.shared.counters;
    this.impersonation = opts.impersonate;
    this.writeDefaults = { ...opts.writeDefaults };
  }

  get kubeConfig(): KubeConfig {
    return this.shared.kc;
  }

  /** The API server URL of the current context. */
  get server(): string {
    const cluster = this.shared.kc.getCurrentCluster();
    if (!cluster) throw new Error('kubeconfig has no current cluster');
    return cluster.server.replace(/\/+$/, '');
  }

  /** A copy acting as `who` (or as itself with `undefined`); shares counters, connections and discovery. */
  withImpersonation(who: Impersonation | undefined): RestClient {
    const opts: RestClientOptions = { writeDefaults: this.writeDefaults };
    if (who) opts.impersonate = who;
    return new RestClient(this.shared.kc, opts, this.shared);
  }

  /**
   * A copy whose writes carry `defaults` (over this client's) unless a call says otherwise; it keeps this
   * client's impersonation and shares counters, connections and discovery. Its impersonating copies keep them.
   */
  withWriteDefaults(defaults: WriteDefaults): RestClient {
    const opts: RestClientOptions = { writeDefaults: { ...this.writeDefaults, ...defaults } };
    if (this.impersonation) opts.impersonate = this.impersonation;
    return new RestClient(this.shared.kc, opts, this.shared);
  }

  /** Whether this client's server answers, shared by its copies (connectivity.ts). */
  get connectivity(): Connectivity {
    this.shared.connectivity ??= new Connectivity({
      probe: () =>
        new RestClient(this.shared.kc, {}, this.shared).request({
          method: 'GET',
          path: '/readyz',
          accept: 'text/plain',
          timeoutMs: 2_000,
        }),
    });
    return this.shared.connectivity;
  }

  /** Discovery shared by this client and its copies; it always queries as the client's own identity. */
  get discovery(): Discovery {
    this.shared.discovery ??= new Discovery(new RestClient(this.shared.kc, {}, this.shared));
    return this.shared.discovery;
  }

  // ---------------------------------------------------------------- addressing

  /** Resolves a target to its REST path pieces (plural, namespace honoured only when namespaced). */
  async resolve(
    t: ResourceTarget,
  ): Promise<{ apiVersion: string; plural: string; namespace: string | undefined; info?: ResourceInfo }> {
    if (t.plural) return { apiVersion: t.apiVersion, plural: t.plural, namespace: t.namespace };
    if (!t.kind) throw new Error(`target ${t.apiVersion} needs a kind or a plural`);
    const info = await this.discovery.resolveKind(t.apiVersion, t.kind);
    return {
      apiVersion: t.apiVersion,
      plural: info.plural,
      namespace: info.namespaced ? t.namespace : undefined,
      info,
    };
  }

  async pathFor(t: ResourceTarget, subresource?: string): Promise<string> {
    const r = await this.resolve(t);
    return resourcePath({ ...r, name: t.name, subresource });
  }

  // ---------------------------------------------------------------- operations

  async get(t: ResourceTarget, opts: CallOptions & { metadataOnly?: boolean } = {}): Promise<KubeObject> {
    requireName(t, 'get');
    const body = await this.request({
      ...opts,
      method: 'GET',
      path: await this.pathFor(t),
      accept: opts.metadataOnly ? METADATA_ACCEPT : undefined,
      verb: 'get',
    });
    return asKubeObject(body, `GET ${t.kind ?? t.plural} ${t.name}`);
  }

  /** `get`, but `undefined` on 404. */
  async getOrUndefined(t: ResourceTarget, opts: CallOptions = {}): Promise<KubeObject | undefined> {
    try {
      return await this.get(t, opts);
    } catch (e) {
      if (isApiError(e) && e.code === 404) return undefined;
      throw e;
    }
  }

  /** One page of a list. Items get their apiVersion/kind filled in from the list when the server omits them. */
  async list(t: ResourceTarget, opts: ListOptions = {}): Promise<KubeList> {
    const r = await this.resolve(t);
    const path = resourcePath({ apiVersion: r.apiVersion, plural: r.plural, namespace: r.namespace });
    const body = await this.request({
      ...callOpts(opts),
      method: 'GET',
      path,
      query: {
        labelSelector: labelSelector(opts.labelSelector),
        fieldSelector: opts.fieldSelector,
        limit: opts.limit,
        continue: opts.continue,
        resourceVersion: opts.resourceVersion,
        resourceVersionMatch: opts.resourceVersionMatch,
      },
      accept: opts.metadataOnly ? METADATA_LIST_ACCEPT : undefined,
      verb: 'list',
    });
    const list = asKubeList(body, `LIST ${path}`);
    const itemKind = r.info?.kind ?? (t.kind || list.kind.replace(/List$/, ''));
    const itemApiVersion = opts.metadataOnly ? undefined : list.apiVersion || t.apiVersion;
    for (const item of list.items) {
      if (!item.kind) item.kind = opts.metadataOnly ? 'PartialObjectMetadata' : itemKind;
      if (!item.apiVersion) item.apiVersion = itemApiVersion ?? 'meta.k8s.io/v1';
    }
    return list;
  }

  /** All pages of a list (following `continue`); the resourceVersion is the first page's. */
  async listAll(
    t: ResourceTarget,
    opts: ListOptions = {},
  ): Promise<{ items: KubeObject[]; resourceVersion: string; pages: number }> {
    const items: KubeObject[] = [];
    let cont: string | undefined = opts.continue;
    let resourceVersion = '';
    let pages = 0;
    do {
      const page = await this.list(t, {
        ...opts,
        continue: cont,
        ...(cont ? { resourceVersion: undefined } : {}),
      });
      pages += 1;
      if (pages === 1) resourceVersion = page.metadata.resourceVersion ?? '';
      items.push(...page.items);
      cont = page.metadata.continue || undefined;
    } while (cont);
    return { items, resourceVersion, pages };
  }

  async create(obj: KubeObject, opts: WriteOptions = {}): Promise<KubeObject> {
    const r = await this.resolve(targetOf(obj, false));
    const body = await this.request({
      ...callOpts(opts),
      method: 'POST',
      path: resourcePath({ apiVersion: r.apiVersion, plural: r.plural, namespace: r.namespace }),
      query: this.writeQuery(opts),
      body: obj,
      verb: 'create',
    });
    return asKubeObject(body, 'create');
  }

  /** PUT: replace the whole object (optimistic concurrency through metadata.resourceVersion). */
  async update(obj: KubeObject, opts: WriteOptions & { subresource?: string } = {}): Promise<KubeObject> {
    const path = await this.pathFor(targetOf(obj, true), opts.subresource);
    const body = await this.request({
      ...callOpts(opts),
      method: 'PUT',
      path,
      query: this.writeQuery(opts),
      body: obj,
      verb: 'update',
    });
    return asKubeObject(body, 'update');
  }

  /** Server-side apply of `obj` (its apiVersion, kind, namespace and name address it). */
  apply(obj: KubeObject, opts: ApplyOptions): Promise<KubeObject> {
    return this.applyTo(obj, opts, undefined);
  }

  /** Server-side apply on the status subresource. */
  applyStatus(obj: KubeObject, opts: ApplyOptions): Promise<KubeObject> {
    return this.applyTo(obj, opts, 'status');
  }

  private async applyTo(
    obj: KubeObject,
    opts: ApplyOptions,
    subresource: string | undefined,
  ): Promise<KubeObject> {
    if (!opts.fieldManager) throw new Error('server-side apply needs a fieldManager');
    const path = await this.pathFor(targetOf(obj, true), subresource);
    const body = await this.request({
      ...callOpts(opts),
      method: 'PATCH',
      path,
      query: { ...this.writeQuery(opts), force: opts.force ? true : undefined },
      body: obj,
      contentType: APPLY_CONTENT_TYPE,
      verb: opts.dryRun ? 'dryrun' : 'apply',
    });
    return asKubeObject(body, 'apply');
  }

  /** A merge (default), JSON or strategic-merge patch. */
  async patch(t: ResourceTarget, patch: unknown, opts: PatchOptions = {}): Promise<KubeObject> {
    requireName(t, 'patch');
    const body = await this.request({
      ...callOpts(opts),
      method: 'PATCH',
      path: await this.pathFor(t, opts.subresource),
      query: this.writeQuery(opts),
      body: patch,
      contentType: PATCH_CONTENT_TYPES[opts.type ?? 'merge'],
      verb: 'patch',
    });
    return asKubeObject(body, 'patch');
  }

  /**
   * Deletes one object. Returns what the server returns: the object (still present
   * with a deletionTimestamp when finalizers remain) or a `Status` of success.
   */
  async delete(t: ResourceTarget, opts: DeleteOptions = {}): Promise<unknown> {
    requireName(t, 'delete');
    const deleteOptions: Record<string, unknown> = { apiVersion: 'v1', kind: 'DeleteOptions' };
    if (opts.propagationPolicy) deleteOptions.propagationPolicy = opts.propagationPolicy;
    if (opts.preconditions) deleteOptions.preconditions = { ...opts.preconditions };
    if (opts.gracePeriodSeconds !== undefined) deleteOptions.gracePeriodSeconds = opts.gracePeriodSeconds;
    if (opts.dryRun) deleteOptions.dryRun = ['All'];
    return this.request({
      ...callOpts(opts),
      method: 'DELETE',
      path: await this.pathFor(t),
      body: deleteOptions,
      verb: 'delete',
    });
  }

  private writeQuery(o: WriteOptions): Record<string, QueryValue> {
    return {
      fieldManager: o.fieldManager,
      dryRun: o.dryRun ? 'All' : undefined,
      fieldValidation: o.fieldValidation ?? this.writeDefaults.fieldValidation,
    };
  }

  // ---------------------------------------------------------------- transport

  /** Any request; returns the parsed JSON body (or text). Non-2xx → ApiError. */
  async request(req: RawRequest): Promise<unknown> {
    const res = await this.sendWithRetry(req, false);
    return res.body;
  }

  /**
   * Opens a streaming GET (watch). Resolves once the server answered 200 with the
   * response stream; non-2xx answers are read and thrown as ApiError.
   */
  async stream(req: RawRequest): Promise<http.IncomingMessage> {
    const res = await this.sendWithRetry(req, true);
    if (!res.stream) throw new Error('internal: stream expected');
    return res.stream;
  }

  /**
   * Retries what the server asks us to retry (429 Too Many Requests — API Priority
   * and Fairness — and 5xx answers carrying Retry-After), like client-go, up to
   * `maxRetries` times, waiting what the server says (capped at 10 s). A GET whose
   * reused keep-alive connection was reset is retried once.
   */
  private async sendWithRetry(
    req: RawRequest,
    streaming: boolean,
  ): Promise<{ status: number; body: unknown; stream?: http.IncomingMessage }> {
    let networkRetried = false;
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.send(req, streaming);
      } catch (e) {
        if (!isApiError(e) || req.signal?.aborted) throw e;
        const retryAfter = e.details?.retryAfterSeconds;
        const throttled = e.code === 429 || (e.code >= 500 && retryAfter !== undefined);
        if (throttled && attempt < this.shared.maxRetries) {
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

  private async send(
    req: RawRequest,
    streaming: boolean,
  ): Promise<{ status: number; body: unknown; stream?: http.IncomingMessage }> {
    const verb = req.verb ?? inferVerb(req);
    this.shared.counters.inc(verb, req.method, req.path);
    const url = new URL(this.server + req.path + (req.query ? queryStringAppend(req.path, req.query) : ''));
    const label = `${req.method} ${url.pathname}`;
    const headers: Record<string, string | string[]> = {
      Accept: req.accept ?? 'application/json',
      'User-Agent': this.shared.userAgent,
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
      await this.shared.kc.applyToHTTPSOptions(opts);
    } catch (e) {
      this.shared.counters.incError(verb);
      throw new ApiError({
        code: 401,
        reason: 'Unauthorized',
        message: `credentials: ${errMessage(e)}`,
        request: label,
      });
    }
    // applyToHTTPSOptions may add Impersonate-* headers from the kubeconfig (`as`, `as-groups`); ours override.
    const hdrs = (opts.headers ?? headers) as Record<string, string | string[] | number>;
    const who = req.impersonate === undefined ? this.impersonation : (req.impersonate ?? undefined);
    if (req.impersonate === null) {
      for (const k of Object.keys(hdrs)) if (k.toLowerCase().startsWith('impersonate-')) delete hdrs[k];
    }
    if (who) applyImpersonation(hdrs, who);
    opts.headers = hdrs;
    opts.agent = this.agentFor(url, opts);
    const timeoutMs = req.timeoutMs ?? this.shared.timeoutMs;
    const mod = url.protocol === 'http:' ? http : https;

    // Until the answer arrives, an abort destroys the request; after that (streams) the reader owns it.
    let abortRequest = (): void => {};
    try {
      return await new Promise((resolve, reject) => {
        const r = mod.request(url, opts, (res) => {
          const status = res.statusCode ?? 0;
          this.shared.connectivity?.noteAnswer(status);
          if (this.shared.onWarning) {
            for (const w of parseWarnings(res.rawHeaders)) this.shared.onWarning(w, label);
          }
          if (streaming && status >= 200 && status < 300) {
            resolve({ status, body: undefined, stream: res });
            return;
          }
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
            else
              reject(withRetryAfter(apiErrorFromResponse(status, body, label), res.headers['retry-after']));
          });
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
    } catch (e) {
      this.shared.counters.incError(verb);
      this.shared.connectivity?.noteFailure(e);
      throw e;
    } finally {
      req.signal?.removeEventListener('abort', abortRequest);
    }
  }

  /**
   * One keep-alive agent per distinct TLS identity so connections are reused (client-node
   * created a fresh agent per call). Proxied clusters keep client-node's proxy agent.
   */
  private agentFor(url: URL, opts: https.RequestOptions): http.Agent | undefined {
    const cluster = this.shared.kc.getCurrentCluster();
    if (cluster?.['proxy-url']) return opts.agent instanceof http.Agent ? opts.agent : undefined;
    const h = createHash('sha256');
    h.update(url.protocol);
    for (const v of [opts.ca, opts.cert, opts.key, opts.pfx, opts.passphrase, opts.servername]) {
      h.update('\0');
      if (v !== undefined) h.update(typeof v === 'string' || Buffer.isBuffer(v) ? v : JSON.stringify(v));
    }
    h.update(String(opts.rejectUnauthorized));
    const key = h.digest('hex');
    let agent = this.shared.agents.get(key);
    if (url.protocol === 'https:' && (opts.ca || opts.cert || opts.key || opts.pfx)) {
      // One TLS context per identity: without it Node parses the CA, certificate and key again for
      // every new connection (a large share of the controller's CPU under many short-lived sockets).
      let context = this.shared.contexts.get(key);
      if (!context) {
        context = tls.createSecureContext({
          ca: opts.ca,
          cert: opts.cert,
          key: opts.key,
          pfx: opts.pfx,
          passphrase: opts.passphrase,
        });
        this.shared.contexts.set(key, context);
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
              ...(opts.rejectUnauthorized !== undefined
                ? { rejectUnauthorized: opts.rejectUnauthorized }
                : {}),
            });
      this.shared.agents.set(key, agent);
    }
    return agent;
  }

  /** Closes idle keep-alive connections (call on shutdown so the process can exit). */
  close(): void {
    for (const agent of this.shared.agents.values()) agent.destroy();
    this.shared.agents.clear();
  }
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

function callOpts(o: CallOptions): CallOptions {
  const out: CallOptions = {};
  if (o.impersonate !== undefined) out.impersonate = o.impersonate;
  if (o.signal) out.signal = o.signal;
  if (o.timeoutMs !== undefined) out.timeoutMs = o.timeoutMs;
  return out;
}

function requireName(t: ResourceTarget, op: string): void {
  if (!t.name) throw new Error(`${op} ${t.kind ?? t.plural ?? t.apiVersion} needs a name`);
}

/** The target an object addresses (its apiVersion, kind, namespace and, when `named`, name). */
export function targetOf(obj: KubeObject, named: boolean): ResourceTarget {
  const name = obj.metadata?.name;
  if (named && !name) throw new Error(`${obj.kind} object has no metadata.name`);
  return {
    apiVersion: obj.apiVersion,
    kind: obj.kind,
    namespace: obj.metadata?.namespace,
    name: named ? name : undefined,
  };
}

/** A target addressing `obj` by its identity. */
export function refOf(obj: KubeObject): ResourceTarget {
  return targetOf(obj, true);
}

export function groupOf(apiVersion: string): string {
  return parseApiVersion(apiVersion).group;
}

function errMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
