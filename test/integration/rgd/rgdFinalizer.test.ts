// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * The `kro.run/finalizer` on RGDs (design/rgd.md §19.6), as kro does it: every reconciled RGD carries it;
 * deleting the RGD stops serving its kind, keeps the CRD and the instances with their children, and the
 * finalizer goes only then.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RgdController } from '../../../src/controller/rgd/controller.ts';
import type { RestClient } from '../../../src/kube/index.ts';
import {
  applyInstance,
  applyRgd,
  cm,
  cmData,
  eventually,
  getRgd,
  instance,
  type RgdFixture,
  rgd,
  rgdFixture,
  stopRgdController,
  waitRgd,
  waitState,
} from './support.ts';

describe('RGD finalizer', () => {
  let f: RgdFixture;
  let client: RestClient;
  let controller: RgdController;

  before(async () => {
    f = await rgdFixture('rgd-fin');
    ({ client, controller } = f);
  });
  after(() => stopRgdController(controller));

  it('an accepted RGD carries kro.run/finalizer; deleting it stops serving and keeps the CRD and instances', async () => {
    // RGDs are cluster-scoped and the control plane is shared: names of this suite's own.
    const kept = `${f.suite}-kept`;
    const brokenName = `${f.suite}-broken`;
    const def = rgd(f, kept, { kind: 'Kept', spec: { name: 'string', value: 'string' } }, [
      { id: 'cfg', template: cm('${schema.spec.name}-cfg', { value: '${schema.spec.value}' }) },
    ]);
    await applyRgd(client, def);
    const active = await waitRgd(client, kept, 'Ready', 'True');
    assert.deepEqual(active.metadata.finalizers, ['kro.run/finalizer']);

    await applyInstance(client, instance(f, 'Kept', 'one', { name: 'one', value: 'a' }));
    await waitState(client, f, 'Kept', 'one', 'ACTIVE');
    assert.deepEqual(await cmData(client, f.ns, 'one-cfg'), { value: 'a' });

    // An invalid RGD is reconciled too, and kro marks it as well.
    await applyRgd(
      client,
      rgd(f, brokenName, { kind: 'Broken', spec: { name: 'string' } }, [
        { id: 'cfg', template: cm('${nope.metadata.name}') },
      ]),
    );
    const broken = await waitRgd(client, brokenName, 'GraphAccepted', 'False');
    assert.deepEqual(broken.metadata.finalizers, ['kro.run/finalizer']);

    await client.delete({ apiVersion: 'kro.run/v1alpha1', kind: 'ResourceGraphDefinition', name: kept });
    await eventually('RGD gone', async () => ((await getRgd(client, kept)) === undefined ? true : undefined));
    await controller.idle();
    const crd = await client.getOrUndefined({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      name: `kepts.${f.group}`,
    });
    assert.ok(crd && !crd.metadata.deletionTimestamp, 'the CRD stays');
    // The instance and its child stay, and an edit is no longer reconciled.
    await applyInstance(client, instance(f, 'Kept', 'one', { name: 'one', value: 'b' }));
    await new Promise((r) => setTimeout(r, 1500));
    await controller.idle();
    assert.deepEqual(await cmData(client, f.ns, 'one-cfg'), { value: 'a' });

    await client.delete({
      apiVersion: 'kro.run/v1alpha1',
      kind: 'ResourceGraphDefinition',
      name: brokenName,
    });
    await eventually('invalid RGD gone', async () =>
      (await getRgd(client, brokenName)) === undefined ? true : undefined,
    );
  });
});
