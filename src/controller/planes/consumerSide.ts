/**
 * What a consumer does on its own cluster to let kgraph in (docs/planes.md steps 3–4), for `kgraph up
 * --planes` and the tests: a ServiceAccount with a token-based kubeconfig, and bindings of the generated
 * roles to it. kgraph itself never creates RBAC in a consumer cluster (design/planes.md §10.2).
 */

import type { KubeObject, RestClient } from '../../kube/index.ts';
import { KubeConfig } from '../../kube/kubeconfig.ts';
import { bindingName, roleBindings } from './claims.ts';

const FM = 'kgraph-consumer-setup';

export interface Subject {
  namespace: string;
  name: string;
}

/** Creates the ServiceAccount (idempotent) and returns a kubeconfig holding a token for it. */
export async function serviceAccountKubeconfig(
  admin: RestClient,
  sa: Subject,
  expirationSeconds = 86_400,
): Promise<string> {
  await admin.apply(
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: sa.namespace } },
    { fieldManager: FM },
  );
  await admin.apply(
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: sa.name, namespace: sa.namespace } },
    { fieldManager: FM },
  );
  const tr = (await admin.request({
    method: 'POST',
    path: `/api/v1/namespaces/${sa.namespace}/serviceaccounts/${sa.name}/token`,
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds } },
  })) as { status: { token: string } };
  const cluster = admin.kubeConfig.getCurrentCluster();
  if (!cluster) throw new Error('the admin kubeconfig has no current cluster');
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ ...cluster, name: 'consumer' }],
    users: [{ name: sa.name, token: tr.status.token }],
    contexts: [{ name: sa.name, cluster: 'consumer', user: sa.name }],
    currentContext: sa.name,
  });
  return kc.exportConfig();
}

/** The binding name of a generated role (`:` is not allowed in every tool's names). */
export { bindingName };

/** Binds a ClusterRole to the subject cluster-wide, or with RoleBindings in `namespaces`. */
export async function bindRole(
  admin: RestClient,
  role: string,
  sa: Subject,
  namespaces?: readonly string[],
): Promise<void> {
  const bindings = roleBindings(role, { kind: 'ServiceAccount', ...sa }, namespaces);
  for (const b of bindings) await admin.apply(b as unknown as KubeObject, { fieldManager: FM, force: true });
}
