/**
 * Permission claims (design/planes.md §10.1) and the two generated ClusterRoles (design/planes.md §10.2) of a blueprint. A claim
 * is one GroupResource of the consumer plane with the verbs kgraph needs there; a GR both written and
 * read gets one claim with the union of verbs (design/planes.md §18.5). Pure.
 */
import type { CompiledGraph } from '../../graph/model.ts';
import { READ_VERBS, WRITE_VERBS } from './kropApi.ts';

export interface Claim {
  group: string;
  resource: string;
  verbs: string[];
  scope: 'Namespaced' | 'Cluster';
}

/** A claim with the type it was derived from (for the discovery check in consumer clusters, design/planes.md §10.5). */
export interface TypedClaim extends Claim {
  apiVersion: string;
  kind: string;
}

/** The claim as published in the blueprint status. */
export function publishedClaim(c: Claim): Claim {
  return { group: c.group, resource: c.resource, verbs: [...c.verbs], scope: c.scope };
}

export interface ClaimProblem {
  node: string;
  reason: 'ClaimTypeUnresolved' | 'BuildFailed';
  message: string;
}

const VERB_ORDER: readonly string[] = WRITE_VERBS;

/** Claims of the consumer-target nodes; problems for nodes whose GroupResource is not known statically. */
export function deriveClaims(
  compiled: CompiledGraph,
  instance: { group: string; plural: string; kind?: string },
): { claims: TypedClaim[]; problems: ClaimProblem[] } {
  const byGr = new Map<string, TypedClaim>();
  const problems: ClaimProblem[] = [];
  for (const n of compiled.root.nodes) {
    if (n.target !== 'consumer') continue;
    if (n.kind !== 'template' && n.kind !== 'externalRef') continue;
    if (n.dynamic) {
      problems.push({
        node: n.id,
        reason: 'BuildFailed',
        message: `resource ${n.id}: dynamic types are not supported on the consumer plane`,
      });
      continue;
    }
    const r = n.resolved;
    // The instance's own GroupResource needs no claim (the serving role covers it).
    if (r && r.group === instance.group && (r.resource === instance.plural || r.kind === instance.kind))
      continue;
    if (!r || r.scope === 'unknown' || !r.resource) {
      problems.push({
        node: n.id,
        reason: 'ClaimTypeUnresolved',
        message: `resource ${n.id}: ${r ? `${r.kind} (${r.apiVersion})` : 'its type'} does not resolve in the management cluster`,
      });
      continue;
    }
    const key = `${r.group}/${r.resource}`;
    const verbs = n.kind === 'template' ? WRITE_VERBS : READ_VERBS;
    const c = byGr.get(key) ?? {
      group: r.group,
      resource: r.resource,
      verbs: [],
      scope: r.scope,
      apiVersion: r.apiVersion,
      kind: r.kind,
    };
    c.verbs = VERB_ORDER.filter((v) => c.verbs.includes(v) || verbs.includes(v as never));
    byGr.set(key, c);
  }
  const claims = [...byGr.values()].sort((a, b) =>
    a.group === b.group ? cmp(a.resource, b.resource) : cmp(a.group, b.group),
  );
  return { claims, problems };
}

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

export interface RoleNames {
  serve: string;
  claims: string;
}

export function roleNames(exportName: string): RoleNames {
  return { serve: `kgraph:${exportName}:serve`, claims: `kgraph:${exportName}:claims` };
}

type ClusterRole = {
  apiVersion: 'rbac.authorization.k8s.io/v1';
  kind: 'ClusterRole';
  metadata: { name: string; labels: Record<string, string> };
  rules: { apiGroups: string[]; resources: string[]; verbs: string[]; resourceNames?: string[] }[];
};

/** design/planes.md §10.2: the serving role and the claims role the consumer applies and binds. */
export function generatedRoles(
  exportName: string,
  instance: { group: string; plural: string },
  claims: readonly Claim[],
): ClusterRole[] {
  const names = roleNames(exportName);
  const labels = { 'app.kubernetes.io/part-of': 'kgraph' };
  return [
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: names.serve, labels },
      rules: [
        // RBAC cannot restrict create by name.
        { apiGroups: ['apiextensions.k8s.io'], resources: ['customresourcedefinitions'], verbs: ['create'] },
        {
          apiGroups: ['apiextensions.k8s.io'],
          resources: ['customresourcedefinitions'],
          verbs: ['get', 'update', 'patch'],
          resourceNames: [exportName],
        },
        {
          apiGroups: [instance.group],
          resources: [instance.plural],
          verbs: ['get', 'list', 'watch', 'update', 'patch'],
        },
        {
          apiGroups: [instance.group],
          resources: [`${instance.plural}/status`],
          verbs: ['get', 'update', 'patch'],
        },
        // kgraph: the cluster identity guard reads the kube-system namespace UID (design/planes.md §3.3.2).
        { apiGroups: [''], resources: ['namespaces'], verbs: ['get'], resourceNames: ['kube-system'] },
      ],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: names.claims, labels },
      rules: claims.map((c) => ({ apiGroups: [c.group], resources: [c.resource], verbs: [...c.verbs] })),
    },
  ];
}

/** A subject of the bindings a consumer creates (`ConsumerCluster.status.identity`, or given by hand). */
export interface RbacSubject {
  kind: 'ServiceAccount' | 'User' | 'Group';
  name: string;
  /** ServiceAccounts only. */
  namespace?: string;
}

export const bindingName = (role: string): string => role.replaceAll(':', '-');

type Binding = {
  apiVersion: 'rbac.authorization.k8s.io/v1';
  kind: 'ClusterRoleBinding' | 'RoleBinding';
  metadata: { name: string; namespace?: string };
  roleRef: { apiGroup: 'rbac.authorization.k8s.io'; kind: 'ClusterRole'; name: string };
  subjects: { kind: string; name: string; namespace?: string; apiGroup?: string }[];
};

/** The binding(s) of a generated ClusterRole to a subject: cluster-wide, or RoleBindings in `namespaces`. */
export function roleBindings(role: string, subject: RbacSubject, namespaces?: readonly string[]): Binding[] {
  const subjects = [
    subject.kind === 'ServiceAccount'
      ? { kind: 'ServiceAccount', name: subject.name, namespace: subject.namespace ?? 'default' }
      : { kind: subject.kind, name: subject.name, apiGroup: 'rbac.authorization.k8s.io' },
  ];
  const roleRef = { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role } as const;
  if (namespaces)
    return namespaces.map((ns) => ({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: bindingName(role), namespace: ns },
      roleRef,
      subjects,
    }));
  return [
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: bindingName(role) },
      roleRef,
      subjects,
    },
  ];
}
