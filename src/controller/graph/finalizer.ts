/**
 * Adds or removes the Graph finalizer with a merge patch preconditioned on the resourceVersion, so a
 * finalizer another controller adds at the same time is never lost; on a stale read it re-reads once.
 */
import { applyToExisting, isApiError, type KubeObject, type RestClient } from '../../kube/index.ts';
import { CONTROLLER_MANAGER } from '../core/names.ts';
import { GRAPH_FINALIZER } from './names.ts';

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

/**
 * Adds the Graph finalizer by server-side apply of the finalizer alone (finalizers are a set: other
 * controllers' entries stay), conditioned on the Graph's UID instead of its resourceVersion — so it can
 * go out beside the write-ahead status (which moves the resourceVersion) in one round trip, and never
 * recreates a Graph deleted since the cache copy. Undefined when the Graph is gone.
 */
export async function addFinalizer(client: RestClient, graph: KubeObject): Promise<KubeObject | undefined> {
  return applyToExisting(
    client,
    {
      apiVersion: graph.apiVersion,
      kind: graph.kind,
      metadata: {
        name: graph.metadata.name,
        ...(graph.metadata.namespace ? { namespace: graph.metadata.namespace } : {}),
        finalizers: [GRAPH_FINALIZER],
      },
    },
    graph.metadata.uid,
    { fieldManager: CONTROLLER_MANAGER, force: true },
  );
}
