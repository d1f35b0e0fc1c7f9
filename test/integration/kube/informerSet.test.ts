import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { InformerSet, type WatchSpec, watchKey } from '../../../src/kube/informerSet.ts';
import type { RestClient } from '../../../src/kube/rest.ts';
import { configMap, eventually, installWidgetCRD, testClient, testNamespace } from '../../support/kube.ts';

let client: RestClient;
let ns: string;
before(async () => {
  client = await testClient();
  ns = await testNamespace('set');
});
after(() => client.close());

describe('InformerSet', () => {
  it('shares one informer per view and reports every event through one callback', async () => {
    const events: string[] = [];
    const set = new InformerSet(client, {
      onEvent: (ev, obj, spec) => events.push(`${ev} ${spec.kind} ${obj.metadata.name}`),
    });
    try {
      const spec: WatchSpec = { apiVersion: 'v1', kind: 'ConfigMap', namespace: ns };
      const a = set.ensure(spec);
      assert.equal(set.ensure({ ...spec }), a, 'same view, same informer');
      const meta = set.ensure({ ...spec, metadataOnly: true });
      assert.notEqual(meta, a);
      assert.notEqual(watchKey(spec), watchKey({ ...spec, labelSelector: { x: 'y' } }));
      set.ensure({ apiVersion: 'v1', kind: 'Secret', namespace: ns });
      await set.waitForSync(20_000);
      assert.ok(set.hasSynced());
      await client.create(configMap(ns, 'one', {}));
      await eventually(
        'two adds of ConfigMap one',
        async () => events.filter((e) => e === 'add ConfigMap one').length === 2 || undefined,
        20_000,
      );
      await set.release({ ...spec, metadataOnly: true });
      assert.equal(set.specs().length, 2);
    } finally {
      await set.stopAll();
    }
    assert.equal(set.specs().length, 0);
  });

  it('a view on a kind that is not served yet syncs once its CRD is installed', async () => {
    const errors: unknown[] = [];
    const group = `later-${Date.now().toString(36)}.kgraph.test`;
    const set = new InformerSet(client, { onError: (_s, e) => errors.push(e) });
    try {
      const missing = set.ensure({ apiVersion: `${group}/v1`, kind: 'Widget', namespace: ns });
      await eventually('a list error', async () => errors.length > 0 || undefined, 10_000);
      assert.equal(missing.hasSynced(), false);
      const w = await installWidgetCRD(client, group);
      const inf = set.ensure({ apiVersion: w.apiVersion, kind: 'Widget', namespace: ns });
      assert.equal(inf, missing, 'the same view');
      set.retryUnsynced();
      await inf.waitForSync(40_000);
      await client.apply(
        { apiVersion: w.apiVersion, kind: 'Widget', metadata: { name: 'w', namespace: ns } },
        {
          fieldManager: 'set-test',
        },
      );
      await eventually('the widget in the cache', async () => inf.get(ns, 'w') ?? undefined, 20_000);
    } finally {
      await set.stopAll();
    }
  });
});
