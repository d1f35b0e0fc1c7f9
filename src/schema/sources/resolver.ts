/**
 * The schema resolver the compiler uses: sources in the spec's order (CRD files, live cluster,
 * offline bundle), first hit wins. An unknown kind is a value with a reason that names every source
 * consulted, any source failure, and other apiVersions that do define the kind.
 */
import { existsSync } from 'node:fs';
import type { Diagnostic } from '../../diag/diagnostic.ts';
import type { OpenAPISchema } from '../openapi.ts';
import { BundleSchemaSource, DEFAULT_BUNDLE_PATH } from './bundle.ts';
import { CrdSchemaSource, OBJECT_META } from './crdFile.ts';
import { type LiveSchemaFetcher, LiveSchemaSource } from './live.ts';
import { inlineRefs } from './openapiDocs.ts';
import { type ResolveResult, type SchemaResolver, type SchemaSource, splitApiVersion } from './types.ts';

export class ChainedSchemaResolver implements SchemaResolver {
  constructor(readonly sources: readonly SchemaSource[]) {}

  async prepare(apiVersions: Iterable<string>): Promise<void> {
    const list = [...new Set(apiVersions)];
    await Promise.all(this.sources.map((s) => s.prepare?.(list)));
  }

  resolve(apiVersion: string, kind: string): ResolveResult {
    const { group, version } = splitApiVersion(apiVersion);
    for (const source of this.sources) {
      const hit = source.lookup(group, version, kind);
      if (hit) return hit;
    }
    const consulted = this.sources.map((s) => s.describe());
    const failures = this.sources.map((s) => s.failure?.(apiVersion)).filter((f): f is string => !!f);
    const elsewhere = [...new Set(this.sources.flatMap((s) => s.versionsOf?.(kind) ?? []))].filter(
      (v) => v !== apiVersion,
    );
    let reason =
      consulted.length === 0
        ? `no schema source is configured, so kind ${kind} (${apiVersion}) cannot be resolved`
        : `unknown kind ${kind} in ${apiVersion}: not found in ${consulted.join(', ')}`;
    if (failures.length > 0) reason += `; ${failures.join('; ')}`;
    if (elsewhere.length > 0) reason += `; ${kind} exists in ${elsewhere.sort().join(', ')}`;
    else if (!failures.length)
      reason += '; for a custom resource, pass its CRD with --crd or connect to a cluster';
    return { unknown: true, reason };
  }
}

export interface SchemaResolverOptions {
  /** CRD files (`--crd`), in order. */
  crdFiles?: readonly string[];
  /** CRD objects already in memory (e.g. generated from RGDs in the same input). */
  crdObjects?: readonly unknown[];
  /** A live-cluster fetcher (built by src/kube) and a label for messages, usually the server URL. */
  live?: { fetcher: LiveSchemaFetcher; server: string };
  /** Offline bundle path; `false` disables the bundle. Default: schema-data/kubernetes-builtin.json.gz. */
  bundle?: string | false;
}

export interface SchemaResolverSetup {
  resolver: ChainedSchemaResolver;
  /** Problems with the CRD files (unreadable, invalid YAML, unusable CRDs). */
  diagnostics: Diagnostic[];
}

/** Builds the standard resolver: CRD files, then the cluster, then the bundle. */
export function createSchemaResolver(options: SchemaResolverOptions = {}): SchemaResolverSetup {
  const bundlePath = options.bundle === false ? undefined : (options.bundle ?? DEFAULT_BUNDLE_PATH);
  const bundle = bundlePath && existsSync(bundlePath) ? BundleSchemaSource.fromFile(bundlePath) : undefined;
  const meta = bundle?.components[OBJECT_META] ? bundle.components : undefined;
  const crd = new CrdSchemaSource(meta ? { metaComponents: meta } : {});
  for (const f of options.crdFiles ?? []) crd.addFile(f);
  for (const o of options.crdObjects ?? []) crd.addObject(o, 'generated CRD');
  const sources: SchemaSource[] = [crd];
  if (options.live) sources.push(new LiveSchemaSource(options.live.fetcher, options.live.server));
  if (bundle) sources.push(bundle);
  return { resolver: new ChainedSchemaResolver(sources), diagnostics: crd.diagnostics };
}

/** The compiler's `KindResolver` shape (src/graph/kinds.ts), declared structurally to keep layers apart. */
export interface KindLookup {
  lookup(
    apiVersion: string,
    kind: string,
  ): { scope: 'Namespaced' | 'Cluster'; resource?: string; schema?: OpenAPISchema } | undefined;
  describe(): string;
}

/**
 * Adapts a prepared resolver to the compiler's synchronous kind lookup, with `$ref`s inlined
 * (recursive references cut to untyped) and results memoized per kind.
 */
export function toKindLookup(resolver: ChainedSchemaResolver): KindLookup {
  const memo = new Map<string, ReturnType<KindLookup['lookup']>>();
  return {
    lookup(apiVersion, kind) {
      const key = `${apiVersion}/${kind}`;
      if (memo.has(key)) return memo.get(key);
      const r = resolver.resolve(apiVersion, kind);
      const info =
        'unknown' in r
          ? undefined
          : {
              scope: r.namespaced ? ('Namespaced' as const) : ('Cluster' as const),
              ...(r.plural ? { resource: r.plural } : {}),
              schema: inlineRefs(r.schema, r.components),
            };
      memo.set(key, info);
      return info;
    },
    describe() {
      return resolver.sources.map((s) => s.describe()).join(', ');
    },
  };
}
