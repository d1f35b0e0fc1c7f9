/**
 * Scope-only table of kgraph's own kinds (kro Graph and ResourceGraphDefinition, krop
 * ResourceGraphDefinition — not in the Kubernetes bundle, yet Graphs stamp child Graphs, design/graph.md §14.2) and
 * of common built-in Kubernetes kinds. No schemas: expressions on kinds resolved only here are not
 * type-checked. `kgraph validate` consults it last, after CRD files, the cluster and the offline
 * bundle (which carries the real schemas); it also serves callers that need scopes without loading
 * the bundle (benchmarks, quick tools).
 */
import { type KindInfo, type KindResolver, tableResolver } from './kinds.ts';
import { KRO_API_VERSION } from './kroApi.ts';

const N = 'Namespaced' as const;
const C = 'Cluster' as const;

const KINDS: [apiVersion: string, kind: string, scope: 'Namespaced' | 'Cluster', resource: string][] = [
  [KRO_API_VERSION, 'Graph', N, 'graphs'],
  [KRO_API_VERSION, 'ResourceGraphDefinition', C, 'resourcegraphdefinitions'],
  ['krop.opendefense.cloud/v1alpha1', 'ResourceGraphDefinition', C, 'resourcegraphdefinitions'],
  ['v1', 'ConfigMap', N, 'configmaps'],
  ['v1', 'Secret', N, 'secrets'],
  ['v1', 'Service', N, 'services'],
  ['v1', 'ServiceAccount', N, 'serviceaccounts'],
  ['v1', 'Pod', N, 'pods'],
  ['v1', 'PersistentVolumeClaim', N, 'persistentvolumeclaims'],
  ['v1', 'ResourceQuota', N, 'resourcequotas'],
  ['v1', 'LimitRange', N, 'limitranges'],
  ['v1', 'Namespace', C, 'namespaces'],
  ['v1', 'Node', C, 'nodes'],
  ['v1', 'PersistentVolume', C, 'persistentvolumes'],
  ['apps/v1', 'Deployment', N, 'deployments'],
  ['apps/v1', 'StatefulSet', N, 'statefulsets'],
  ['apps/v1', 'DaemonSet', N, 'daemonsets'],
  ['batch/v1', 'Job', N, 'jobs'],
  ['batch/v1', 'CronJob', N, 'cronjobs'],
  ['networking.k8s.io/v1', 'Ingress', N, 'ingresses'],
  ['networking.k8s.io/v1', 'NetworkPolicy', N, 'networkpolicies'],
  ['rbac.authorization.k8s.io/v1', 'Role', N, 'roles'],
  ['rbac.authorization.k8s.io/v1', 'RoleBinding', N, 'rolebindings'],
  ['rbac.authorization.k8s.io/v1', 'ClusterRole', C, 'clusterroles'],
  ['rbac.authorization.k8s.io/v1', 'ClusterRoleBinding', C, 'clusterrolebindings'],
  ['apiextensions.k8s.io/v1', 'CustomResourceDefinition', C, 'customresourcedefinitions'],
  ['storage.k8s.io/v1', 'StorageClass', C, 'storageclasses'],
];

export function builtinKindResolver(): KindResolver {
  const table: Record<string, KindInfo> = {};
  for (const [apiVersion, kind, scope, resource] of KINDS)
    table[`${apiVersion}/${kind}`] = { scope, resource };
  return tableResolver('built-in kind scopes', table);
}
