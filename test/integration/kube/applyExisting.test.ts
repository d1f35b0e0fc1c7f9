/**
 * applyToExisting: a server-side apply of a parent's metadata that never creates the object — the
 * guard against bringing back an instance deleted since the cache copy the write was made from.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { applyToExisting } from '../../../src/kube/applyExisting.ts';
import type { RestClient } from '../../../src/kube/rest.ts';
import type { KubeObject } from '../../../src/kube/types.ts';
import { configMap, installWidgetCRD, testClient, testNamespace } from '../../support/kube.ts';

let client: RestClient;
let ns: string;
before(async () => {
  client = await testClient();
  ns = await testNamespace('applyex');
});
after(() => client.close());

const OPTS = { fieldManager: 'kgraph-applyex', force: true };
const finalizerOf = (name: string, apiVersion = 'v1', kind = 'ConfigMap'): KubeObject => ({
  apiVersion,
  kind,
  metadata: { name, namespace: ns, finalizers: ['kgraph.test/keep'], labels: { parent: 'yes' } },
});

describe('applyToExisting', () => {
  it('applies to the object of that UID, and its fields are owned by the manager', async () => {
    const made = await client.create(configMap(ns, 'present', { a: '1' }));
    const res = await applyToExisting(client, finalizerOf('present'), made.metadata.uid, OPTS);
    assert.ok(res, 'applied');
    assert.equal(res.metadata.uid, made.metadata.uid);
    assert.deepEqual(res.metadata.finalizers, ['kgraph.test/keep']);
    assert.ok(res.metadata.managedFields?.some((m) => m.manager === OPTS.fieldManager));
    // The manager can take its finalizer away again the same way.
    const cleared = await applyToExisting(
      client,
      { ...finalizerOf('present'), metadata: { name: 'present', namespace: ns } },
      made.metadata.uid,
      OPTS,
    );
    assert.equal(cleared?.metadata.finalizers, undefined);
  });

  it('creates nothing when the name is free (a plain apply would create it)', async () => {
    const stale = await client.create(configMap(ns, 'gone', { a: '1' }));
    await client.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'gone' });
    const res = await applyToExisting(client, finalizerOf('gone'), stale.metadata.uid, OPTS);
    assert.equal(res, undefined);
    assert.equal(
      await client.getOrUndefined({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'gone' }),
      undefined,
      'no object was created',
    );
  });

  it('leaves a newer object of the same name alone', async () => {
    const old = await client.create(configMap(ns, 'reborn', { v: 'old' }));
    await client.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'reborn' });
    const fresh = await client.create(configMap(ns, 'reborn', { v: 'new' }));
    const res = await applyToExisting(client, finalizerOf('reborn'), old.metadata.uid, OPTS);
    assert.equal(res, undefined);
    const now = await client.getOrUndefined({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace: ns,
      name: 'reborn',
    });
    assert.equal(now?.metadata.uid, fresh.metadata.uid);
    assert.equal(now?.metadata.finalizers, undefined, 'the newer object got nothing of ours');
  });

  it('does the same for a custom resource (an RGD instance is one)', async () => {
    const w = await installWidgetCRD(client);
    const made = await client.create({
      apiVersion: w.apiVersion,
      kind: w.kind,
      metadata: { name: 'wid', namespace: ns },
      spec: {},
    } as KubeObject);
    await client.delete({ apiVersion: w.apiVersion, kind: w.kind, namespace: ns, name: 'wid' });
    const res = await applyToExisting(
      client,
      finalizerOf('wid', w.apiVersion, w.kind),
      made.metadata.uid,
      OPTS,
    );
    assert.equal(res, undefined);
    assert.equal(
      await client.getOrUndefined({ apiVersion: w.apiVersion, kind: w.kind, namespace: ns, name: 'wid' }),
      undefined,
    );
  });
});
