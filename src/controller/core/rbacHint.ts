/**
 * What to grant when a Graph's ServiceAccount is refused (a 403 on a write, a refused read check):
 * the Role and RoleBinding — ClusterRole and ClusterRoleBinding at the cluster scope — as kubectl
 * commands that run as printed. A Graph without `spec.serviceAccountName` acts as its namespace's
 * `default` ServiceAccount, which a new user rarely knows, so the hint says so.
 */

/** A ServiceAccount refused access to `resources` (plural, `.group` for a non-core group). */
export interface RefusedAccess {
  saNamespace: string;
  sa: string;
  resources: readonly string[];
  /** Absent: the cluster scope. */
  namespace?: string;
  /** Only read access is needed (a ref's read elsewhere): `get,list,watch`, not the write verbs too. */
  readOnly?: boolean;
}

export function grantHint(r: RefusedAccess): string {
  const resources = [...new Set(r.resources)].sort();
  const first = (resources[0] ?? 'objects').split('.')[0];
  const role = `kgraph-${r.sa}-${first}`;
  const verbs = `--verb=get,list,watch${r.readOnly ? '' : ',create,update,patch,delete'}`;
  const subject = `--serviceaccount=${r.saNamespace}:${r.sa}`;
  const res = `--resource=${resources.join(',')}`;
  const grant = r.namespace
    ? `kubectl create role ${role} -n ${r.namespace} ${verbs} ${res} && kubectl create rolebinding ${role} -n ${r.namespace} --role=${role} ${subject}`
    : `kubectl create clusterrole ${role} ${verbs} ${res} && kubectl create clusterrolebinding ${role} --clusterrole=${role} ${subject}`;
  const who =
    r.sa === 'default'
      ? `the Graph sets no spec.serviceAccountName, so it acts as ServiceAccount ${r.saNamespace}/default`
      : `the Graph acts as ServiceAccount ${r.saNamespace}/${r.sa}`;
  return `${who}; a ${r.namespace ? 'RoleBinding' : 'ClusterRoleBinding'} grants it: ${grant} (or set spec.serviceAccountName to a ServiceAccount that may)`;
}

/** `system:serviceaccount:NS:NAME` → its namespace and name. */
export function serviceAccountOf(user: string): { saNamespace: string; sa: string } | undefined {
  const m = /^system:serviceaccount:([^:]+):([^:]+)$/.exec(user);
  return m ? { saNamespace: m[1]!, sa: m[2]! } : undefined;
}

/**
 * The hint for an API server's 403 message (`User "system:serviceaccount:…" cannot patch resource
 * "configmaps" in API group "" in the namespace "ns"`), or undefined for another shape.
 */
export function forbiddenMessageHint(message: string): string | undefined {
  const m =
    /User "([^"]+)" cannot \w+ resource "([^"]+)" in API group "([^"]*)" (?:in the namespace "([^"]+)"|at the cluster scope)/.exec(
      message,
    );
  const who = m ? serviceAccountOf(m[1]!) : undefined;
  if (!m || !who) return undefined;
  return grantHint({
    ...who,
    resources: [m[3] ? `${m[2]}.${m[3]}` : m[2]!],
    ...(m[4] ? { namespace: m[4] } : {}),
  });
}
