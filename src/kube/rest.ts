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
import type http from 'node:http';
import { Connectivity } from './connectivity.ts';
import { Discovery, type ResourceInfo } from './discovery.ts';
import { isApiError } from './errors.ts';
import { type WriteFence, WriteFencedError } from './fence.ts';
import type { KubeConfig } from './kubeconfig.ts';
import { RequestCounters } from './metrics.ts';
import { labelSelector, parseApiVersion, type QueryValue, resourcePath } from './paths.ts';
import {
  type Answer,
  APPLY_CONTENT_TYPE,
  type CallOptions,
  closeAgents,
  type Impersonation,
  type RawRequest,
  sendWithRetry,
  serverUrl,
  type TransportShared,
} from './transport.ts';
import { asKubeList, asKubeObject, type KubeList, type KubeObject } from './types.ts';

export type { CallOptions, HttpMethod, Impersonation, RawRequest } from './transport.ts';
export { parseWarnings, withRetryAfter } from './transport.ts';

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
const PATCH_CONTENT_TYPES: Record<PatchType, string> = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  strategic: 'application/strategic-merge-patch+json',
};

/** State shared by a client and its impersonating copies (internal: pass only what another client exposes). */
export interface RestClientShared extends TransportShared {
  discovery: Discovery | undefined;
  /** Asked before every write of the client and its copies (fence.ts). */
  fence?: WriteFence;
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
    return serverUrl(this.shared.kc);
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
    const res = await this.send(req, false);
    return res.body;
  }

  /**
   * Opens a streaming GET (watch). Resolves once the server answered 200 with the
   * response stream; non-2xx answers are read and thrown as ApiError.
   */
  async stream(req: RawRequest): Promise<http.IncomingMessage> {
    const res = await this.send(req, true);
    if (!res.stream) throw new Error('internal: stream expected');
    return res.stream;
  }

  /**
   * Fences every write of this client and its copies (fence.ts): from now on each request other than a
   * GET asks `fence` first and fails with WriteFencedError when it refuses.
   */
  setWriteFence(fence: WriteFence | undefined): void {
    this.shared.fence = fence;
  }

  /** One request through the transport (transport.ts), as this client's identity unless the call says otherwise. */
  private send(req: RawRequest, streaming: boolean): Promise<Answer> {
    const refused = req.method !== 'GET' ? this.shared.fence?.refusal() : undefined;
    if (refused !== undefined)
      return Promise.reject(new WriteFencedError(refused, `${req.method} ${req.path}`));
    return sendWithRetry(this.shared, this.impersonation, req, streaming);
  }

  /** Closes idle keep-alive connections (call on shutdown so the process can exit). */
  close(): void {
    closeAgents(this.shared);
  }
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
