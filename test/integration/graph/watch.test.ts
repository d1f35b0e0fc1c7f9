// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * The `watch` node (kro KREP-024) on the real control plane: an ingress fan-in in the style of kro's
 * Graph example. The Ingress follows the watched set of Services (a new match, a relabel out, a
 * deletion each reconcile the Graph), the watched Services are never written, and a watch across all
 * namespaces is a `list` the Graph's ServiceAccount must be allowed cluster-wide (ReadForbidden otherwise).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { GraphController } from '../../../src/controller/graph/controller.ts';
import type { KubeObject, RestClient } from '../../../src/kube/index.ts';
import {
  applyGraph,
  cm,
  conditionOf,
  controllerFixture,
  eventually,
  graph,
  stopController,
  waitCondition,
} from './support.ts';

function service(ns: string, name: string, labels: Record<string, string>, port = 80): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace: ns, labels },
    spec: { ports: [{ port }], selector: { app: name } },
  };
}

const RULES =
  '${exposed.map(s, {"host": s.metadata.name + ".example.test", "http": {"paths": [{"path": "/", "pathType": "Prefix", "backend": {"service": {"name": s.metadata.name, "port": {"number": s.spec.ports[0].port}}}}]}})}';

describe('watch node: ingress fan-in', () => {
  let client: RestClient;
  let ns: string;
  let controller: GraphController;

  before(async () => {
    ({ client, ns, controller } = await controllerFixture('watch'));
  });
  after(async () => {
    await stopController(controller);
  });

  async function hosts(): Promise<string[] | undefined> {
    const ing = await client.getOrUndefined({
      apiVersion: 'networking.k8s.io/v1',
      kind: 'Ingress',
      namespace: ns,
      name: 'fan-in',
    });
    if (!ing) return undefined;
    const rules = ((ing.spec as { rules?: { host: string }[] }).rules ?? []).map((r) => r.host);
    return rules.sort();
  }

  async function waitHosts(expected: string[]): Promise<void> {
    await eventually(
      `Ingress hosts ${expected.join(',')}`,
      async () => {
        const h = await hosts();
        return h && JSON.stringify(h) === JSON.stringify(expected) ? h : undefined;
      },
      45_000,
    );
  }

  it('follows the watched set and never writes what it watches', async () => {
    await client.create(service(ns, 'shop', { expose: 'true' }, 8080));
    await client.create(service(ns, 'blog', { expose: 'true' }));
    await client.create(service(ns, 'admin', { expose: 'false' }));
    await applyGraph(
      client,
      graph(ns, 'fan-in', [
        {
          id: 'exposed',
          watch: {
            apiVersion: 'v1',
            kind: 'Service',
            namespace: ns,
            selector: { matchLabels: { expose: 'true' } },
          },
        },
        {
          id: 'ingress',
          template: {
            apiVersion: 'networking.k8s.io/v1',
            kind: 'Ingress',
            metadata: { name: 'fan-in' },
            spec: { rules: RULES },
          },
        },
      ]),
    );
    const g = await waitCondition(client, ns, 'fan-in', 'Ready', 'True', undefined, 45_000);
    await waitHosts(['blog.example.test', 'shop.example.test']);
    const managed = (g.status as { managedResources?: { nodeID: string; kind: string }[] }).managedResources;
    assert.deepEqual(
      managed?.map((m) => `${m.nodeID}/${m.kind}`),
      ['ingress/Ingress'],
      'only the template is a managed resource',
    );

    // A new match: labelling admin adds its route.
    await client.apply(
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'admin', namespace: ns, labels: { expose: 'true' } },
      },
      { fieldManager: 'test', force: true },
    );
    await waitHosts(['admin.example.test', 'blog.example.test', 'shop.example.test']);

    // A relabel out and a deletion: both routes go.
    await client.apply(
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'blog', namespace: ns, labels: { expose: 'no' } },
      },
      { fieldManager: 'test', force: true },
    );
    await client.delete({ apiVersion: 'v1', kind: 'Service', namespace: ns, name: 'shop' });
    await waitHosts(['admin.example.test']);

    // Read-only: no watched Service carries a Graph label, a Graph field manager or an owner.
    for (const name of ['admin', 'blog']) {
      const s = await client.get({ apiVersion: 'v1', kind: 'Service', namespace: ns, name });
      const labels = Object.keys(s.metadata.labels ?? {});
      assert.ok(!labels.some((l) => l.startsWith('kro.run/')), `${name} labels ${labels.join(',')}`);
      const managers = (s.metadata.managedFields ?? []).map((m) => m.manager ?? '');
      assert.ok(
        !managers.some((m) => m.startsWith('kro-graphengine')),
        `${name} managers ${managers.join(',')}`,
      );
      assert.equal(s.metadata.ownerReferences, undefined);
    }
  });

  it('a watch across all namespaces needs list cluster-wide: refused for a namespace-bound ServiceAccount', async () => {
    await applyGraph(
      client,
      graph(ns, 'everywhere', [
        {
          id: 'all',
          watch: { apiVersion: 'v1', kind: 'Service', selector: { matchLabels: { expose: 'true' } } },
        },
        {
          id: 'out',
          template: cm('everywhere', { n: '${string(all.size())}' }),
        },
      ]),
    );
    const g = await waitCondition(
      client,
      ns,
      'everywhere',
      'ResourcesConverged',
      'False',
      'ReadForbidden',
      45_000,
    );
    const message = conditionOf(g, 'ResourcesConverged')?.message ?? '';
    assert.match(message, /node all: system:serviceaccount:[^ ]+:default may not list services/);
    const out = await client.getOrUndefined({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace: ns,
      name: 'everywhere',
    });
    assert.equal(out, undefined, 'nothing derived from a refused read is written');
  });
});
