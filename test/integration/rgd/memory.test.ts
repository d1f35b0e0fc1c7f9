// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * What the RGD controller keeps in memory: its informer caches hold slimmed objects
 * (src/controller/rgd/caches.ts) and the reconciler still converges, skips no-op writes and repairs
 * drift from them; the per-instance structures are emptied when instances are deleted and when their
 * RGD stops being served; and the compiler's slim OpenAPI documents generate the same CRD.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { GraphCompiler } from '../../../src/controller/core/graphCompiler.ts';
import type { RgdController } from '../../../src/controller/rgd/controller.ts';
import { RGD_CRD_NAME } from '../../../src/controller/rgd/names.ts';
import { statusFieldTypes } from '../../../src/graph/typecheck.ts';
import type { KubeObject, RestClient } from '../../../src/kube/index.ts';
import { generateCrd } from '../../../src/schema/crd/generate.ts';
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

const managers = (o: KubeObject | undefined): string[] =>
  (o?.metadata.managedFields ?? []).map((e) => e.manager ?? '').sort();

describe('RGD controller memory', () => {
  let f: RgdFixture;
  let client: RestClient;
  let controller: RgdController;

  before(async () => {
    f = await rgdFixture('rgd-mem');
    ({ client, controller } = f);
  });
  after(() => stopRgdController(controller));

  it('caches slimmed objects and still converges, writes nothing in steady state, repairs drift', async () => {
    await applyRgd(
      client,
      rgd(f, 'slim', { kind: 'Slim', spec: { v: 'string | default="one"' } }, [
        { id: 'base', template: cm('${schema.metadata.name}-base', { v: '${schema.spec.v}' }) },
      ]),
    );
    await waitRgd(client, 'slim', 'Ready', 'True');
    await applyInstance(client, instance(f, 'Slim', 's1', { v: 'one' }));
    await waitState(client, f, 'Slim', 's1', 'ACTIVE');
    // Another manager on the child: the server keeps its entry, the cache does not.
    await client.apply(
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 's1-base', namespace: f.ns },
        data: { w: 'x' },
      },
      { fieldManager: 'someone-else' },
    );
    await controller.idle();

    const child = { apiVersion: 'v1', kind: 'ConfigMap', namespace: f.ns, name: 's1-base' };
    assert.deepEqual(managers(await client.get(child)), ['kro.run/applyset', 'someone-else']);
    const cachedChild = await eventually('the child cache saw the other manager', async () => {
      const c = controller.cached({ child });
      return (c?.data as Record<string, string> | undefined)?.w === 'x' ? c : undefined;
    });
    assert.deepEqual(managers(cachedChild), ['kro.run/applyset']);
    assert.equal(cachedChild.metadata.managedFields?.[0]?.time, undefined, 'no time on kept entries');

    const live = await getInstance(client, f, 'Slim', 's1');
    assert.ok(managers(live).includes('test'), 'the instance as the server holds it has the test manager');
    const cachedInstance = controller.cached({ instanceOf: 'slim', namespace: f.ns, name: 's1' });
    assert.deepEqual(managers(cachedInstance), ['kro.run/applyset-parent']);

    assert.equal(controller.cached({ rgd: 'slim' })?.metadata.managedFields, undefined);
    const generated = controller.cached({ crd: `slims.${f.group}` });
    assert.ok(generated, 'the generated CRD is cached');
    const versions = (generated.spec as { versions: { name: string; schema?: unknown }[] }).versions;
    assert.ok(versions[0]?.schema, 'a generated CRD keeps its schema');
    assert.deepEqual(managers(generated), ['kgraph-controller']);
    // A CRD no RGD generated: names and versions, no schema, no managedFields.
    const foreign = controller.cached({ crd: RGD_CRD_NAME });
    assert.ok(foreign, 'the RGD CRD is cached');
    assert.equal((foreign.spec as { group?: string }).group, 'kro.run');
    const foreignVersions = (foreign.spec as { versions: { name: string; schema?: unknown }[] }).versions;
    assert.deepEqual(
      foreignVersions.map((v) => [v.name, v.schema]),
      [['v1alpha1', undefined]],
    );
    assert.equal(foreign.metadata.managedFields, undefined);

    // Steady state from the slimmed caches: a resync reconciles everything and writes nothing.
    const writes = controller.client.counters.writes();
    controller.resyncAll();
    await new Promise((r) => setTimeout(r, 500));
    await controller.idle();
    assert.equal(controller.client.counters.writes() - writes, 0, 'no write in steady state');

    // Drift on a field the applyset manager owns is repaired; a spec change reaches the child.
    await client.apply(
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 's1-base', namespace: f.ns },
        data: { v: 'drift' },
      },
      { fieldManager: 'drifter', force: true },
    );
    await eventually('the drift is repaired', async () =>
      ((await getCm(client, f.ns, 's1-base'))?.data as Record<string, string> | undefined)?.v === 'one'
        ? true
        : undefined,
    );
    await applyInstance(client, instance(f, 'Slim', 's1', { v: 'two' }));
    await eventually('the spec change reaches the child', async () =>
      ((await getCm(client, f.ns, 's1-base'))?.data as Record<string, string> | undefined)?.v === 'two'
        ? true
        : undefined,
    );
  });

  it('empties the per-instance structures when instances are deleted and when their RGD goes', async () => {
    await applyRgd(
      client,
      rgd(f, 'churn', { kind: 'Churn', spec: {} }, [
        { id: 'a', template: cm('${schema.metadata.name}-a', { x: '1' }) },
        { id: 'b', template: cm('${schema.metadata.name}-b', { from: '${a.metadata.name}' }) },
      ]),
    );
    await waitRgd(client, 'churn', 'Ready', 'True');
    const names = ['c0', 'c1', 'c2', 'c3', 'c4'];
    await Promise.all(names.map((n) => applyInstance(client, instance(f, 'Churn', n, {}))));
    for (const n of names) await waitState(client, f, 'Churn', n, 'ACTIVE');
    await controller.idle();
    const before = controller.retained();
    assert.ok((before.lastWrites ?? 0) >= names.length, JSON.stringify(before));
    assert.ok((before.routes ?? 0) >= names.length, JSON.stringify(before));

    for (const n of names)
      await client.delete({ apiVersion: `${f.group}/v1alpha1`, kind: 'Churn', namespace: f.ns, name: n });
    for (const n of names) await gone(client, f.ns, n, 'Churn', `${f.group}/v1alpha1`);
    // The s1 instance of the first test is still served: its own entries (its write echoes, its routes,
    // the echo record of its child's last write) stay.
    const kept = (k: string) => (k === 'lastWrites' || k === 'routes' || k === 'echoRecords' ? 1 : 0);
    await eventually('the per-instance structures are empty', async () => {
      await controller.idle();
      const r = controller.retained();
      return Object.entries(r).every(([k, v]) => v <= kept(k)) ? r : undefined;
    }).catch((e) => {
      throw new Error(`${(e as Error).message}: ${JSON.stringify(controller.retained())}`);
    });
    const after = controller.retained();
    assert.equal(after.writeOverlays, 0, JSON.stringify(after));

    // Deleting the first test's RGD stops serving its instance (its CRD and instance stay): forgotten.
    await client.delete({ apiVersion: 'kro.run/v1alpha1', kind: 'ResourceGraphDefinition', name: 'slim' });
    await eventually('the slim instance is forgotten', async () => {
      const r = controller.retained();
      return r.lastWrites === 0 && r.routes === 0 ? r : undefined;
    }).catch((e) => {
      throw new Error(`${(e as Error).message}: ${JSON.stringify(controller.retained())}`);
    });
  });

  it('generates the same CRD from slim OpenAPI documents (status types from object fields)', async () => {
    const r = rgd(
      f,
      'typed',
      {
        kind: 'Typed',
        spec: {},
        status: {
          meta: '${svc.metadata}',
          ports: '${svc.spec.ports}',
          conditions2: '${svc.status.conditions}',
        },
      },
      [
        {
          id: 'svc',
          template: {
            apiVersion: 'v1',
            kind: 'Service',
            metadata: { name: '${schema.metadata.name}' },
            spec: { ports: [{ port: 80 }] },
          },
        },
      ],
    );
    const crdOf = async (slim: boolean) => {
      const outcome = await new GraphCompiler(client, { slim }).compile(
        r as unknown as Record<string, unknown>,
      );
      assert.ok(outcome.compiled, JSON.stringify(outcome.diagnostics));
      return generateCrd(r, { statusTypes: statusFieldTypes(outcome.compiled) }).crd;
    };
    const full = await crdOf(false);
    const slim = await crdOf(true);
    const status = (full?.spec.versions[0]?.schema.openAPIV3Schema.properties as Record<string, unknown>)
      ?.status as { properties: Record<string, { items?: { properties?: Record<string, unknown> } }> };
    assert.ok(
      status.properties.ports?.items?.properties?.port,
      'the status ports are typed from the Service',
    );
    assert.deepEqual(slim, full);
  });
});
