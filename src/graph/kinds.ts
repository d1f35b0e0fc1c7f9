/**
 * What the compiler needs to know about a Kubernetes kind: its scope and (when available) its
 * OpenAPI schema. The schema layer (src/schema) provides the real sources (CRD files, live cluster,
 * offline bundle); the compiler only depends on this small interface so that it can run without any
 * source (structure-only validation) and in tests with hand-written kinds.
 */
import type { OpenAPISchema } from '../schema/openapi.ts';

export interface KindInfo {
  scope: 'Namespaced' | 'Cluster';
  /** Plural resource name, when known. */
  resource?: string;
  /** The object's OpenAPI v3 schema (fully dereferenced or self-contained), when known. */
  schema?: OpenAPISchema;
}

export interface KindResolver {
  /** `undefined` = unknown kind (the compiler reports KG3001). */
  lookup(apiVersion: string, kind: string): KindInfo | undefined;
  /** Human-readable list of the sources consulted, for the unknown-kind message. */
  describe(): string;
  /** Why a kind is unknown (sources consulted, source failures, other versions), when the resolver knows. */
  explain?(apiVersion: string, kind: string): string | undefined;
}

/** Splits `group/version` (`v1` → core group ''). */
export function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const i = apiVersion.indexOf('/');
  return i < 0
    ? { group: '', version: apiVersion }
    : { group: apiVersion.slice(0, i), version: apiVersion.slice(i + 1) };
}

/** Resolves against several resolvers in order; the first that knows the kind wins. */
export function chainResolvers(resolvers: readonly KindResolver[]): KindResolver {
  return {
    lookup(apiVersion, kind) {
      for (const r of resolvers) {
        const hit = r.lookup(apiVersion, kind);
        if (hit) return hit;
      }
      return undefined;
    },
    describe() {
      return resolvers.map((r) => r.describe()).join(', ');
    },
    explain(apiVersion, kind) {
      for (const r of resolvers) {
        const why = r.explain?.(apiVersion, kind);
        if (why) return why;
      }
      return undefined;
    },
  };
}

/** A resolver over an explicit table, keyed `apiVersion/kind` (tests, and kinds defined by CRD documents). */
export function tableResolver(name: string, table: Readonly<Record<string, KindInfo>>): KindResolver {
  return {
    lookup(apiVersion, kind) {
      return table[`${apiVersion}/${kind}`];
    },
    describe() {
      return name;
    },
  };
}
