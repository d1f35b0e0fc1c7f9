/**
 * The schema-source contract the compiler depends on: given apiVersion and kind, the object's OpenAPI
 * v3 schema and whether the kind is namespaced, or a reason why the kind is unknown. Sources are
 * consulted in the spec's order (CRD files, live cluster, offline bundle); lookups are synchronous
 * so the compiler stays synchronous, and sources that need I/O load what they need in `prepare`.
 */
import type { OpenAPISchema, SchemaComponents } from '../openapi.ts';

export type SchemaSourceName = 'crd-file' | 'cluster' | 'bundle';

export interface ResolvedSchema {
  group: string;
  version: string;
  kind: string;
  /** Schema of the whole object. May contain `$ref`s into `components` (see derefSchema / inlineRefs). */
  schema: OpenAPISchema;
  components: SchemaComponents;
  namespaced: boolean;
  /** Plural resource name, when the source knows it. */
  plural?: string;
  source: SchemaSourceName;
  /** Human-readable origin, e.g. the CRD file name. */
  origin: string;
}

export interface UnknownKind {
  unknown: true;
  reason: string;
}

export type ResolveResult = ResolvedSchema | UnknownKind;

export function isUnknownKind(r: ResolveResult): r is UnknownKind {
  return 'unknown' in r;
}

export interface SchemaResolver {
  /** Loads whatever asynchronous sources need for these apiVersions (live cluster). Idempotent. */
  prepare(apiVersions: Iterable<string>): Promise<void>;
  resolve(apiVersion: string, kind: string): ResolveResult;
}

export interface SchemaSource {
  readonly name: SchemaSourceName;
  /** A short description for "unknown kind" messages, e.g. "CRD files (a.yaml, b.yaml)". */
  describe(): string;
  prepare?(apiVersions: readonly string[]): Promise<void>;
  /** undefined: this source does not know the kind. */
  lookup(group: string, version: string, kind: string): ResolvedSchema | undefined;
  /** apiVersions under which this source knows a kind of that name (for "did you mean"). */
  versionsOf?(kind: string): string[];
  /** Why this source could not answer for an apiVersion (e.g. cluster unreachable), if it failed. */
  failure?(apiVersion: string): string | undefined;
}

/** Splits `group/version`; `v1` is the core group ''. */
export function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const i = apiVersion.indexOf('/');
  return i < 0
    ? { group: '', version: apiVersion }
    : { group: apiVersion.slice(0, i), version: apiVersion.slice(i + 1) };
}

export function joinApiVersion(group: string, version: string): string {
  return group === '' ? version : `${group}/${version}`;
}
