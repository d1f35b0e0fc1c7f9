/**
 * A live schema fetcher for the schema layer's LiveSchemaSource: OpenAPI v3 documents through OpenApiV3
 * (disk-cached per server under ~/.cache/kgraph/openapi/<server-hash>/, documents content-addressed by
 * their `?hash=` URL) and scope/plural through discovery. It lives here, not in src/schema, so the pure
 * layers never import kube; the result satisfies schema's `LiveSchemaFetcher` structurally.
 */
import { Discovery, type ResourceInfo } from './discovery.ts';
import { defaultOpenApiCacheDir, OpenApiV3 } from './openapi.ts';
import type { RestClient } from './rest.ts';

export interface KubeLiveOptions {
  /** Disk cache directory; default per server. `false` disables the disk cache. */
  cacheDir?: string | false;
  /** Keep documents slim in memory (OpenApiOptions.slim). */
  slim?: boolean;
}

export interface KubeLive {
  fetcher: {
    document(apiVersion: string): Promise<unknown>;
    resources(apiVersion: string): Promise<ResourceInfo[] | undefined>;
  };
  server: string;
  /** Forget the OpenAPI index and discovery (after CRDs change). */
  invalidate(): void;
}

export function kubeLiveFetcher(client: RestClient, server: string, options: KubeLiveOptions = {}): KubeLive {
  const cacheDir =
    options.cacheDir === false ? undefined : (options.cacheDir ?? defaultOpenApiCacheDir(server));
  const openapi = new OpenApiV3(client, {
    ...(cacheDir ? { cacheDir } : {}),
    ...(options.slim ? { slim: true } : {}),
  });
  const discovery = new Discovery(client);
  return {
    server,
    fetcher: {
      document: (apiVersion) => openapi.document(apiVersion),
      resources: (apiVersion) => discovery.resources(apiVersion),
    },
    invalidate() {
      openapi.invalidate();
      discovery.invalidate();
    },
  };
}
