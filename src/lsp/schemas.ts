/**
 * The schemas the language server compiles against, in `kgraph validate`'s order: CRD files and the
 * CRDs of the open document, then a live cluster (when a kubeconfig is given), then the offline bundle,
 * then kgraph's own kinds. The bundle is read once; the chain is rebuilt only when the in-document CRDs
 * change, so a keystroke costs a compile, not a schema load.
 */
import type { Diagnostic } from '../diag/diagnostic.ts';
import { builtinKindResolver } from '../graph/builtinKinds.ts';
import { chainResolvers, type KindResolver } from '../graph/kinds.ts';
import { KRO_API_VERSION } from '../graph/kroApi.ts';
import type { JsonValue } from '../graph/model.ts';
import type { OpenAPISchema } from '../schema/openapi.ts';
import { BundleSchemaSource, DEFAULT_BUNDLE_PATH } from '../schema/sources/bundle.ts';
import { CrdSchemaSource, OBJECT_META } from '../schema/sources/crdFile.ts';
import { type LiveSchemaFetcher, LiveSchemaSource } from '../schema/sources/live.ts';
import { ChainedSchemaResolver, toKindLookup } from '../schema/sources/resolver.ts';
import type { SchemaSource } from '../schema/sources/types.ts';

/** A live cluster's schemas, built by the command from a kubeconfig (src/kube stays out of this layer). */
export interface LiveSchemas {
  fetcher: LiveSchemaFetcher;
  server: string;
  /** Forget what was fetched (CRDs changed). */
  invalidate(): void;
}

export interface SchemaSetOptions {
  crdFiles?: readonly string[];
  live?: LiveSchemas;
  /** Offline bundle path, or false for none (tests). */
  bundle?: string | false;
}

/** The origin of CRDs found in the open document (their problems are reported on it). */
export const IN_DOCUMENT = 'this document';

export interface KnownKind {
  apiVersion: string;
  kind: string;
}

interface Chain {
  key: string;
  chained: ChainedSchemaResolver;
  resolver: KindResolver;
  crd: CrdSchemaSource;
}

export class SchemaSet {
  private readonly bundle: BundleSchemaSource | undefined;
  private liveSource: LiveSchemaSource | undefined;
  private chain: Chain | undefined;
  private readonly builtin = builtinKindResolver();
  /** Problems with the CRD files (unreadable, not a CRD). */
  diagnostics: Diagnostic[] = [];

  constructor(private readonly options: SchemaSetOptions = {}) {
    const path = options.bundle === false ? undefined : (options.bundle ?? DEFAULT_BUNDLE_PATH);
    try {
      this.bundle = path ? BundleSchemaSource.fromFile(path) : undefined;
    } catch {
      this.bundle = undefined;
    }
    if (options.live) this.liveSource = new LiveSchemaSource(options.live.fetcher, options.live.server);
  }

  get live(): boolean {
    return this.options.live !== undefined;
  }

  /** The resolver for a document that defines these CRDs itself (a CRD beside its RGD). */
  resolverFor(crdObjects: readonly JsonValue[] = []): KindResolver {
    return this.chainFor(crdObjects).resolver;
  }

  /** Loads the live cluster's schemas of these apiVersions (no-op without a cluster). */
  async prepare(apiVersions: readonly string[], crdObjects: readonly JsonValue[] = []): Promise<void> {
    if (!this.liveSource) return;
    await this.chainFor(crdObjects).chained.prepare(apiVersions);
  }

  /** Forgets the live cluster's schemas and re-reads the CRD files (the next compile sees changes). */
  refresh(): void {
    this.options.live?.invalidate();
    if (this.options.live)
      this.liveSource = new LiveSchemaSource(this.options.live.fetcher, this.options.live.server);
    this.chain = undefined;
  }

  /** The object schema of a kind, `$ref`s inlined. */
  schemaOf(
    apiVersion: string,
    kind: string,
    crdObjects: readonly JsonValue[] = [],
  ): OpenAPISchema | undefined {
    return this.resolverFor(crdObjects).lookup(apiVersion, kind)?.schema;
  }

  /** Every kind the offline sources know (CRD files, the document's CRDs, the bundle), for completion. */
  kinds(crdObjects: readonly JsonValue[] = []): KnownKind[] {
    const out = new Map<string, KnownKind>();
    const add = (group: string, version: string, kind: string) => {
      const apiVersion = group === '' ? version : `${group}/${version}`;
      out.set(`${apiVersion}/${kind}`, { apiVersion, kind });
    };
    for (const k of this.chainFor(crdObjects).crd.kinds()) add(k.group, k.version, k.kind);
    for (const k of this.bundle?.kinds() ?? []) add(k.group, k.version, k.kind);
    for (const [apiVersion, kind] of [
      [KRO_API_VERSION, 'ResourceGraphDefinition'],
      [KRO_API_VERSION, 'Graph'],
      ['krop.opendefense.cloud/v1alpha1', 'ResourceGraphDefinition'],
    ] as const)
      out.set(`${apiVersion}/${kind}`, { apiVersion, kind });
    return [...out.values()];
  }

  private chainFor(crdObjects: readonly JsonValue[]): Chain {
    const key = crdObjects.length === 0 ? '' : JSON.stringify(crdObjects);
    if (this.chain?.key === key) return this.chain;
    const meta = this.bundle?.components[OBJECT_META] ? this.bundle.components : undefined;
    const crd = new CrdSchemaSource(meta ? { metaComponents: meta } : {});
    for (const f of this.options.crdFiles ?? []) crd.addFile(f);
    for (const o of crdObjects) crd.addObject(o, IN_DOCUMENT);
    this.diagnostics = crd.diagnostics;
    const sources: SchemaSource[] = [crd];
    if (this.liveSource) sources.push(this.liveSource);
    if (this.bundle) sources.push(this.bundle);
    const chained = new ChainedSchemaResolver(sources);
    const lookup = toKindLookup(chained);
    const resolver = chainResolvers([
      {
        lookup: (apiVersion, kind) => lookup.lookup(apiVersion, kind),
        describe: () => lookup.describe(),
        explain: (apiVersion, kind) => {
          const r = chained.resolve(apiVersion, kind);
          return 'unknown' in r ? r.reason : undefined;
        },
      },
      this.builtin,
    ]);
    this.chain = { key, chained, resolver, crd };
    return this.chain;
  }
}
