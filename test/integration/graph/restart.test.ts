// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * Zero writes after a restart: 100 converged Graphs whose children carry what the
 * API server rewrites — Secret `stringData`, resource quantities in every spelling, int-or-string
 * ports, list keys and fields the server defaults, a null — are reconciled by a fresh controller
 * (empty caches, empty memory) without a single write request, asserted on its request counters.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { GraphController } from '../../../src/controller/graph/controller.ts';
import { diffCounts, type KubeObject, type RestClient, WRITE_VERBS } from '../../../src/kube/index.ts';
import { adminClient } from '../../support/kube.ts';
import {
  applyGraph,
  conditionOf,
  eventually,
  graph,
  graphNamespace,
  startController,
  stopController,
} from './support.ts';

const GRAPHS = Number(process.env.KGRAPH_RESTART_GRAPHS ?? 100);

function nodesOf(i: number): unknown[] {
  return [
    {
      id: 'secret',
      template: {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: `s${i}` },
        stringData: { password: `pw-${i}`, 'config.yaml': 'a: 1\n' },
      },
    },
    {
      id: 'app',
      template: {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: `d${i}` },
        spec: {
          replicas: 1,
          selector: { matchLabels: { app: `d${i}` } },
          template: {
            metadata: { labels: { app: `d${i}` } },
            spec: {
              containers: [
                {
                  name: 'main',
                  image: 'registry.example/app:1',
                  ports: [{ containerPort: 8080 }, { name: 'metrics', containerPort: 9090, protocol: 'TCP' }],
                  resources: {
                    limits: { cpu: '1000m', memory: '1024Mi', 'ephemeral-storage': '1000M' },
                    requests: { cpu: 0.5, memory: '0.25Gi', 'ephemeral-storage': '500M' },
                  },
                  env: [{ name: 'PASSWORD_FILE', value: '/etc/secret/password' }],
                },
              ],
            },
          },
          strategy: { rollingUpdate: { maxSurge: '25%', maxUnavailable: 0 } },
        },
      },
    },
    {
      id: 'svc',
      template: {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: `svc${i}` },
        spec: {
          selector: { app: `d${i}` },
          ports: [
            { name: 'web', port: 80, targetPort: 8080 },
            { name: 'named', port: 81, targetPort: 'metrics' },
          ],
        },
      },
    },
    {
      // Reads what the server stored: the multi-pass loop must not spin on it.
      id: 'summary',
      template: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `sum${i}` },
        data: {
          secret: '${secret.metadata.name}',
          cpu: '${string(app.spec.template.spec.containers[0].resources.limits.cpu)}',
          target: '${string(svc.spec.ports[0].targetPort)}',
          empty: '',
        },
      },
    },
  ];
}

describe('zero writes after a controller restart', () => {
  let client: RestClient;
  let ns: string;
  let controller: GraphController | undefined;

  before(async () => {
    client = await adminClient();
    ns = await graphNamespace('gc-restart');
    controller = await startController([ns], { concurrency: 4 });
  });
  after(async () => {
    await stopController(controller);
    // 100 Deployments request 50 CPUs: on the workload plane their pods would fill the simulated
    // nodes for every later test file, so the namespace goes (its Graphs' finalizers may keep it
    // Terminating; the pods go with their Deployments).
    await client.delete(
      { apiVersion: 'v1', kind: 'Namespace', name: ns },
      { propagationPolicy: 'Background' },
    );
  });

  it(`restarting over ${GRAPHS} converged Graphs sends no write request`, async () => {
    for (let i = 0; i < GRAPHS; i++) await applyGraph(client, graph(ns, `g${i}`, nodesOf(i)));
    const ready = async (): Promise<number> => {
      const list = await client.listAll({ apiVersion: 'kro.run/v1alpha1', kind: 'Graph', namespace: ns });
      return list.items.filter((g: KubeObject) => conditionOf(g, 'Ready')?.status === 'True').length;
    };
    await eventually(
      `${GRAPHS} Graphs Ready`,
      async () => ((await ready()) === GRAPHS ? true : undefined),
      120_000,
      500,
    ).catch(async (e) => {
      const g = await client.get({
        apiVersion: 'kro.run/v1alpha1',
        kind: 'Graph',
        namespace: ns,
        name: 'g0',
      });
      throw new Error(`${(e as Error).message}; g0: ${JSON.stringify(g.status)}`);
    });
    const first = controller as GraphController;
    await first.idle(60_000);
    // What the server stored differs from what was applied (the point of the test).
    const stored = await client.get({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: ns, name: 'd0' });
    const c0 = (
      stored.spec as {
        template: { spec: { containers: { resources: { limits: Record<string, string> } }[] } };
      }
    ).template.spec.containers[0];
    assert.deepEqual(c0?.resources.limits, { cpu: '1', memory: '1Gi', 'ephemeral-storage': '1G' });
    const secret = await client.get({ apiVersion: 'v1', kind: 'Secret', namespace: ns, name: 's0' });
    assert.equal(secret.stringData, undefined);

    await stopController(first);
    controller = undefined;
    const second = await startController([ns], { concurrency: 4 });
    controller = second;
    const before = second.client.counters.snapshot();
    await eventually(
      `${GRAPHS} reconciles after the restart`,
      async () => (second.metrics.reconcileCount() >= GRAPHS ? true : undefined),
      120_000,
      200,
    );
    await second.idle(60_000);
    const delta = diffCounts(before, second.client.counters.snapshot());
    for (const v of WRITE_VERBS)
      assert.equal(delta[v], 0, `${v} requests after the restart: ${JSON.stringify(delta)}`);
    assert.equal(
      second.metrics.reconcileCount('converged'),
      second.metrics.reconcileCount(),
      'every reconcile converged',
    );
    process.stdout.write(`# after the restart: ${JSON.stringify(delta)}\n`);
  });
});
