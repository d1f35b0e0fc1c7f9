import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  ApiError,
  isAlreadyExists,
  isInvalidApply,
  isNotFound,
  isTransient,
} from '../../../src/kube/errors.ts';
import { RestClient } from '../../../src/kube/rest.ts';
import type { KubeObject } from '../../../src/kube/types.ts';
import { configMap, installWidgetCRD, testClient, testNamespace } from '../../support/kube.ts';

let client: RestClient;
let ns: string;

before(async () => {
  client = await testClient();
  ns = await testNamespace('rest');
});
after(() => client.close());

function managers(o: KubeObject): string[] {
  return (o.metadata.managedFields ?? []).map((m) => `${m.manager}:${m.operation}`).sort();
}

describe('RestClient on a real API server', () => {
  it('creates with server-side apply, then updates, recording our field manager', async () => {
    const created = await client.apply(configMap(ns, 'ssa', { a: '1' }), { fieldManager: 'kgraph-test' });
    assert.equal(created.metadata.name, 'ssa');
    assert.ok(created.metadata.uid);
    assert.deepEqual(created.data, { a: '1' });
    assert.deepEqual(managers(created), ['kgraph-test:Apply']);

    const updated = await client.apply(configMap(ns, 'ssa', { a: '2', b: '3' }), {
      fieldManager: 'kgraph-test',
    });
    assert.equal(updated.metadata.uid, created.metadata.uid);
    assert.deepEqual(updated.data, { a: '2', b: '3' });
    assert.notEqual(updated.metadata.resourceVersion, created.metadata.resourceVersion);

    // Applying without a field removes it (we own it alone).
    const shrunk = await client.apply(configMap(ns, 'ssa', { a: '2' }), { fieldManager: 'kgraph-test' });
    assert.deepEqual(shrunk.data, { a: '2' });
  });

  it('reports an apply conflict with the other manager and field, and force takes the field', async () => {
    await client.apply(configMap(ns, 'contended', { key: 'mine' }), { fieldManager: 'owner-a' });
    const err = await client
      .apply(configMap(ns, 'contended', { key: 'theirs' }), { fieldManager: 'owner-b' })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    assert.ok(err instanceof ApiError, 'an ApiError');
    assert.equal(err.code, 409);
    assert.equal(err.reason, 'Conflict');
    assert.ok(err.isApplyConflict);
    assert.deepEqual(err.conflictingManagers, ['owner-a']);
    assert.equal(err.conflicts[0]?.field, '.data.key');

    const unchanged = await client.get({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace: ns,
      name: 'contended',
    });
    assert.deepEqual(unchanged.data, { key: 'mine' });

    const forced = await client.apply(configMap(ns, 'contended', { key: 'theirs' }), {
      fieldManager: 'owner-b',
      force: true,
    });
    assert.deepEqual(forced.data, { key: 'theirs' });
    const owners = (forced.metadata.managedFields ?? []).filter((m) =>
      JSON.stringify(m.fieldsV1).includes('f:key'),
    );
    assert.deepEqual(
      owners.map((m) => m.manager),
      ['owner-b'],
    );
  });

  it('dry-run apply returns the result without persisting it', async () => {
    const dry = await client.apply(configMap(ns, 'dry', { x: '1' }), {
      fieldManager: 'kgraph-test',
      dryRun: true,
    });
    assert.deepEqual(dry.data, { x: '1' });
    assert.equal(
      await client.getOrUndefined({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'dry' }),
      undefined,
    );
  });

  it('applies status through the status subresource only', async () => {
    const w = await installWidgetCRD(client);
    const base = { apiVersion: w.apiVersion, kind: w.kind, metadata: { name: 'w1', namespace: ns } };
    await client.apply({ ...base, spec: { size: 1 } }, { fieldManager: 'kgraph-test' });
    // status in a main-resource apply is ignored by the server
    const main = await client.apply(
      { ...base, spec: { size: 1 }, status: { phase: 'Ignored' } },
      { fieldManager: 'kgraph-test' },
    );
    assert.equal(main.status, undefined);
    const st = await client.applyStatus(
      { ...base, status: { phase: 'Ready', count: 2 } },
      {
        fieldManager: 'kgraph-status',
        force: true,
      },
    );
    assert.deepEqual(st.status, { phase: 'Ready', count: 2 });
    assert.deepEqual(st.spec, { size: 1 });
    const entry = st.metadata.managedFields?.find((m) => m.manager === 'kgraph-status');
    assert.equal(entry?.subresource, 'status');
    assert.equal(entry?.operation, 'Apply');
  });

  it('lists in pages with limit/continue and label selectors, and metadata-only', async () => {
    for (let i = 0; i < 5; i++) {
      await client.create(configMap(ns, `page-${i}`, { i: String(i) }, { paging: 'yes' }));
    }
    await client.create(configMap(ns, 'other', {}, { paging: 'no' }));
    const target = { apiVersion: 'v1', kind: 'ConfigMap', namespace: ns };

    const first = await client.list(target, { labelSelector: { paging: 'yes' }, limit: 2 });
    assert.equal(first.items.length, 2);
    assert.ok(first.metadata.continue, 'a continue token');
    assert.equal(first.items[0]?.kind, 'ConfigMap', 'items get their kind');
    assert.equal(first.items[0]?.apiVersion, 'v1');

    const all = await client.listAll(target, { labelSelector: 'paging=yes', limit: 2 });
    assert.equal(all.pages, 3);
    assert.deepEqual(
      all.items.map((o) => o.metadata.name),
      ['page-0', 'page-1', 'page-2', 'page-3', 'page-4'],
    );
    assert.ok(all.resourceVersion);

    const byField = await client.list(target, { fieldSelector: 'metadata.name=page-3' });
    assert.deepEqual(
      byField.items.map((o) => o.metadata.name),
      ['page-3'],
    );

    const meta = await client.list(target, { labelSelector: { paging: 'yes' }, metadataOnly: true });
    assert.equal(meta.kind, 'PartialObjectMetadataList');
    assert.equal(meta.items.length, 5);
    assert.equal(meta.items[0]?.data, undefined, 'no data in metadata-only items');
    assert.equal(meta.items[0]?.metadata.labels?.paging, 'yes');
    const one = await client.get({ ...target, name: 'page-0' }, { metadataOnly: true });
    assert.equal(one.kind, 'PartialObjectMetadata');
    assert.equal(one.data, undefined);
    assert.equal(one.metadata.name, 'page-0');
  });

  it('creates, refuses a duplicate, merge-patches, and updates', async () => {
    const c = await client.create(configMap(ns, 'crud', { a: '1' }));
    const dup = await client.create(configMap(ns, 'crud', { a: '1' })).catch((e: unknown) => e);
    assert.ok(isAlreadyExists(dup));
    const patched = await client.patch(
      { apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'crud' },
      { data: { b: '2' } },
      { fieldManager: 'patcher' },
    );
    assert.deepEqual(patched.data, { a: '1', b: '2' });
    const replaced = await client.update({ ...patched, data: { c: '3' } });
    assert.deepEqual(replaced.data, { c: '3' });
    assert.equal(replaced.metadata.uid, c.metadata.uid);
    // A stale resourceVersion is a 409 Conflict (optimistic concurrency).
    const stale = await client.update({ ...patched, data: { d: '4' } }).catch((e: unknown) => e);
    assert.ok(stale instanceof ApiError && stale.code === 409);
  });

  it('deletes only with a matching UID precondition', async () => {
    const o = await client.create(configMap(ns, 'del', {}));
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'del' };
    const wrong = await client
      .delete(ref, {
        preconditions: { uid: '00000000-0000-0000-0000-000000000000' },
        propagationPolicy: 'Background',
      })
      .catch((e: unknown) => e);
    assert.ok(wrong instanceof ApiError);
    assert.equal(wrong.code, 409);
    assert.ok(await client.getOrUndefined(ref), 'still there');
    await client.delete(ref, {
      preconditions: { uid: o.metadata.uid ?? '' },
      propagationPolicy: 'Background',
    });
    const gone = await client.get(ref).catch((e: unknown) => e);
    assert.ok(isNotFound(gone));
  });

  it('addresses cluster-scoped kinds and ignores a namespace given for them', async () => {
    const got = await client.get({ apiVersion: 'v1', kind: 'Namespace', namespace: 'ignored', name: ns });
    assert.equal(got.metadata.name, ns);
    const raw = await client.request({ method: 'GET', path: `/api/v1/namespaces/${ns}` });
    assert.equal((raw as KubeObject).metadata.name, ns);
  });

  it('rejects unknown fields in an apply as a non-transient error, and surfaces server warnings', async () => {
    const w = await installWidgetCRD(client);
    const warnings: string[] = [];
    const warned = new RestClient(client.kubeConfig, { onWarning: (m) => warnings.push(m) });
    try {
      const obj: KubeObject = {
        apiVersion: w.apiVersion,
        kind: w.kind,
        metadata: { name: 'warn', namespace: ns },
        spec: { size: 1, unknownField: true },
      };
      // Server-side apply refuses fields the schema lacks (the server answers 500, not 400).
      const applied = await warned.apply(obj, { fieldManager: 'kgraph-test' }).catch((e: unknown) => e);
      assert.ok(applied instanceof ApiError, String(applied));
      assert.match(applied.message, /\.spec\.unknownField: field not declared in schema/);
      assert.ok(isInvalidApply(applied));
      assert.ok(!isTransient(applied), 'not worth retrying');
      // A create with fieldValidation=Warn is pruned by the server (not by us) and warns.
      const made = await warned.create(obj, { fieldValidation: 'Warn' });
      assert.deepEqual(made.spec, { size: 1 });
      assert.ok(
        warnings.some((m) => m.includes('unknownField')),
        warnings.join('; '),
      );
    } finally {
      warned.close();
    }
  });

  it('counts requests by verb', async () => {
    const before = client.counters.snapshot();
    await client.apply(configMap(ns, 'count', { a: '1' }), { fieldManager: 'kgraph-test' });
    await client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'count' });
    await client.list({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns });
    await client.patch(
      { apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'count' },
      { data: { b: '1' } },
    );
    await client.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'count' });
    const after = client.counters.snapshot();
    assert.equal(after.apply - before.apply, 1);
    assert.equal(after.get - before.get, 1);
    assert.equal(after.list - before.list, 1);
    assert.equal(after.patch - before.patch, 1);
    assert.equal(after.delete - before.delete, 1);
    assert.equal(after.create - before.create, 0);
  });
});
