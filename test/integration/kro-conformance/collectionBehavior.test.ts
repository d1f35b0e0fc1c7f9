// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * kro's collection behaviour and collection watch scenarios (kro collection_behavior_test.go and
 * collection_watch_test.go), ported: the configured collection size limit (1000, kro's suite setting and
 * our default) is reported and keeps the instance from ACTIVE; drift on items is corrected in every
 * namespace the collection spans, and on a non-last item from the watch (within kro's 3 s); an object
 * created under the name of an item the collection dropped is left alone.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KubeObject, RestClient } from '../../../src/kube/index.ts';
import {
  applyInstance,
  applyRgd,
  type Cond,
  eventually,
  getInstance,
  instance,
  rgd,
  stopRgdController,
  waitRgd,
  waitState,
} from '../rgd/support.ts';
import { absent, cmRef, dataOf, holdsFor, present, twoNamespaceFixture } from './support.ts';

type Fixture = Awaited<ReturnType<typeof twoNamespaceFixture>>;

describe('kro conformance: collection behaviour and watches', () => {
  let f: Fixture;
  let client: RestClient;

  before(async () => {
    f = await twoNamespaceFixture('kro-collb');
    client = f.client;
  });
  after(() => stopRgdController(f.controller));

  const define = async (name: string, schema: Record<string, unknown>, resources: unknown[]) => {
    await applyRgd(client, rgd(f, name, schema, resources));
    const r = await waitRgd(client, name, 'Ready', 'True');
    assert.equal((r.status as { state?: string }).state, 'Active');
  };
  const tamper = async (namespace: string, name: string) => {
    const o = await client.get(cmRef(namespace, name));
    await client.update({
      ...o,
      data: { ...dataOf(o), ...{ [Object.keys(dataOf(o))[0] ?? 'key']: 'tampered' } },
    });
  };

  it('enforces the configured collection size limit', async () => {
    await define('test-collection-cap', { kind: 'TestCollectionCap', spec: { name: 'string' } }, [
      {
        id: 'configmaps',
        forEach: [{ i: '${lists.range(34)}' }, { j: '${lists.range(34)}' }],
        template: {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: '${schema.spec.name}-${string(i)}-${string(j)}' },
        },
      },
    ]);
    const name = 'collection-cap';
    await applyInstance(client, instance(f, 'TestCollectionCap', name, { name }));
    const o = await eventually('the instance reports the limit of 1000', async () => {
      const i = await getInstance(client, f, 'TestCollectionCap', name);
      const conds = ((i?.status as { conditions?: Cond[] } | undefined)?.conditions ?? []) as Cond[];
      return conds.some((c) => (c.message ?? '').includes('1000')) ? i : undefined;
    });
    assert.notEqual((o?.status as { state?: string } | undefined)?.state, 'ACTIVE');
  });

  it('corrects drift on collection items in every namespace the collection spans', async () => {
    await define(
      'test-collection-multi-ns-drift',
      { kind: 'TestCollectionMultiNsDrift', spec: { name: 'string', ns1: 'string', ns2: 'string' } },
      [
        {
          id: 'configmaps',
          forEach: [{ i: '${lists.range(2)}' }],
          template: {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: {
              name: '${schema.spec.name}-item-${string(i)}',
              namespace: '${i == 0 ? schema.spec.ns1 : schema.spec.ns2}',
            },
            data: { managed: 'expected' },
          },
        },
      ],
    );
    const name = 'multi-ns-drift';
    await applyInstance(
      client,
      instance(f, 'TestCollectionMultiNsDrift', name, { name, ns1: f.ns, ns2: f.ns2 }),
    );
    await waitState(client, f, 'TestCollectionMultiNsDrift', name, 'ACTIVE');
    const items: [string, string][] = [
      [f.ns, `${name}-item-0`],
      [f.ns2, `${name}-item-1`],
    ];
    for (const [ns, cm] of items)
      await present(client, cmRef(ns, cm), (o) => dataOf(o).managed === 'expected');
    for (const [ns, cm] of items) {
      await tamper(ns, cm);
      await present(client, cmRef(ns, cm), (o) => dataOf(o).managed === 'expected', 60_000);
    }
  });

  const valuesRgd = async (rgdName: string, kind: string) =>
    define(rgdName, { kind, spec: { name: 'string', values: '[]string' } }, [
      {
        id: 'configmaps',
        forEach: [{ value: '${schema.spec.values}' }],
        template: {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: '${schema.spec.name}-${value}' },
          data: { key: '${value}' },
        },
      },
    ]);

  it('reconciles from the watch when a non-last collection item is modified', async () => {
    await valuesRgd('test-collection-watch', 'CollWatchTest');
    const name = 'test-coll-watch';
    await applyInstance(
      client,
      instance(f, 'CollWatchTest', name, { name, values: ['alpha', 'beta', 'gamma'] }),
    );
    await waitState(client, f, 'CollWatchTest', name, 'ACTIVE');
    for (const v of ['alpha', 'beta', 'gamma']) {
      await present(client, cmRef(f.ns, `${name}-${v}`), (o) => dataOf(o).key === v);
    }
    await new Promise((r) => setTimeout(r, 5_000)); // past any requeue the creation scheduled, as kro waits
    await tamper(f.ns, `${name}-alpha`);
    await present(client, cmRef(f.ns, `${name}-alpha`), (o) => dataOf(o).key === 'alpha', 3_000);
    const inst = { apiVersion: `${f.group}/v1alpha1`, kind: 'CollWatchTest', namespace: f.ns, name };
    await client.delete(inst);
    await absent(client, inst);
  });

  it('does not react to an object created under the name of an item the collection dropped', async () => {
    await valuesRgd('test-collection-shrink-watch', 'CollShrinkTest');
    const name = 'test-coll-shrink';
    await applyInstance(
      client,
      instance(f, 'CollShrinkTest', name, { name, values: ['alpha', 'beta', 'gamma'] }),
    );
    await waitState(client, f, 'CollShrinkTest', name, 'ACTIVE');
    for (const v of ['alpha', 'beta', 'gamma']) await present(client, cmRef(f.ns, `${name}-${v}`));
    await applyInstance(client, instance(f, 'CollShrinkTest', name, { name, values: ['alpha', 'beta'] }));
    await absent(client, cmRef(f.ns, `${name}-gamma`));
    await waitState(client, f, 'CollShrinkTest', name, 'ACTIVE');
    await new Promise((r) => setTimeout(r, 5_000));
    await client.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: `${name}-gamma`, namespace: f.ns },
      data: { key: 'external-data' },
    } as KubeObject);
    await holdsFor(
      'the external ConfigMap left alone',
      async () => dataOf(await client.getOrUndefined(cmRef(f.ns, `${name}-gamma`))).key === 'external-data',
      4_000,
    );
    await client.delete(cmRef(f.ns, `${name}-gamma`));
    const inst = { apiVersion: `${f.group}/v1alpha1`, kind: 'CollShrinkTest', namespace: f.ns, name };
    await client.delete(inst);
    await absent(client, inst);
  });
});
