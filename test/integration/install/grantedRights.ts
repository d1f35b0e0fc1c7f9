/**
 * What an identity may do, as the API server answers a SelfSubjectRulesReview, flattened to one line per
 * right (`<scope> <group>/<resource> <verb>`) so that two lists compare line by line. Rules a bare
 * ServiceAccount already holds (the API server's defaults for every authenticated user) are left out:
 * what stays is what the chart grants.
 */
import { readFileSync } from 'node:fs';
import type { RestClient } from '../../../src/kube/rest.ts';

interface ResourceRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
}

/** The flattened resource rules of the client's identity in `namespace` (cluster-wide rules included). */
export async function rulesIn(client: RestClient, namespace: string): Promise<Set<string>> {
  const review = (await client.request({
    method: 'POST',
    path: '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews',
    body: {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectRulesReview',
      spec: { namespace },
    },
  })) as { status: { resourceRules?: ResourceRule[]; incomplete?: boolean; evaluationError?: string } };
  if (review.status.incomplete)
    throw new Error(`the rules review is incomplete: ${review.status.evaluationError ?? ''}`);
  const out = new Set<string>();
  for (const r of review.status.resourceRules ?? [])
    for (const g of r.apiGroups ?? [''])
      for (const res of r.resources ?? [])
        for (const v of r.verbs) {
          const names = r.resourceNames?.length ? ` [${[...r.resourceNames].sort().join(',')}]` : '';
          out.add(`${g === '' ? 'core' : g}/${res} ${v}${names}`);
        }
  return out;
}

/**
 * The chart's grants: the rules in `namespace` (scope `namespace`) beyond the cluster-wide ones, and the
 * cluster-wide ones (seen from a namespace where the chart binds no Role, scope `cluster`), each minus
 * what a bare ServiceAccount holds there.
 */
export async function grantedRights(
  subject: RestClient,
  bare: RestClient,
  namespace: string,
  elsewhere: string,
): Promise<string[]> {
  const [inNs, cluster, bareNs, bareCluster] = await Promise.all([
    rulesIn(subject, namespace),
    rulesIn(subject, elsewhere),
    rulesIn(bare, namespace),
    rulesIn(bare, elsewhere),
  ]);
  const lines: string[] = [];
  for (const r of cluster) if (!bareCluster.has(r)) lines.push(`cluster ${r}`);
  for (const r of inNs) if (!cluster.has(r) && !bareNs.has(r)) lines.push(`${namespace} ${r}`);
  return lines.sort();
}

/** The checked-in list: one right a line, `#` comments and blank lines ignored. */
export function rightsList(file: string): string[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .map((l) => l.replace(/#.*/, '').trim().replace(/\s+/g, ' '))
    .filter((l) => l !== '')
    .sort();
}
