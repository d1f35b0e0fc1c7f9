// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * kro's DeploymentService lifecycle (kro deploymentservice_test.go with its generator), ported: a
 * Deployment and a Service, status fields projected from the Deployment (present, optional and never
 * present), suspension with kro 0.9.0's `disabled` value, and deletion of the suspended instance, which
 * still deletes its children (kro handles deletion before suspension). kro writes the Deployment's status
 * by hand, so this runs on a plane without workload controllers (support.ts).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { KGRAPH_VERSION } from '../../../src/controller/rgd/names.ts';
import type { KubeObject, RestClient } from '../../../src/kube/index.ts';
import {
  applyInstance,
  applyRgd,
  conditionOf,
  eventually,
  getInstance,
  instance,
  rgd,
  waitRgd,
} from '../rgd/support.ts';
import {
  absent,
  deployRef,
  handStatusFixture,
  holdsFor,
  markDeploymentAvailable,
  present,
} from './support.ts';

type Hand = Awaited<ReturnType<typeof handStatusFixture>>;

const deployment = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: '${schema.spec.name}' },
  spec: {
    replicas: '${schema.spec.replicas}',
    selector: { matchLabels: { app: 'deployment' } },
    template: {
      metadata: { labels: { app: 'deployment' } },
      spec: {
        containers: [
          {
            name: '${schema.spec.name}-deployment',
            image: 'nginx',
            ports: [{ containerPort: '${schema.spec.port}' }],
          },
        ],
      },
    },
  },
};
const service = {
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: '${schema.spec.name}' },
  spec: {
    selector: { app: 'deployment' },
    ports: [{ port: '${schema.spec.port}', targetPort: '${schema.spec.port}' }],
  },
};

interface PodSpec {
  replicas?: number;
  template: { spec: { containers: { ports: { containerPort: number }[] }[] } };
}

describe('kro conformance: DeploymentService lifecycle', () => {
  let h: Hand;
  let client: RestClient;

  before(async () => {
    h = await handStatusFixture('kro-depsvc');
    client = h.client;
  });
  after(() => h.stop());

  it('handles the complete lifecycle of the RGD and an instance, suspension and deletion included', async () => {
    const rgdName = 'test-deployment-service';
    const name = 'test-instance';
    const kind = 'DeploymentService';
    await applyRgd(
      client,
      rgd(
        h,
        rgdName,
        {
          kind,
          spec: { name: 'string', port: 'integer | default=80', replicas: 'integer | default=1' },
          status: {
            deploymentConditions: '${deployment.status.conditions}',
            availableReplicas: '${deployment.status.availableReplicas}',
            available: '${deployment.status.?conditions[0].status}',
            unavailable: '${deployment.status.?conditions[10]}',
          },
        },
        [
          { id: 'deployment', template: deployment },
          { id: 'service', template: service },
        ],
      ),
    );
    const r = await waitRgd(client, rgdName, 'Ready', 'True');
    const st = r.status as { state?: string; topologicalOrder?: string[] };
    assert.equal(st.state, 'Active');
    assert.deepEqual(st.topologicalOrder, ['deployment', 'service']);

    await applyInstance(client, instance(h, kind, name, { name, port: 8080 }));
    const d = await present(client, deployRef(h.ns, name));
    const spec = d.spec as PodSpec;
    assert.equal(spec.template.spec.containers.length, 1);
    assert.equal(spec.template.spec.containers[0]?.ports[0]?.containerPort, 8080);
    assert.equal(spec.replicas, 1);
    await markDeploymentAvailable(client, h.ns, name);

    const svcRef = { apiVersion: 'v1', kind: 'Service', namespace: h.ns, name };
    const svc = await present(client, svcRef);
    const ports = (svc.spec as { ports: { port: number; targetPort: number }[] }).ports;
    assert.equal(ports.length, 1);
    assert.equal(ports[0]?.port, 8080);
    assert.equal(ports[0]?.targetPort, 8080);
    const labels = svc.metadata.labels ?? {};
    assert.equal(labels['kro.run/owned'], 'true');
    // kro writes its own version here; kgraph writes its own (deliberate: the label names the writer).
    assert.equal(labels['kro.run/kro-version'], KGRAPH_VERSION);
    assert.equal(labels['app.kubernetes.io/managed-by'], 'kro');

    // The instance is ready: projected status, the optional field present, the never-present one absent.
    let last: unknown;
    const ready = await eventually('instance ready with projected status', async () => {
      const o = await getInstance(client, h, kind, name);
      last = o?.status;
      const s = o?.status as Record<string, unknown> | undefined;
      const c = conditionOf(o, 'Ready');
      if (!o || !s || c?.status !== 'True' || c.observedGeneration !== o.metadata.generation)
        return undefined;
      return s.availableReplicas === 1 ? o : undefined;
    }).catch((e: Error) => {
      throw new Error(`${e.message}; last status: ${JSON.stringify(last)}`);
    });
    const status = ready.status as Record<string, unknown>;
    assert.ok(Array.isArray(status.deploymentConditions) && status.deploymentConditions.length > 0);
    assert.equal(status.available, 'True');
    assert.equal('unavailable' in status, false);

    // kro 0.9.0's `disabled` suspends the instance: Ready False, ReconciliationSuspended.
    const annotated = (o: KubeObject, replicas?: number): KubeObject =>
      instance(
        h,
        kind,
        name,
        { name, port: 8080, ...(replicas !== undefined ? { replicas } : {}) },
        { annotations: { ...(o.metadata.annotations ?? {}), 'kro.run/reconcile': 'disabled' } },
      );
    await applyInstance(client, annotated(ready));
    await eventually('instance suspended', async () => {
      const c = conditionOf(await getInstance(client, h, kind, name), 'Ready');
      return c?.status === 'False' && c.reason === 'ReconciliationSuspended' ? true : undefined;
    });
    // A spec change while suspended is ignored: the Deployment keeps one replica.
    await applyInstance(client, annotated(ready, 2));
    await holdsFor(
      'Deployment at one replica',
      async () => ((await client.get(deployRef(h.ns, name))).spec as PodSpec).replicas === 1,
      5_000,
    );

    // Deleting the suspended instance deletes its Deployment and Service, then the instance goes.
    await client.delete({ apiVersion: `${h.group}/v1alpha1`, kind, namespace: h.ns, name });
    await absent(client, deployRef(h.ns, name));
    await absent(client, svcRef);
    await absent(client, { apiVersion: `${h.group}/v1alpha1`, kind, namespace: h.ns, name });
    await client.delete({ apiVersion: 'kro.run/v1alpha1', kind: 'ResourceGraphDefinition', name: rgdName });
    await absent(client, { apiVersion: 'kro.run/v1alpha1', kind: 'ResourceGraphDefinition', name: rgdName });
  });
});
