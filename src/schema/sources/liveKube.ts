/**
 * Wires the live schema source to src/kube: OpenAPI v3 documents through OpenApiV3 (disk-cached per
 * server under ~/.cache/kgraph/openapi/<server-hash>/, documents are content-addressed by their
 * `?hash=` URL) and scope/plural through discovery. The only schema module that imports kube.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { Discovery } from '../../kube/discovery.ts';
import { OpenApiV3 } from '../../kube/openapi.ts';
import { RestClient } from '../../kube/rest.ts';
import { defaultOpenApiCacheDir, type LiveSchemaFetcher } from './live.ts';

export interface KubeLiveOptions {
  /** Disk cache directory; default per server. `false` disables the disk cache. */
  cacheDir?: string | false;
}

export interface KubeLive {
  fetcher: LiveSchemaFetcher;
  server: string;
  /** Forget the OpenAPI index and discovery (after CRDs change). */
  invalidate(): void;
}

export function kubeLiveFetcher(client: RestClient, server: string, options: KubeLiveOptions = {}): KubeLive {
  const cacheDir =
    options.cacheDir === false ? undefined : (options.cacheDir ?? defaultOpenApiCacheDir(server));
  const openapi = new OpenApiV3(client, cacheDir ? { cacheDir } : {});
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

/** The same, from a loaded KubeConfig (`--kubeconfig`). */
export function kubeLiveFromConfig(kc: KubeConfig, options: KubeLiveOptions = {}): KubeLive {
  const server = kc.getCurrentCluster()?.server ?? 'the cluster';
  return kubeLiveFetcher(new RestClient(kc), server, options);
}
