// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * kro's terminating-managed-resource scenario (kro terminating_managed_resource_test.go), ported: a child
 * held in deletion by someone else's finalizer blocks the instance — its dependents are not created,
 * ResourcesReady says ResourceDeleting naming the object — until it is gone; then it is created again
 * and the dependents follow.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RestClient } from '../../../src/kube/index.ts';
import {
  applyInstance,
  applyRgd,
  cm,
  conditionOf,
  instance,
  type RgdFixture,
  rgd,
  rgdFixture,
  stopRgdController,
  waitRgd,
  waitState,
} from '../rgd/support.ts';
import { absent, cmRef, dataOf, deployRef, present, staysAbsent } from './support.ts';

const BLOCKING = 'tests.kro.run/block-delete';

describe('kro conformance: terminating managed resource', () => {
  let f: RgdFixture;
  let client: RestClient;

  before(async () => {
    f = await rgdFixture('kro-term');
    client = f.client;
  });
  after(() => stopRgdController(f.controller));

  it('does not create downstream resources while a managed resource is terminating', async () => {
    const rgdName = 'test-terminating-managed-resource';
    const name = 'test-terminating';
    const kind = 'TerminatingManagedResource';
    await applyRgd(
      client,
      rgd(f, rgdName, { kind, spec: { name: 'string', createDeployment: 'boolean' } }, [
        { id: 'config', template: cm('${schema.spec.name}-config', { value: 'active' }) },
        {
          id: 'deployment',
          template: {
            apiVersion: 'apps/v1',
            kind: 'Deployment',
            metadata: { name: '${schema.spec.name}' },
            spec: {
              replicas: 1,
              selector: { matchLabels: { app: '${schema.spec.name}' } },
              template: {
                metadata: { labels: { app: '${schema.spec.name}' } },
                spec: {
                  containers: [
                    {
                      name: 'nginx',
                      image: 'nginx',
                      env: [{ name: 'CONFIG_VALUE', value: '${config.data.value}' }],
                    },
                  ],
                },
              },
            },
          },
          includeWhen: ['${schema.spec.createDeployment}'],
        },
      ]),
    );
    const r = await waitRgd(client, rgdName, 'Ready', 'True');
    assert.equal((r.status as { state?: string }).state, 'Active');

    await applyInstance(client, instance(f, kind, name, { name, createDeployment: false }));
    const configRef = cmRef(f.ns, `${name}-config`);
    const config = await present(client, configRef, (o) => dataOf(o).value === 'active');
    await staysAbsent(client, deployRef(f.ns, name), 1_000);
    await waitState(client, f, kind, name, 'ACTIVE');

    // Hold the ConfigMap in deletion, as kro's scenario does with its own finalizer.
    await client.update({ ...config, metadata: { ...config.metadata, finalizers: [BLOCKING] } });
    try {
      await client.delete(configRef);
      await present(client, configRef, (o) => o.metadata.deletionTimestamp !== undefined);

      await applyInstance(client, instance(f, kind, name, { name, createDeployment: true }));
      const blocked = await waitState(client, f, kind, name, 'IN_PROGRESS', (o) => {
        const c = conditionOf(o, 'ResourcesReady');
        return c?.status === 'False' && c.reason === 'ResourceDeleting';
      });
      const message = conditionOf(blocked, 'ResourcesReady')?.message ?? '';
      assert.ok(message.includes(`resource "${f.ns}/${name}-config"`), message);
      assert.equal(
        message,
        `resource "${f.ns}/${name}-config" for node "config" is currently being deleted; waiting for deletion to complete before continuing reconciliation`,
      );
      await staysAbsent(client, deployRef(f.ns, name), 4_000);
    } finally {
      const current = await client.getOrUndefined(configRef);
      if (current) await client.update({ ...current, metadata: { ...current.metadata, finalizers: [] } });
    }

    // Once the ConfigMap is gone, the controller creates it again and then the Deployment.
    await absent(client, configRef).catch(() => undefined);
    await present(
      client,
      configRef,
      (o) => o.metadata.deletionTimestamp === undefined && dataOf(o).value === 'active',
    );
    await present(client, deployRef(f.ns, name), (o) => {
      const c = (o.spec as { template: { spec: { containers: { env?: { value?: string }[] }[] } } }).template
        .spec.containers[0];
      return c?.env?.[0]?.value === 'active';
    });
    await waitState(client, f, kind, name, 'ACTIVE');
  });
});
