// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * kro's cross-RGD scenario (kro instance_conflict_test.go), ported: two RGDs whose instances share a
 * name (in two namespaces) each manage their own ConfigMap, labelled with their instance's group,
 * version and kind; each RGD restores its own ConfigMap (recreated after a deletion, data put back
 * after an edit) and never the other's.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KubeObject, RestClient } from '../../../src/kube/index.ts';
import { eventually } from '../../support/kube.ts';
import {
  applyInstance,
  applyRgd,
  cm,
  instance,
  rgd,
  stopRgdController,
  waitRgd,
  waitState,
} from '../rgd/support.ts';
import { cmRef, dataOf, present, twoNamespaceFixture } from './support.ts';

type Fixture = Awaited<ReturnType<typeof twoNamespaceFixture>>;

describe('kro conformance: instances of two RGDs', () => {
  let f: Fixture;
  let client: RestClient;

  before(async () => {
    f = await twoNamespaceFixture('kro-conflict');
    client = f.client;
  });
  after(() => stopRgdController(f.controller));

  it('keeps each RGD to its own instance’s resources, by the instance GVK labels', async () => {
    const app = (n: number) =>
      rgd(f, `kro-conflict-app${n}`, { kind: `TestConflictApp${n}`, spec: { name: 'string' } }, [
        { id: 'configmap', template: cm('${schema.spec.name}', { source: `app${n}` }) },
      ]);
    await applyRgd(client, app(1));
    await applyRgd(client, app(2));
    await waitRgd(client, 'kro-conflict-app1', 'Ready', 'True');
    await waitRgd(client, 'kro-conflict-app2', 'Ready', 'True');
    const ns2 = { group: f.group, ns: f.ns2 };
    await applyInstance(client, instance(f, 'TestConflictApp1', 'my-app', { name: 'shared-resource' }));
    await applyInstance(client, instance(ns2, 'TestConflictApp2', 'my-app', { name: 'shared-resource' }));
    await waitState(client, f, 'TestConflictApp1', 'my-app', 'ACTIVE');
    await waitState(client, ns2, 'TestConflictApp2', 'my-app', 'ACTIVE');

    const labelled = (o: KubeObject, kind: string) => {
      const l = o.metadata.labels ?? {};
      return (
        l['kro.run/instance-name'] === 'my-app' &&
        l['kro.run/instance-group'] === f.group &&
        l['kro.run/instance-version'] === 'v1alpha1' &&
        l['kro.run/instance-kind'] === kind
      );
    };
    const one = await present(client, cmRef(f.ns, 'shared-resource'));
    const two = await present(client, cmRef(f.ns2, 'shared-resource'));
    assert.ok(labelled(one, 'TestConflictApp1'), JSON.stringify(one.metadata.labels));
    assert.ok(labelled(two, 'TestConflictApp2'), JSON.stringify(two.metadata.labels));
    assert.equal(dataOf(one).source, 'app1');
    assert.equal(dataOf(two).source, 'app2');

    await client.delete(cmRef(f.ns, 'shared-resource'));
    await present(
      client,
      cmRef(f.ns, 'shared-resource'),
      (o) =>
        o.metadata.uid !== one.metadata.uid && labelled(o, 'TestConflictApp1') && dataOf(o).source === 'app1',
    );

    await eventually('ConfigMap of app2 edited by hand', async () => {
      const o = await client.get(cmRef(f.ns2, 'shared-resource'));
      return client.update({ ...o, data: { ...dataOf(o), source: 'app3' } });
    });
    await present(client, cmRef(f.ns2, 'shared-resource'), (o) => dataOf(o).source === 'app2');
  });
});
