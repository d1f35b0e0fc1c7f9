/** The ServiceAccount a Graph runs as (design/graph.md §24): `spec.serviceAccountName`, else `default`. */
import type { KubeObject } from '../../kube/index.ts';

export function serviceAccountNameOf(graph: KubeObject): string {
  const spec = graph.spec as { serviceAccountName?: unknown } | undefined;
  return typeof spec?.serviceAccountName === 'string' && spec.serviceAccountName !== ''
    ? spec.serviceAccountName
    : 'default';
}
