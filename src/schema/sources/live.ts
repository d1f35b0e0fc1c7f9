/**
 * Schema source over a live cluster. It does no HTTP itself: the caller injects a fetcher (src/kube's
 * OpenApiV3 + Discovery satisfy it structurally) that returns group-version OpenAPI v3 documents and
 * discovery resources. `prepare` loads the apiVersions a compile needs; lookups are then synchronous.
 * Documents are cached on disk by the fetcher under `~/.cache/kgraph/openapi/<server-hash>/`.
 */
import type { OpenAPISchema, SchemaComponents } from '../openapi.ts';
import { documentComponents, findKindComponent } from './openapiDocs.ts';
import { joinApiVersion, type ResolvedSchema, type SchemaSource } from './types.ts';

export interface LiveResource {
  kind: string;
  plural: string;
  namespaced: boolean;
}

export interface LiveSchemaFetcher {
  /** The group-version's OpenAPI v3 document; undefined when the server does not publish it. */
  document(apiVersion: string): Promise<unknown>;
  /** Discovery resources of the group-version; undefined when the server does not serve it. */
  resources(apiVersion: string): Promise<readonly LiveResource[] | undefined>;
}

interface Loaded {
  components: SchemaComponents;
  resources: readonly LiveResource[];
}

export class LiveSchemaSource implements SchemaSource {
  readonly name = 'cluster' as const;
  private readonly loaded = new Map<string, Loaded | null>();
  private readonly failures = new Map<string, string>();

  constructor(
    private readonly fetcher: LiveSchemaFetcher,
    private readonly server = 'the cluster',
  ) {}

  describe(): string {
    return `the cluster at ${this.server}`;
  }

  async prepare(apiVersions: readonly string[]): Promise<void> {
    const todo = [...new Set(apiVersions)].filter((v) => !this.loaded.has(v) && !this.failures.has(v));
    await Promise.all(
      todo.map(async (apiVersion) => {
        try {
          const [doc, resources] = await Promise.all([
            this.fetcher.document(apiVersion),
            this.fetcher.resources(apiVersion),
          ]);
          if (doc === undefined || resources === undefined) this.loaded.set(apiVersion, null);
          else this.loaded.set(apiVersion, { components: documentComponents(doc), resources });
        } catch (err) {
          this.failures.set(apiVersion, err instanceof Error ? err.message : String(err));
        }
      }),
    );
  }

  /** Forgets loaded group-versions (all, or one), e.g. after a CRD changed; the next prepare reloads them. */
  invalidate(apiVersion?: string): void {
    if (apiVersion === undefined) {
      this.loaded.clear();
      this.failures.clear();
    } else {
      this.loaded.delete(apiVersion);
      this.failures.delete(apiVersion);
    }
  }

  failure(apiVersion: string): string | undefined {
    const f = this.failures.get(apiVersion);
    return f === undefined ? undefined : `cannot read ${apiVersion} from ${this.server}: ${f}`;
  }

  lookup(group: string, version: string, kind: string): ResolvedSchema | undefined {
    const apiVersion = joinApiVersion(group, version);
    const gv = this.loaded.get(apiVersion);
    if (!gv) return undefined;
    const resource = gv.resources.find((r) => r.kind === kind && !r.plural.includes('/'));
    if (!resource) return undefined;
    const name = findKindComponent(gv.components, group, version, kind);
    const schema: OpenAPISchema = name
      ? (gv.components[name] as OpenAPISchema)
      : { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
    return {
      group,
      version,
      kind,
      schema,
      components: gv.components,
      namespaced: resource.namespaced,
      plural: resource.plural,
      source: 'cluster',
      origin: this.server,
    };
  }

  versionsOf(kind: string): string[] {
    const out: string[] = [];
    for (const [apiVersion, gv] of this.loaded) {
      if (gv?.resources.some((r) => r.kind === kind)) out.push(apiVersion);
    }
    return out;
  }
}
