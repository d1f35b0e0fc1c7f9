// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * Zero writes in steady state for RGDs and instances: once converged, reconciling every RGD and every
 * instance again — as a resync does — makes no write request (and no read: caches serve them).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RgdController } from '../../../src/controller/rgd/controller.ts';
import { diffCounts, type RestClient, WRITE_VERBS } from '../../../src/kube/index.ts';
import {
  applyInstance,
  applyRgd,
  cm,
  instance,
  type RgdFixture,
  rgd,
  rgdFixture,
  stopRgdController,
  waitRgd,
  waitState,
} from './support.ts';

describe('RGD steady state', () => {
  let f: RgdFixture;
  let client: RestClient;
  let controller: RgdController;

  before(async () => {
    f = await rgdFixture('rgd-steady');
    ({ client, controller } = f);
  });
  after(() => stopRgdController(controller));

  it('a steady-state pass over RGDs and instances makes zero write requests', async () => {
    await client.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'steady-src', namespace: f.ns },
      data: { v: '1' },
    });
    await applyRgd(
      client,
      rgd(
        f,
        'steady',
        {
          kind: 'Steady',
          spec: { items: '[]string | default=["a","b"]', on: 'boolean | default=false' },
          status: { src: '${src.data.v}', first: '${base.metadata.name}' },
        },
        [
          {
            id: 'src',
            externalRef: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'steady-src' } },
          },
          { id: 'base', template: cm('${schema.metadata.name}-base', { v: '${src.data.v}' }) },
          {
            id: 'many',
            forEach: [{ i: '${schema.spec.items}' }],
            template: cm('${schema.metadata.name}-${i}', { from: '${base.metadata.name}' }),
          },
          { id: 'off', includeWhen: ['${schema.spec.on}'], template: cm('${schema.metadata.name}-off') },
        ],
      ),
    );
    await waitRgd(client, 'steady', 'Ready', 'True');
    for (const n of ['s1', 's2', 's3']) await applyInstance(client, instance(f, 'Steady', n, {}));
    for (const n of ['s1', 's2', 's3']) await waitState(client, f, 'Steady', n, 'ACTIVE');
    await controller.idle();
    await new Promise((r) => setTimeout(r, 500));
    await controller.idle();

    const before = controller.client.counters.snapshot();
    const reconciles = controller.metrics.reconcileCount();
    for (let i = 0; i < 3; i++) {
      controller.resyncAll();
      await new Promise((r) => setTimeout(r, 100));
      await controller.idle();
    }
    const delta = diffCounts(before, controller.client.counters.snapshot());
    assert.ok(controller.metrics.reconcileCount() >= reconciles + 9, 'instance reconciles ran');
    for (const v of WRITE_VERBS)
      assert.equal(delta[v], 0, `${v} requests in steady state: ${JSON.stringify(delta)}`);
    assert.equal(delta.get + delta.list, 0, JSON.stringify(delta));
  });
});
