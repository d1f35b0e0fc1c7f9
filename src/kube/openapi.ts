/**
 * OpenAPI v3 from a live server: the faithful schema source for type-checking
 * templates against the cluster's actual kinds (CRDs included).
 *
 * `GET /openapi/v3` lists group-versions with hash-bearing URLs; a document
 * fetched by such a URL never changes, so it is cached by URL in memory and,
 * optionally, on disk. The index is cached until `invalidate()` (call it when a
 * CRD is added or changed: its group-version gets a new hash; see crdWatch.ts),
 * for at most `indexTtlMs`, and refetched (at most once a second) when it lacks
 * a requested group-version — the server publishes a new CRD asynchronously.
 */

import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { isRecord } from '../diag/record.ts';
import { parseApiVersion } from './paths.ts';
import type { RestClient } from './rest.ts';

export type JsonObject = Record<string, unknown>;

export interface OpenApiDocument extends JsonObject {
  components?: { schemas?: Record<string, JsonObject> };
}

export interface KindSchema {
  /** The component name, e.g. `io.k8s.api.core.v1.ConfigMap`. */
  name: string;
  schema: JsonObject;
  /** The whole group-version document, to resolve `$ref`s. */
  document: OpenApiDocument;
}

export interface OpenApiOptions {
  /** Directory for the disk cache (created when missing). */
  cacheDir?: string;
  /** Maximum age of the cached index (default 60 s). */
  indexTtlMs?: number;
  /** A group-version missing from the index refetches it at most this often (default 1 s). */
  missRefreshMs?: number;
  /**
   * Keep only `components.schemas` of each document in memory, without `description`s (a long-running
   * reader that type-checks against the schemas and shows no documentation: the controller). The
   * core/v1 document's paths and descriptions are most of its size.
   */
  slim?: boolean;
  now?: () => number;
}

/** `~/.cache/kgraph/openapi/<sha256(server)[:16]>` (XDG_CACHE_HOME respected). */
export function defaultOpenApiCacheDir(server: string): string {
  const base = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  const hash = createHash('sha256').update(server).digest('hex').slice(0, 16);
  return join(base, 'kgraph', 'openapi', hash);
}

export class OpenApiV3 {
  private readonly client: RestClient;
  private readonly cacheDir: string | undefined;
  private indexCache: Promise<Map<string, string>> | undefined;
  private indexFetchedAt = 0;
  private readonly indexTtlMs: number;
  private readonly missRefreshMs: number;
  private readonly now: () => number;
  private readonly slim: boolean;
  private readonly docs = new Map<string, Promise<OpenApiDocument>>();
  /** Requests actually sent for documents (for cache tests and metrics). */
  documentFetches = 0;

  constructor(client: RestClient, opts: OpenApiOptions = {}) {
    this.client = client;
    this.cacheDir = opts.cacheDir;
    this.indexTtlMs = opts.indexTtlMs ?? 60_000;
    this.missRefreshMs = opts.missRefreshMs ?? 1_000;
    this.now = opts.now ?? Date.now;
    this.slim = opts.slim ?? false;
  }

  /** Forget the index (documents stay cached: their URLs are content-addressed). */
  invalidate(): void {
    this.indexCache = undefined;
  }

  /** Group-version path (`api/v1`, `apis/apps/v1`) → server-relative URL with `?hash=`. */
  index(): Promise<Map<string, string>> {
    if (!this.indexCache || this.now() - this.indexFetchedAt >= this.indexTtlMs) {
      this.indexFetchedAt = this.now();
      const p = this.fetchIndex();
      this.indexCache = p;
      p.catch(() => {
        if (this.indexCache === p) this.indexCache = undefined;
      });
    }
    return this.indexCache;
  }

  private async fetchIndex(): Promise<Map<string, string>> {
    const body = await this.client.request({ method: 'GET', path: '/openapi/v3', verb: 'get' });
    const out = new Map<string, string>();
    if (isRecord(body) && isRecord(body.paths)) {
      for (const [k, v] of Object.entries(body.paths)) {
        if (isRecord(v) && typeof v.serverRelativeURL === 'string') out.set(k, v.serverRelativeURL);
      }
    }
    return out;
  }

  /** The document of one apiVersion, or undefined when the server does not publish it. */
  async document(apiVersion: string): Promise<OpenApiDocument | undefined> {
    const { group, version } = parseApiVersion(apiVersion);
    const key = group === '' ? `api/${version}` : `apis/${group}/${version}`;
    let url = (await this.index()).get(key);
    if (!url && this.now() - this.indexFetchedAt >= this.missRefreshMs) {
      this.invalidate();
      url = (await this.index()).get(key);
    }
    if (!url) return undefined;
    let p = this.docs.get(url);
    if (!p) {
      p = this.fetchDocument(url).then((d) => (this.slim ? slimDocument(d) : d));
      this.docs.set(url, p);
      p.catch(() => this.docs.delete(url));
    }
    return p;
  }

  private async fetchDocument(url: string): Promise<OpenApiDocument> {
    const file = this.cacheDir
      ? join(this.cacheDir, `${createHash('sha256').update(url).digest('hex').slice(0, 32)}.json`)
      : undefined;
    if (file) {
      try {
        const cached: unknown = JSON.parse(await readFile(file, 'utf8'));
        if (isRecord(cached)) return cached as OpenApiDocument;
      } catch {
        // not cached (or unreadable): fetch
      }
    }
    this.documentFetches += 1;
    const body = await this.client.request({ method: 'GET', path: url, verb: 'get' });
    if (!isRecord(body)) throw new Error(`OpenAPI document ${url} is not an object`);
    if (file && this.cacheDir) {
      await mkdir(this.cacheDir, { recursive: true });
      const tmp = `${file}.${process.pid}.tmp`;
      await writeFile(tmp, JSON.stringify(body));
      await rename(tmp, file);
    }
    return body as OpenApiDocument;
  }

  /** The schema of a kind, found by its `x-kubernetes-group-version-kind`. */
  async schemaFor(apiVersion: string, kind: string): Promise<KindSchema | undefined> {
    const document = await this.document(apiVersion);
    const schemas = document?.components?.schemas;
    if (!document || !schemas) return undefined;
    const { group, version } = parseApiVersion(apiVersion);
    for (const [name, schema] of Object.entries(schemas)) {
      const gvks = schema['x-kubernetes-group-version-kind'];
      if (!Array.isArray(gvks)) continue;
      const match = gvks.some(
        (g) => isRecord(g) && (g.group ?? '') === group && g.version === version && g.kind === kind,
      );
      if (match) return { name, schema, document };
    }
    return undefined;
  }
}

/** `components.schemas` only, every `description` string left out. */
export function slimDocument(doc: OpenApiDocument): OpenApiDocument {
  const strip = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(strip);
    if (!isRecord(v)) return v;
    const out: JsonObject = {};
    for (const [k, x] of Object.entries(v)) {
      if (k === 'description' && typeof x === 'string') continue;
      out[k] = strip(x);
    }
    return out;
  };
  const schemas = doc.components?.schemas;
  return schemas ? { components: { schemas: strip(schemas) as Record<string, JsonObject> } } : {};
}

/** Resolves a local `$ref` (`#/components/schemas/X`) inside a document. */
export function resolveRef(document: OpenApiDocument, ref: string): JsonObject | undefined {
  const prefix = '#/components/schemas/';
  if (!ref.startsWith(prefix)) return undefined;
  return document.components?.schemas?.[decodeURIComponent(ref.slice(prefix.length))];
}
