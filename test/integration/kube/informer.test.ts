import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApiError } from '../../../src/kube/errors.ts';
import { Informer } from '../../../src/kube/informer.ts';
import type { RestClient } from '../../../src/kube/rest.ts';
import type { KubeObject } from '../../../src/kube/types.ts';
import { watchOnce } from '../../../src/kube/watch.ts';
import { configMap, eventually, testClient, testNamespace } from '../../support/kube.ts';

let client: RestClient;
let ns: string;
before(async () => {
  client = await testClient();
  ns = await testNamespace('inf');
});
after(() => client.close());

const ROOT_CA_CONFIGMAP = 'kube-root-ca.crt';

describe('informer', () => {
  it('lists, then sees adds, updates and deletes through the watch', async () => {
    await client.create(configMap(ns, 'pre', { v: '0' }));
    const events: string[] = [];
    // With workloads, the root-CA publisher (a real kube-controller-manager controller) writes
    // `kube-root-ca.crt` into every namespace at its own time; this test follows only its own objects.
    const ours = (o: KubeObject) => o.metadata.name !== ROOT_CA_CONFIGMAP;
    const inf = new Informer(client, { target: { apiVersion: 'v1', kind: 'ConfigMap', namespace: ns } });
    inf.addHandlers({
      add: (o) => ours(o) && events.push(`add ${o.metadata.name}`),
      update: (a, b) =>
        ours(b) &&
        events.push(
          `update ${b.metadata.name} ${(a.data as Record<string, string>).v}->${(b.data as Record<string, string>).v}`,
        ),
      delete: (o) => ours(o) && events.push(`delete ${o.metadata.name}`),
    });
    inf.start();
    try {
      await inf.waitForSync(20_000);
      assert.ok(inf.hasSynced());
      assert.deepEqual(events, ['add pre']);
      assert.equal(inf.get(ns, 'pre')?.metadata.name, 'pre');

      await client.create(configMap(ns, 'x', { v: '1' }));
      await client.patch(
        { apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'x' },
        { data: { v: '2' } },
      );
      await client.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'x' });
      await eventually('delete event', async () => events.includes('delete x') || undefined, 20_000);
      assert.deepEqual(events, ['add pre', 'add x', 'update x 1->2', 'delete x']);
      assert.equal(inf.get(ns, 'x'), undefined);
      assert.deepEqual(
        inf.keys().filter((k) => k !== `${ns}/${ROOT_CA_CONFIGMAP}`),
        [`${ns}/pre`],
      );
    } finally {
      await inf.stop();
    }
  });

  it('receives bookmarks that advance its resourceVersion, and re-watches after the server ends a watch', async () => {
    const inf = new Informer(client, {
      target: { apiVersion: 'v1', kind: 'ConfigMap', namespace: ns },
      // The root-CA publisher of the plane's controller manager writes kube-root-ca.crt into every new
      // namespace when it gets to it; under load that can land after this informer's sync, as an event.
      fieldSelector: 'metadata.name!=kube-root-ca.crt',
      // The API server sends a bookmark shortly before a watch's timeout.
      watchTimeoutSeconds: () => 4,
    });
    inf.start();
    try {
      await inf.waitForSync(20_000);
      const rv0 = inf.resourceVersion;
      // Something changes elsewhere (another namespace): our watch sees no event, only bookmarks.
      const other = await testNamespace('inf-other');
      await client.create(configMap(other, 'elsewhere', {}));
      await eventually(
        'a bookmark',
        async () => (inf.stats.bookmarks > 0 && inf.stats.watches >= 2) || undefined,
        30_000,
      );
      assert.equal(inf.stats.events, 0);
      await eventually(
        'resourceVersion advanced by a bookmark',
        async () => BigInt(inf.resourceVersion) > BigInt(rv0) || undefined,
        30_000,
      );
    } finally {
      await inf.stop();
    }
  });

  it('replays the cache on resync', async () => {
    const updates: string[] = [];
    const inf = new Informer(client, {
      target: { apiVersion: 'v1', kind: 'ConfigMap', namespace: ns },
      resyncMs: 300,
    });
    inf.addHandlers({ update: (a, b) => a === b && updates.push(b.metadata.name ?? '') });
    inf.start();
    try {
      await inf.waitForSync(20_000);
      await eventually('a resync update', async () => updates.includes('pre') || undefined, 5_000);
    } finally {
      await inf.stop();
    }
  });

  it('watches metadata only', async () => {
    const seen: KubeObject[] = [];
    const inf = new Informer(client, {
      target: { apiVersion: 'v1', kind: 'ConfigMap', namespace: ns },
      metadataOnly: true,
      labelSelector: { meta: 'only' },
    });
    inf.addHandlers({ add: (o) => seen.push(o) });
    inf.start();
    try {
      await inf.waitForSync(20_000);
      await client.create(configMap(ns, 'meta', { secret: 'x' }, { meta: 'only' }));
      await eventually('metadata add', async () => seen.length > 0 || undefined, 20_000);
      assert.equal(seen[0]?.kind, 'PartialObjectMetadata');
      assert.equal(seen[0]?.metadata.name, 'meta');
      assert.equal(seen[0]?.data, undefined);
    } finally {
      await inf.stop();
    }
  });

  it('a streaming list (sendInitialEvents) ends its initial state with an annotated bookmark', async () => {
    const seen: string[] = [];
    await watchOnce(
      client,
      { apiVersion: 'v1', kind: 'ConfigMap', namespace: ns },
      {
        sendInitialEvents: true,
        resourceVersionMatch: 'NotOlderThan',
        allowWatchBookmarks: true,
        timeoutSeconds: 2,
      },
      (e) => {
        if (e.type === 'BOOKMARK') {
          if (e.object.metadata.annotations?.['k8s.io/initial-events-end'] === 'true')
            seen.push('initial-events-end');
        } else seen.push(`${e.type} ${e.object.metadata.name}`);
      },
    );
    assert.ok(seen.includes('ADDED pre'));
    assert.ok(seen.indexOf('initial-events-end') > seen.indexOf('ADDED pre'));
  });

  it('an aborted watch resolves promptly', async () => {
    const ac = new AbortController();
    const t0 = Date.now();
    const w = watchOnce(
      client,
      { apiVersion: 'v1', kind: 'ConfigMap', namespace: ns },
      { timeoutSeconds: 60, signal: ac.signal },
      () => {},
    );
    setTimeout(() => ac.abort(), 200);
    await w;
    assert.ok(Date.now() - t0 < 5_000);
  });

  it('a watch the caller may not make is a 403 ApiError', async () => {
    const err = await watchOnce(
      client,
      { apiVersion: 'v1', kind: 'ConfigMap', namespace: ns },
      { timeoutSeconds: 2, impersonate: { user: 'system:serviceaccount:nowhere:nobody' } },
      () => {},
    ).catch((e: unknown) => e);
    assert.ok(err instanceof ApiError && err.code === 403, String(err));
  });
});
