/**
 * What `kgraph get` shows for an RGD instance: each resource node's state as the controller's engine
 * sees it right now (evaluated against the cluster through the same informer caches, read-only) with the
 * children it owns. Writes nothing.
 */
import type { KubeObject, RestClient } from '../../kube/index.ts';
import { evaluate } from '../../runtime/evaluate.ts';
import type { EvaluationResult } from '../../runtime/types.ts';
import { GraphCompiler } from '../core/graphCompiler.ts';
import { LABEL_NODE_ID } from '../core/names.ts';
import { newInterest, WatchSet } from '../core/watches.ts';
import { readInventory } from './applyset.ts';
import { type Child, GroupKindVersions, listChildren } from './children.ts';
import { applySetId, LABEL_APPLYSET_PART_OF } from './names.ts';

export interface NodeView {
  id: string;
  state: string;
  reason?: string;
  children: { apiVersion: string; kind: string; namespace?: string; name: string; deleting: boolean }[];
}

export interface InstanceView {
  instance: KubeObject;
  nodes: NodeView[];
  /** Children no current node claims (about to be pruned). */
  orphans: Child[];
}

/** Evaluates `inst` (an instance of `rgd`) against the cluster and groups its children by node. */
export async function inspectInstance(
  client: RestClient,
  rgd: KubeObject,
  inst: KubeObject,
): Promise<InstanceView> {
  const compiler = new GraphCompiler(client);
  const outcome = await compiler.compile(rgd as unknown as Record<string, unknown>);
  const schema = (rgd.spec as { schema?: { kind?: string; group?: string; scope?: string } } | undefined)
    ?.schema;
  const namespaced = schema?.scope !== 'Cluster';
  const ns = namespaced ? (inst.metadata.namespace ?? '') : '';
  const watches = new WatchSet(client, { onEvent: () => undefined, indexLabels: [LABEL_APPLYSET_PART_OF] });
  try {
    let result: EvaluationResult | undefined;
    if (outcome.compiled) {
      for (let pass = 0; pass < 6; pass++) {
        const interest = newInterest();
        result = evaluate(outcome.compiled, {
          instance: inst as unknown as Record<string, unknown>,
          observed: watches.view(interest),
          ...(ns ? { namespace: ns } : {}),
        });
        if (interest.missing.size === 0) break;
        await Promise.all(
          [...interest.missing.values()].map((m) => watches.prepare(m.apiVersion, m.kind, [m.namespace])),
        );
      }
    }
    const id = applySetId(
      inst.metadata.name ?? '',
      ns,
      schema?.kind ?? inst.kind,
      schema?.group ?? 'kro.run',
    );
    const children = await listChildren(
      watches,
      new GroupKindVersions(client.discovery),
      id,
      readInventory(inst.metadata.annotations),
      ns,
    );
    const byNode = (nodeId: string) =>
      children
        .filter((c) => c.obj.metadata.labels?.[LABEL_NODE_ID] === nodeId)
        .map((c) => ({
          apiVersion: c.apiVersion,
          kind: c.kind,
          ...(c.namespace ? { namespace: c.namespace } : {}),
          name: c.name,
          deleting: c.obj.metadata.deletionTimestamp !== undefined,
        }));
    const nodes: NodeView[] = (result?.nodes ?? []).map((n) => ({
      id: n.path,
      state: n.state,
      ...(n.reason ? { reason: n.reason } : {}),
      children: byNode(n.path),
    }));
    const claimed = new Set(nodes.map((n) => n.id));
    const orphans = children.filter((c) => !claimed.has(c.obj.metadata.labels?.[LABEL_NODE_ID] ?? ''));
    return { instance: inst, nodes, orphans };
  } finally {
    await watches.stop();
  }
}
