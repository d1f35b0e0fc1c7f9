// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * kro's deletion-order scenarios (kro externalref_deletion_test.go), ported: deleting an instance deletes
 * its children by apply-order wave, from the highest down, without reading an externalRef that is gone
 * by then; a lower wave waits while a child of a higher wave is held in deletion by a finalizer.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KubeObject, RestClient } from '../../../src/kube/index.ts';
import {
  applyInstance,
  applyRgd,
  instance,
  type RgdFixture,
  rgd,
  rgdFixture,
  stopRgdController,
  waitRgd,
  waitState,
} from '../rgd/support.ts';
import { absent, cmRef, dataOf, holdsFor, present } from './support.ts';

const BLOCK = 'test.kro.run/block-deletion';

describe('kro conformance: externalRef deletion and deletion waves', () => {
  let f: RgdFixture;
  let client: RestClient;

  before(async () => {
    f = await rgdFixture('kro-extdel');
    client = f.client;
  });
  after(() => stopRgdController(f.controller));

  const hold = async (o: KubeObject) =>
    client.update({
      ...o,
      metadata: { ...o.metadata, finalizers: [...(o.metadata.finalizers ?? []), BLOCK] },
    });
  const release = async (name: string) => {
    const o = await client.get(cmRef(f.ns, name));
    await client.update({ ...o, metadata: { ...o.metadata, finalizers: [] } });
  };

  it('deletes managed resources before removing the finalizer when the external ref is the topological root', async () => {
    const rgdName = 'test-extref-del';
    const kind = 'TestExternalRefDeletion';
    const name = 'extref-del-inst';
    const managed = `${name}-managed`;
    await applyRgd(
      client,
      rgd(f, rgdName, { kind, spec: {}, status: {} }, [
        {
          id: 'extcm',
          externalRef: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'source-configmap' } },
        },
        {
          id: 'managedcm',
          template: {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: '${extcm.data.managedName}' },
            data: { inherited: '${extcm.data.value}' },
          },
        },
      ]),
    );
    const r = await waitRgd(client, rgdName, 'Ready', 'True');
    const st = r.status as { state?: string; topologicalOrder?: string[] };
    assert.equal(st.state, 'Active');
    assert.equal(st.topologicalOrder?.length, 2);
    assert.equal(st.topologicalOrder?.[0], 'extcm');

    await client.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'source-configmap', namespace: f.ns },
      data: { managedName: managed, value: 'from-external' },
    } as KubeObject);
    await applyInstance(client, instance(f, kind, name, {}));
    await waitState(client, f, kind, name, 'ACTIVE');
    const child = await present(
      client,
      cmRef(f.ns, managed),
      (o) =>
        dataOf(o).inherited === 'from-external' &&
        o.metadata.annotations?.['internal.kro.run/apply-order'] === '2',
    );
    await hold(child);
    await client.delete(cmRef(f.ns, 'source-configmap'));
    await client.delete({ apiVersion: `${f.group}/v1alpha1`, kind, namespace: f.ns, name });
    // Deletion reaches the child although the externalRef is gone: it reads no external object.
    await present(client, cmRef(f.ns, managed), (o) => o.metadata.deletionTimestamp !== undefined);
    await release(managed);
    await absent(client, cmRef(f.ns, managed));
    await absent(client, { apiVersion: `${f.group}/v1alpha1`, kind, namespace: f.ns, name });
  });

  it('ordered deletion waits for the higher dependency wave', async () => {
    const rgdName = 'test-ordered-deletion';
    const kind = 'TestOrderedDeletion';
    const name = 'ordered-deletion';
    await applyRgd(
      client,
      rgd(f, rgdName, { kind, spec: {}, status: {} }, [
        { id: 'a', template: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${name}-a` } } },
        {
          id: 'b',
          template: {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: `${name}-b` },
            data: { dependency: '${a.metadata.name}' },
          },
        },
      ]),
    );
    const r = await waitRgd(client, rgdName, 'Ready', 'True');
    assert.equal((r.status as { state?: string }).state, 'Active');
    await applyInstance(client, instance(f, kind, name, {}));
    await present(client, cmRef(f.ns, `${name}-a`));
    const b = await present(
      client,
      cmRef(f.ns, `${name}-b`),
      (o) => o.metadata.annotations?.['internal.kro.run/apply-order'] === '2',
    );
    await hold(b);
    await client.delete({ apiVersion: `${f.group}/v1alpha1`, kind, namespace: f.ns, name });
    await present(client, cmRef(f.ns, `${name}-b`), (o) => o.metadata.deletionTimestamp !== undefined);
    await holdsFor('a not being deleted while b is held', async () => {
      const a = await client.getOrUndefined(cmRef(f.ns, `${name}-a`));
      return a !== undefined && a.metadata.deletionTimestamp === undefined;
    });
    await release(`${name}-b`);
    await absent(client, cmRef(f.ns, `${name}-b`));
    await absent(client, cmRef(f.ns, `${name}-a`));
    await absent(client, { apiVersion: `${f.group}/v1alpha1`, kind, namespace: f.ns, name });
  });
});
