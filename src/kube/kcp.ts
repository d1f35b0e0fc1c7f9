/**
 * Raw kcp REST helpers (kcp v0.30, `apis.kcp.io`): clients for other URLs of the same kcp (a logical
 * cluster's `/clusters/<name>` path, an APIExport's virtual workspace), the endpoint slice of an export,
 * and the logical cluster an object read through a wildcard request belongs to. Types are the few
 * fields kgraph reads; everything else passes through as JSON.
 */
import { KubeConfig } from './kubeconfig.ts';
import { RestClient, type RestClientOptions } from './rest.ts';
import type { KubeObject } from './types.ts';

export const APIS_KCP_GROUP = 'apis.kcp.io';
export const APIS_KCP_V1ALPHA1 = `${APIS_KCP_GROUP}/v1alpha1`;
export const APIS_KCP_V1ALPHA2 = `${APIS_KCP_GROUP}/v1alpha2`;
/** The annotation kcp puts on every object: the logical cluster it lives in. */
export const KCP_CLUSTER_ANNOTATION = 'kcp.io/cluster';

/**
 * API groups kcp serves in every workspace without an APIExport: their permission claims carry an empty
 * identity hash (kcp's built-in claimable APIs, plus `apis.kcp.io` itself).
 */
export const KCP_BUILTIN_GROUPS: ReadonlySet<string> = new Set([
  '',
  'rbac.authorization.k8s.io',
  'certificates.k8s.io',
  'coordination.k8s.io',
  'admissionregistration.k8s.io',
  'events.k8s.io',
  'apiextensions.k8s.io',
  'authorization.k8s.io',
  'core.kcp.io',
  APIS_KCP_GROUP,
]);

/** A client with the credentials of `base`, talking to `server` (another path of the same kcp). */
export function clientAt(base: RestClient, server: string, opts: RestClientOptions = {}): RestClient {
  const src = base.kubeConfig;
  const cluster = src.getCurrentCluster();
  const user = src.getCurrentUser();
  if (!cluster || !user) throw new Error('the kubeconfig has no current cluster or user');
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ ...cluster, name: 'kcp', server: server.replace(/\/+$/, '') }],
    users: [{ ...user, name: 'kcp-user' }],
    contexts: [{ name: 'kcp', cluster: 'kcp', user: 'kcp-user' }],
    currentContext: 'kcp',
  });
  return new RestClient(kc, opts);
}

/** The logical cluster of an object read through kcp (wildcard lists mix many). */
export function clusterOf(o: KubeObject): string {
  return o.metadata.annotations?.[KCP_CLUSTER_ANNOTATION] ?? '';
}

/**
 * The virtual-workspace URLs of an export, from its APIExportEndpointSlice (kcp creates one per
 * APIExport, same name, same workspace). Empty until a consumer binds the export ("bind first").
 */
export async function exportEndpointURLs(provider: RestClient, exportName: string): Promise<string[]> {
  const slice = await provider.getOrUndefined({
    apiVersion: APIS_KCP_V1ALPHA1,
    plural: 'apiexportendpointslices',
    name: exportName,
  });
  const endpoints = (slice?.status as { endpoints?: { url?: unknown }[] } | undefined)?.endpoints ?? [];
  return endpoints.map((e) => (typeof e.url === 'string' ? e.url : '')).filter((u) => u !== '');
}

/** A permission claim of an APIExport / APIBinding (v1alpha2). */
export interface KcpPermissionClaim {
  group?: string;
  resource: string;
  verbs?: string[];
  identityHash?: string;
}

/** An APIBinding's claim decision (v1alpha2 `spec.permissionClaims[]`). */
export interface KcpAcceptableClaim extends KcpPermissionClaim {
  state?: 'Accepted' | 'Rejected';
  selector?: { matchAll?: boolean; matchLabels?: Record<string, string> };
}

export interface KcpBindingView {
  name: string;
  cluster: string;
  exportPath: string;
  exportName: string;
  /** The logical cluster (name, not path) of the export. */
  exportCluster: string;
  phase: string;
  claims: KcpAcceptableClaim[];
  exportClaims: KcpPermissionClaim[];
  boundResources: { group: string; resource: string; identityHash: string }[];
}

/** The fields of a v1alpha2 APIBinding kgraph reads. */
export function bindingView(o: KubeObject): KcpBindingView {
  const spec = (o.spec ?? {}) as {
    reference?: { export?: { path?: string; name?: string } };
    permissionClaims?: KcpAcceptableClaim[];
  };
  const status = (o.status ?? {}) as {
    apiExportClusterName?: string;
    phase?: string;
    exportPermissionClaims?: KcpPermissionClaim[];
    boundResources?: { group?: string; resource?: string; schema?: { identityHash?: string } }[];
  };
  return {
    name: o.metadata.name ?? '',
    cluster: clusterOf(o),
    exportPath: spec.reference?.export?.path ?? '',
    exportName: spec.reference?.export?.name ?? '',
    exportCluster: status.apiExportClusterName ?? '',
    phase: status.phase ?? '',
    claims: spec.permissionClaims ?? [],
    exportClaims: status.exportPermissionClaims ?? [],
    boundResources: (status.boundResources ?? []).map((r) => ({
      group: r.group ?? '',
      resource: r.resource ?? '',
      identityHash: r.schema?.identityHash ?? '',
    })),
  };
}
