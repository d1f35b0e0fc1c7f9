// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * kro's single-scenario files, ported: a child edited by hand (kro instance_resource_watch_test.go: the
 * edit is seen on the object within 3 s — kro asserts no more than that), and an RGD that goes invalid (a
 * dependency cycle: Inactive) and recovers with a later valid spec whose graph the instances then run
 * (kro recover_test.go).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RestClient } from '../../../src/kube/index.ts';
import {
  applyInstance,
  applyRgd,
  eventually,
  getRgd,
  instance,
  type RgdFixture,
  rgd,
  rgdFixture,
  stopRgdController,
  waitRgd,
} from '../rgd/support.ts';
import { absent, cmRef, dataOf, deployRef, present } from './support.ts';

describe('kro conformance: single scenarios', () => {
  let f: RgdFixture;
  let client: RestClient;

  before(async () => {
    f = await rgdFixture('kro-single');
    client = f.client;
  });
  after(() => stopRgdController(f.controller));

  it('watch behavior on a child edited by hand', async () => {
    const rgdName = 'test-instance-resource-reconcile-reactive';
    await applyRgd(
      client,
      rgd(f, rgdName, { kind: 'TestResourceWatch', spec: { field1: 'string' } }, [
        {
          id: 'res1',
          template: {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: 'static-configmap' },
            data: { key: '${schema.spec.field1}' },
          },
        },
      ]),
    );
    const r = await waitRgd(client, rgdName, 'Ready', 'True');
    assert.equal((r.status as { state?: string }).state, 'Active');
    for (const c of (r.status as { conditions: { type: string; status: string }[] }).conditions) {
      assert.equal(c.status, 'True', c.type);
    }
    await applyInstance(client, instance(f, 'TestResourceWatch', 'test-instance', { field1: 'foo' }));
    const cm = await present(client, cmRef(f.ns, 'static-configmap'), (o) => dataOf(o).key === 'foo');
    await new Promise((res) => setTimeout(res, 5_000));
    await client.update({ ...cm, data: { key: 'updated' } });
    await present(client, cmRef(f.ns, 'static-configmap'), (o) => dataOf(o).key === 'updated', 3_000);
  });

  it('recovers from an invalid state and uses the latest valid configuration', async () => {
    const rgdName = 'test-recovery';
    const schema = { kind: 'TestRecovery', spec: { name: 'string', configKey: 'string' } };
    const initialConfig = {
      id: 'initialConfig',
      template: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: '${schema.spec.name}' },
        data: { key: '${schema.spec.configKey}', version: 'initial' },
      },
    };
    await applyRgd(client, rgd(f, rgdName, schema, [initialConfig]));
    assert.equal(
      ((await waitRgd(client, rgdName, 'Ready', 'True')).status as { state?: string }).state,
      'Active',
    );
    await applyRgd(
      client,
      rgd(f, rgdName, schema, [
        initialConfig,
        {
          id: 'serviceA',
          template: { apiVersion: 'v1', kind: 'Service', metadata: { name: '${serviceB.metadata.name}' } },
        },
        {
          id: 'serviceB',
          template: { apiVersion: 'v1', kind: 'Service', metadata: { name: '${serviceA.metadata.name}' } },
        },
      ]),
    );
    await eventually('RGD Inactive', async () => {
      const got = await getRgd(client, rgdName);
      return (got?.status as { state?: string } | undefined)?.state === 'Inactive' ? true : undefined;
    });
    await applyRgd(
      client,
      rgd(f, rgdName, schema, [
        {
          id: 'itsapodnow',
          template: {
            apiVersion: 'apps/v1',
            kind: 'Deployment',
            metadata: { name: '${schema.spec.name}' },
            spec: {
              replicas: 1,
              selector: { matchLabels: { app: 'deployment' } },
              template: {
                metadata: { labels: { app: 'deployment' } },
                spec: {
                  containers: [
                    {
                      name: '${schema.spec.name}-deployment',
                      image: 'nginx',
                      ports: [{ containerPort: 777 }],
                    },
                  ],
                },
              },
            },
          },
        },
      ]),
    );
    assert.equal(
      ((await waitRgd(client, rgdName, 'Ready', 'True')).status as { state?: string }).state,
      'Active',
    );
    const name = 'test-recovery';
    await applyInstance(client, instance(f, 'TestRecovery', name, { name, configKey: 'testKey' }));
    await present(client, deployRef(f.ns, name), (o) => {
      const c = (
        o.spec as {
          template: { spec: { containers: { image: string; ports: { containerPort: number }[] }[] } };
        }
      ).template.spec.containers[0];
      return c?.image === 'nginx' && c.ports[0]?.containerPort === 777;
    });
    const inst = { apiVersion: `${f.group}/v1alpha1`, kind: 'TestRecovery', namespace: f.ns, name };
    await client.delete(inst);
    await absent(client, inst);
    const ref = { apiVersion: 'kro.run/v1alpha1', kind: 'ResourceGraphDefinition', name: rgdName };
    await client.delete(ref);
    await absent(client, ref);
  });
});
