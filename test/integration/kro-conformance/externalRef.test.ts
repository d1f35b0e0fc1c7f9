// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * kro's externalRef scenarios (kro externalref_test.go), ported: an instance waits for the object it
 * reads by reference and follows its edits; the reference may name a cluster-scoped object through an
 * expression; a collection reference with an empty selector lists every object of the kind, and one
 * without a namespace lists them in every namespace.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KubeObject, RestClient } from '../../../src/kube/index.ts';
import { uniqueName } from '../../support/controlPlane.ts';
import { configMap, testNamespace, waitCrdEstablished } from '../../support/kube.ts';
import {
  applyInstance,
  applyRgd,
  getInstance,
  instance,
  type RgdFixture,
  rgd,
  rgdFixture,
  stopRgdController,
  waitRgd,
  waitState,
} from '../rgd/support.ts';
import { deployRef, present, staysAbsent } from './support.ts';

describe('kro conformance: externalRef', () => {
  let f: RgdFixture;
  let client: RestClient;

  before(async () => {
    f = await rgdFixture('kro-extref');
    client = f.client;
  });
  after(() => stopRgdController(f.controller));

  const define = async (name: string, schema: Record<string, unknown>, resources: unknown[]) => {
    await applyRgd(client, rgd(f, name, schema, resources));
    const r = await waitRgd(client, name, 'Ready', 'True');
    const st = r.status as { state?: string; topologicalOrder?: string[] };
    assert.equal(st.state, 'Active');
    return st;
  };
  const statusOf = async (kind: string, name: string) =>
    ((await getInstance(client, f, kind, name))?.status ?? {}) as Record<string, unknown>;

  it('waits for the referenced Deployment and follows its edits', async () => {
    const deployment = (name: string, replicas: string | number, app: string, container: string) => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name },
      spec: {
        replicas,
        selector: { matchLabels: { app } },
        template: {
          metadata: { labels: { app } },
          spec: { containers: [{ name: container, image: 'nginx' }] },
        },
      },
    });
    const st = await define('kro-extref-deployment', { kind: 'TestExternalRef', spec: {}, status: {} }, [
      {
        id: 'deployment1',
        externalRef: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'test-deployment' } },
      },
      {
        id: 'deployment',
        template: deployment('${schema.metadata.name}', '${deployment1.spec.replicas}', 'deployment', 'web'),
      },
    ]);
    assert.deepEqual([...(st.topologicalOrder ?? [])].sort(), ['deployment', 'deployment1']);
    await applyInstance(client, instance(f, 'TestExternalRef', 'foo-instance', {}));
    await waitState(client, f, 'TestExternalRef', 'foo-instance', 'IN_PROGRESS');
    await staysAbsent(client, deployRef(f.ns, 'test-deployment'), 0);
    await staysAbsent(client, deployRef(f.ns, 'foo-instance'), 0);
    const external = { ...deployment('test-deployment', 2, 'test-deployment', 'test-container') };
    await client.create({ ...external, metadata: { ...external.metadata, namespace: f.ns } } as KubeObject);
    await waitState(client, f, 'TestExternalRef', 'foo-instance', 'ACTIVE');
    await present(client, deployRef(f.ns, 'foo-instance'), (o) => {
      const spec = o.spec as { replicas?: number; template: { spec: { containers: unknown[] } } };
      return spec.replicas === 2 && spec.template.spec.containers.length === 1;
    });
    await client.patch(deployRef(f.ns, 'test-deployment'), { spec: { replicas: 4 } }, { type: 'merge' });
    await present(
      client,
      deployRef(f.ns, 'foo-instance'),
      (o) => (o.spec as { replicas?: number }).replicas === 4,
    );
    await client.delete({
      apiVersion: `${f.group}/v1alpha1`,
      kind: 'TestExternalRef',
      namespace: f.ns,
      name: 'foo-instance',
    });
    await client.delete(deployRef(f.ns, 'test-deployment'));
  });

  it('reads a CRD named by an expression and follows its annotations', async () => {
    const group = `${uniqueName('ext')}.kgraph.test`;
    const crdName = `testexternalcrds.${group}`;
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: crdName, annotations: { phase: 'pending' } },
      spec: {
        group,
        names: { kind: 'TestExternalCrds', plural: 'testexternalcrds' },
        scope: 'Namespaced',
        versions: [
          { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } },
        ],
      },
    };
    await client.create(crd as KubeObject);
    await waitCrdEstablished(client, crdName);
    const crdRef = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name: crdName };
    try {
      const st = await define(
        'kro-extref-crd',
        {
          kind: 'TestCRDExternalRef',
          spec: { crdName: 'string' },
          status: { observedPhase: '${crd.metadata.annotations["phase"]}' },
        },
        [
          {
            id: 'crd',
            externalRef: {
              apiVersion: 'apiextensions.k8s.io/v1',
              kind: 'CustomResourceDefinition',
              metadata: { name: '${schema.spec.crdName}' },
            },
          },
        ],
      );
      assert.ok(st.topologicalOrder?.includes('crd'));
      await applyInstance(client, instance(f, 'TestCRDExternalRef', 'test-instance', { crdName }));
      await waitState(
        client,
        f,
        'TestCRDExternalRef',
        'test-instance',
        'ACTIVE',
        (o) => (o.status as Record<string, unknown>).observedPhase === 'pending',
      );
      await client.patch(crdRef, { metadata: { annotations: { phase: 'ready' } } }, { type: 'merge' });
      await present(
        client,
        {
          apiVersion: `${f.group}/v1alpha1`,
          kind: 'TestCRDExternalRef',
          namespace: f.ns,
          name: 'test-instance',
        },
        (o) => (o.status as Record<string, unknown> | undefined)?.observedPhase === 'ready',
      );
      await client.delete({
        apiVersion: `${f.group}/v1alpha1`,
        kind: 'TestCRDExternalRef',
        namespace: f.ns,
        name: 'test-instance',
      });
    } finally {
      await client.delete(crdRef);
    }
  });

  it('lists every ConfigMap when the collection selector is empty', async () => {
    await client.create(
      configMap(f.ns, 'config-alpha', { key: 'value1' }, { 'empty-selector-test': 'alpha' }),
    );
    await client.create(configMap(f.ns, 'config-beta', { key: 'value2' }, { 'empty-selector-test': 'beta' }));
    await define(
      'kro-extref-empty-selector',
      {
        kind: 'TestExtCollEmptySel',
        spec: {},
        status: {
          configCount: '${string(size(allconfigs))}',
          teamValues:
            "${allconfigs.filter(c, c.metadata.name == 'config-alpha' || c.metadata.name == 'config-beta').sortBy(c, c.metadata.name).map(c, c.data.key).join(\",\")}",
        },
      },
      [
        {
          id: 'allconfigs',
          externalRef: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { selector: {} } },
        },
      ],
    );
    await applyInstance(client, instance(f, 'TestExtCollEmptySel', 'test-empty-selector', {}));
    await waitState(client, f, 'TestExtCollEmptySel', 'test-empty-selector', 'ACTIVE', (o) => {
      const s = o.status as Record<string, unknown>;
      return Number(s.configCount) >= 2 && s.teamValues === 'value1,value2';
    });
    await client.patch(
      { apiVersion: 'v1', kind: 'ConfigMap', namespace: f.ns, name: 'config-beta' },
      { data: { key: 'value2-updated' } },
      { type: 'merge' },
    );
    await present(
      client,
      {
        apiVersion: `${f.group}/v1alpha1`,
        kind: 'TestExtCollEmptySel',
        namespace: f.ns,
        name: 'test-empty-selector',
      },
      (o) => (o.status as Record<string, unknown> | undefined)?.teamValues === 'value1,value2-updated',
    );
    assert.ok(await statusOf('TestExtCollEmptySel', 'test-empty-selector'));
  });

  it('lists a collection in every namespace when the reference names none', async () => {
    const label = uniqueName('cross-ns');
    const nsA = await testNamespace('kro-extref-a');
    const nsB = await testNamespace('kro-extref-b');
    for (const [i, ns] of [nsA, nsB, f.ns].entries()) {
      await client.create(configMap(ns, `cm-${i}`, { from: ns }, { suite: label }));
    }
    await define(
      'kro-extref-cross-ns',
      { kind: 'TestCrossNsExtColl', spec: {}, status: { configCount: '${string(size(allconfigs))}' } },
      [
        {
          id: 'allconfigs',
          externalRef: {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { selector: { matchLabels: { suite: label } } },
          },
        },
      ],
    );
    await applyInstance(client, instance(f, 'TestCrossNsExtColl', 'cross-ns-test', {}));
    await waitState(
      client,
      f,
      'TestCrossNsExtColl',
      'cross-ns-test',
      'ACTIVE',
      (o) => (o.status as Record<string, unknown>).configCount === '3',
    );
  });
});
