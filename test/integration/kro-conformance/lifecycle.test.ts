// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * kro's instance-update scenario (kro lifecycle_test.go), ported: edits of the instance reach its
 * Deployment, and deleting the instance deletes it. kro's test writes the Deployment's status by hand
 * (its environment runs no controllers); ours runs the real Deployment controller, so nothing is faked.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KubeObject, RestClient } from '../../../src/kube/index.ts';
import {
  applyInstance,
  applyRgd,
  eventually,
  instance,
  type RgdFixture,
  rgd,
  rgdFixture,
  stopRgdController,
  waitRgd,
} from '../rgd/support.ts';

type Container = { image?: string; ports?: { containerPort?: number }[] };

function shape(d: KubeObject): [number | undefined, string | undefined, number | undefined] {
  const spec = d.spec as { replicas?: number; template: { spec: { containers: Container[] } } };
  const c = spec.template.spec.containers[0];
  return [spec.replicas, c?.image, c?.ports?.[0]?.containerPort];
}

describe('kro conformance: instance lifecycle', () => {
  let f: RgdFixture;
  let client: RestClient;

  before(async () => {
    f = await rgdFixture('kro-life');
    client = f.client;
  });
  after(() => stopRgdController(f.controller));

  it('carries instance updates to its Deployment and deletes it with the instance', async () => {
    await applyRgd(
      client,
      rgd(
        f,
        'test-update',
        {
          kind: 'TestInstanceUpdate',
          spec: {
            replicas: 'integer | default=1',
            image: 'string | default=nginx:latest',
            port: 'integer | default=80',
          },
        },
        [
          {
            id: 'deployment',
            template: {
              apiVersion: 'apps/v1',
              kind: 'Deployment',
              metadata: { name: 'deployment-${schema.metadata.name}' },
              spec: {
                replicas: '${schema.spec.replicas}',
                selector: { matchLabels: { app: 'test' } },
                template: {
                  metadata: { labels: { app: 'test' } },
                  spec: {
                    containers: [
                      {
                        name: 'app',
                        image: '${schema.spec.image}',
                        ports: [{ containerPort: '${schema.spec.port}' }],
                      },
                    ],
                  },
                },
              },
            },
          },
        ],
      ),
    );
    await waitRgd(client, 'test-update', 'Ready', 'True');
    const name = 'test-instance-for-updates';
    const target = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      namespace: f.ns,
      name: `deployment-${name}`,
    };
    const deploymentIs = (want: ReturnType<typeof shape>) =>
      eventually(`Deployment ${JSON.stringify(want)}`, async () => {
        const d = await client.getOrUndefined(target);
        return d && JSON.stringify(shape(d)) === JSON.stringify(want) ? d : undefined;
      });
    await applyInstance(
      client,
      instance(f, 'TestInstanceUpdate', name, { image: 'nginx:1.19', port: 80, replicas: 1 }),
    );
    await deploymentIs([1, 'nginx:1.19', 80]);
    await applyInstance(
      client,
      instance(f, 'TestInstanceUpdate', name, { image: 'nginx:1.20', port: 443, replicas: 3 }),
    );
    await deploymentIs([3, 'nginx:1.20', 443]);

    await client.delete({
      apiVersion: `${f.group}/v1alpha1`,
      kind: 'TestInstanceUpdate',
      namespace: f.ns,
      name,
    });
    await eventually('the Deployment deleted', async () =>
      (await client.getOrUndefined(target)) === undefined ? true : undefined,
    );
    assert.equal(await client.getOrUndefined(target), undefined);
  });
});
