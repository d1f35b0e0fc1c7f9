// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * The workload of the comparison with kro: per instance five children — a ConfigMap, a Secret, a
 * ServiceAccount, a ClusterIP Service and a second ConfigMap reading the first through CEL — as a Graph
 * (`graphOf`) and as the plain objects a bare server-side-apply loop writes (`childrenOf`, the same
 * 1,000 objects for 200 instances). Shared by converge.bench.ts, bare-ssa.bench.ts, memory.bench.ts and
 * controller.bench.ts (which uses the wider `fanOutGraphOf`).
 */

import { pool } from '../src/controller/core/apply.ts';
import type { KubeObject, RestClient } from '../src/kube/index.ts';

/** Instance names: `g0`, `g1`, …; children are `<instance>-<role>`. */
export const instanceName = (i: number): string => `g${i}`;

function templates(name: string, derivedFrom: string): Record<string, unknown>[] {
  return [
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${name}-base` }, data: { v: '1' } },
    { apiVersion: 'v1', kind: 'Secret', metadata: { name: `${name}-secret` }, stringData: { token: 'x' } },
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: `${name}-sa` } },
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: `${name}-svc` },
      spec: { type: 'ClusterIP', selector: { app: name }, ports: [{ port: 80, targetPort: 8080 }] },
    },
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: `${name}-derived` },
      data: { from: derivedFrom },
    },
  ];
}

const NODE_IDS = ['base', 'secret', 'sa', 'svc', 'derived'];

/** Instance `i` as a Graph in `namespace`: the derived ConfigMap reads `${base.metadata.name}`. */
export function graphOf(i: number, namespace: string): KubeObject {
  const name = instanceName(i);
  return {
    apiVersion: 'kro.run/v1alpha1',
    kind: 'Graph',
    metadata: { name, namespace },
    spec: {
      nodes: templates(name, '${base.metadata.name}').map((template, k) => ({ id: NODE_IDS[k], template })),
    },
  };
}

/** One Graph `name` whose forEach makes `items` ConfigMaps (a def lists their names); Ready once all exist. */
export function forEachGraphOf(name: string, items: number, namespace: string): KubeObject {
  return {
    apiVersion: 'kro.run/v1alpha1',
    kind: 'Graph',
    metadata: { name, namespace },
    spec: {
      nodes: [
        { id: 'src', def: { names: `\${lists.range(${items}).map(i, "${name}-" + string(i))}` } },
        {
          id: 'maps',
          forEach: [{ name: '${src.names}' }],
          template: {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: '${name}' },
            data: { v: '${name}' },
          },
        },
      ],
    },
  };
}

/** The five objects instance `i` converges to (the derived value already resolved). */
export function childrenOf(i: number, namespace: string): KubeObject[] {
  const name = instanceName(i);
  return templates(name, `${name}-base`).map((t) => ({
    ...t,
    metadata: { ...(t.metadata as Record<string, unknown>), namespace },
  })) as KubeObject[];
}

/**
 * The lower bound: server-side apply of every child of `instances` instances, `inFlight` at a time,
 * no reads, no status. Resolves with the wall time in ms.
 */
export async function bareApplyLoop(
  client: RestClient,
  namespace: string,
  instances: number,
  inFlight: number,
): Promise<number> {
  const objects = Array.from({ length: instances }, (_, i) => childrenOf(i, namespace)).flat();
  const t0 = performance.now();
  await pool(objects, inFlight, async (o) => {
    await client.apply(o, { fieldManager: 'bench-bare', force: true });
  });
  return performance.now() - t0;
}

/**
 * A wider Graph (bench/controller.bench.ts): one def, a base ConfigMap named from it and `leaves`
 * ConfigMaps reading the base (two apply layers).
 */
export function fanOutGraphOf(i: number, namespace: string, leaves = 8): KubeObject {
  const name = instanceName(i);
  return {
    apiVersion: 'kro.run/v1alpha1',
    kind: 'Graph',
    metadata: { name, namespace },
    spec: {
      nodes: [
        { id: 'cfg', def: { prefix: name } },
        {
          id: 'base',
          template: {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: '${cfg.prefix}-base' },
            data: { v: '1' },
          },
        },
        ...Array.from({ length: leaves }, (_, k) => ({
          id: `leaf${k}`,
          template: {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: `\${cfg.prefix}-leaf${k}` },
            data: { from: '${base.metadata.name}' },
          },
        })),
      ],
    },
  };
}

/** A namespace whose `default` ServiceAccount may do anything in it (the Graphs run as it). */
export async function benchNamespace(admin: RestClient, ns: string): Promise<void> {
  await admin.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  await admin.create({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name: 'all', namespace: ns },
    rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }],
  });
  await admin.create({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: 'all', namespace: ns },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'all' },
    subjects: [{ kind: 'ServiceAccount', name: 'default', namespace: ns }],
  });
}

/** Whether a Graph (or instance) object has `Ready=True` for its current generation. */
export function isReady(o: KubeObject): boolean {
  const conds = (o.status as { conditions?: { type: string; status: string; observedGeneration?: number }[] })
    ?.conditions;
  return (conds ?? []).some(
    (c) =>
      c.type === 'Ready' &&
      c.status === 'True' &&
      (c.observedGeneration === undefined || c.observedGeneration === o.metadata.generation),
  );
}
