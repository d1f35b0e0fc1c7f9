// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * Instance deletion (design/graph.md §22.2): children go in waves by descending apply order, each wave
 * completely gone (finalizers included) before the next starts; the instance keeps `kro.run/finalizer`
 * (state DELETING) until every child is gone.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RgdController } from '../../../src/controller/rgd/controller.ts';
import type { KubeObject, RestClient } from '../../../src/kube/index.ts';
import {
  applyInstance,
  applyRgd,
  cm,
  eventually,
  getCm,
  getInstance,
  gone,
  instance,
  type RgdFixture,
  rgd,
  rgdFixture,
  stopRgdController,
  waitRgd,
  waitState,
} from './support.ts';

const HOLD = 'kgraph.test/hold';

async function release(client: RestClient, ns: string, name: string): Promise<void> {
  await client.patch(
    { apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name },
    { metadata: { finalizers: null } },
    { type: 'merge', fieldManager: 'test' },
  );
}

const deleting = (o: KubeObject | undefined): boolean => o?.metadata.deletionTimestamp !== undefined;

describe('RGD instance deletion', () => {
  let f: RgdFixture;
  let client: RestClient;
  let controller: RgdController;

  before(async () => {
    f = await rgdFixture('rgd-del');
    ({ client, controller } = f);
  });
  after(() => stopRgdController(controller));

  it('deletes children in waves by descending apply order, each wave gone before the next', async () => {
    // a ← b ← c: apply orders 1, 2, 3. Every child carries a finalizer the test removes, so each wave lingers.
    const held = (name: string, data: Record<string, string>) => cm(name, data, { finalizers: [HOLD] });
    await applyRgd(
      client,
      rgd(f, 'chain', { kind: 'Chain', spec: {} }, [
        { id: 'a', template: held('${schema.metadata.name}-a', { x: '1' }) },
        { id: 'b', template: held('${schema.metadata.name}-b', { from: '${a.metadata.name}' }) },
        { id: 'c', template: held('${schema.metadata.name}-c', { from: '${b.metadata.name}' }) },
      ]),
    );
    await waitRgd(client, 'chain', 'Ready', 'True');
    await applyInstance(client, instance(f, 'Chain', 'ch', {}));
    await waitState(client, f, 'Chain', 'ch', 'ACTIVE');
    assert.equal(
      (await getCm(client, f.ns, 'ch-c'))?.metadata.annotations?.['internal.kro.run/apply-order'],
      '3',
    );

    await client.delete({ apiVersion: `${f.group}/v1alpha1`, kind: 'Chain', namespace: f.ns, name: 'ch' });
    await waitState(client, f, 'Chain', 'ch', 'DELETING');
    // Wave 3 first: c is deleting, a and b untouched.
    await eventually('c deleting', async () =>
      deleting(await getCm(client, f.ns, 'ch-c')) ? true : undefined,
    );
    await new Promise((r) => setTimeout(r, 1500));
    assert.ok(!deleting(await getCm(client, f.ns, 'ch-b')), 'b waits while c lingers');
    assert.ok(!deleting(await getCm(client, f.ns, 'ch-a')), 'a waits while c lingers');
    await release(client, f.ns, 'ch-c');
    await eventually('b deleting', async () =>
      deleting(await getCm(client, f.ns, 'ch-b')) ? true : undefined,
    );
    assert.equal(await getCm(client, f.ns, 'ch-c'), undefined);
    await new Promise((r) => setTimeout(r, 1000));
    assert.ok(!deleting(await getCm(client, f.ns, 'ch-a')), 'a waits while b lingers');
    await release(client, f.ns, 'ch-b');
    await eventually('a deleting', async () =>
      deleting(await getCm(client, f.ns, 'ch-a')) ? true : undefined,
    );
    assert.ok(await getInstance(client, f, 'Chain', 'ch'), 'the instance waits for its last child');
    await release(client, f.ns, 'ch-a');
    await gone(client, f.ns, 'ch-a');
    await eventually('instance gone', async () =>
      (await getInstance(client, f, 'Chain', 'ch')) === undefined ? true : undefined,
    );
  });

  it('keeps a deleted instance (DELETING, finalizer kept) while a child has a finalizer of its own', async () => {
    await applyRgd(
      client,
      rgd(f, 'sticky', { kind: 'Sticky', spec: {} }, [
        { id: 'free', template: cm('${schema.metadata.name}-free') },
        { id: 'stuck', template: cm('${schema.metadata.name}-stuck', {}, { finalizers: [HOLD] }) },
      ]),
    );
    await waitRgd(client, 'sticky', 'Ready', 'True');
    await applyInstance(client, instance(f, 'Sticky', 'st', {}));
    await waitState(client, f, 'Sticky', 'st', 'ACTIVE');
    await client.delete({ apiVersion: `${f.group}/v1alpha1`, kind: 'Sticky', namespace: f.ns, name: 'st' });
    await gone(client, f.ns, 'st-free');
    const held = await waitState(client, f, 'Sticky', 'st', 'DELETING');
    assert.ok(held.metadata.finalizers?.includes('kro.run/finalizer'));
    assert.ok(deleting(await getCm(client, f.ns, 'st-stuck')));
    await new Promise((r) => setTimeout(r, 1500));
    assert.ok(await getInstance(client, f, 'Sticky', 'st'), 'still there while the child lingers');
    await release(client, f.ns, 'st-stuck');
    await eventually('instance gone', async () =>
      (await getInstance(client, f, 'Sticky', 'st')) === undefined ? true : undefined,
    );
  });
});
