/**
 * Adds or removes the Graph finalizer with a merge patch preconditioned on the resourceVersion, so a
 * finalizer another controller adds at the same time is never lost; on a stale read it re-reads once.
 */
import { isApiError, type KubeObject, type RestClient } from '../kube/index.ts';
import { CONTROLLER_MANAGER, GRAPH_FINALIZER } from './names.ts';

export async function setFinalizer(
  client: RestClient,
  graph: KubeObject,
  present: boolean,
): Promise<KubeObject | undefined> {
  const target = {
    apiVersion: graph.apiVersion,
    kind: graph.kind,
    namespace: graph.metadata.namespace,
    name: graph.metadata.name,
  };
  let current: KubeObject | undefined = graph;
  for (let attempt = 0; attempt < 3 && current; attempt++) {
    const has = (current.metadata.finalizers ?? []).includes(GRAPH_FINALIZER);
    if (has === present) return current;
    const finalizers = present
      ? [...(current.metadata.finalizers ?? []), GRAPH_FINALIZER]
      : (current.metadata.finalizers ?? []).filter((f) => f !== GRAPH_FINALIZER);
    try {
      return await client.patch(
        target,
        { metadata: { finalizers, resourceVersion: current.metadata.resourceVersion } },
        { type: 'merge', fieldManager: CONTROLLER_MANAGER },
      );
    } catch (e) {
      if (isApiError(e) && e.code === 404) return undefined;
      if (!(isApiError(e) && e.code === 409)) throw e;
      current = await client.getOrUndefined(target);
    }
  }
  if (!current) return undefined;
  throw new Error(`could not ${present ? 'add' : 'remove'} the finalizer of Graph ${graph.metadata.name}`);
}
