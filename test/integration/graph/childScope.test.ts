// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * The child caches hold kgraph's own objects only (design/sharding.md §1): unrelated ConfigMaps of the
 * namespace stay out of the controller's cache while its Graphs only create ConfigMaps; a Graph that
 * reads an unrelated ConfigMap (`ref`) makes the kind cached whole, and still finds it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { WatchSet } from '../../../src/controller/core/watches.ts';
import type { GraphController } from '../../../src/controller/graph/controller.ts';
import type { RestClient } from '../../../src/kube/index.ts';
import {
  applyGraph,
  cm,
  controllerFixture,
  eventually,
  getCm,
  graph,
  stopController,
  waitCondition,
} from './support.ts';

/** The controller's child caches (a private field: what they hold is what this test is about). */
const watchesOf = (c: GraphController): WatchSet => (c as unknown as { watches: WatchSet }).watches;

describe('child caches of kgraph-owned objects', () => {
  let client: RestClient;
  let ns: string;
  let controller: GraphController;

  before(async () => {
    ({ client, ns, controller } = await controllerFixture('gc-scope'));
  });
  after(() => stopController(controller));

  it('caches only stamped children until a graph reads the kind without owning it', async () => {
    for (let i = 0; i < 5; i++) {
      await client.create({
        ...cm(`unrelated-${i}`, { i: String(i) }),
        metadata: { name: `unrelated-${i}`, namespace: ns },
      });
    }
    await applyGraph(client, graph(ns, 'own', [{ id: 'cm', template: cm('own-cm', { k: 'v' }) }]));
    await waitCondition(client, ns, 'own', 'Ready', 'True');
    const watches = watchesOf(controller);
    const id = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name });
    assert.ok(watches.peek(id('own-cm')), 'the child is cached');
    assert.equal(watches.peek(id('unrelated-0')), undefined, 'an unrelated ConfigMap is not');
    assert.equal(watches.cachedObjectCount(), 1);

    await applyGraph(
      client,
      graph(ns, 'reads', [
        { id: 'src', ref: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'unrelated-3' } } },
        { id: 'out', template: cm('reads-out', { copied: '${src.data.i}' }) },
      ]),
    );
    await waitCondition(client, ns, 'reads', 'Ready', 'True');
    assert.deepEqual((await getCm(client, ns, 'reads-out'))?.data, { copied: '3' });
    // The whole kind now: the five unrelated ones, the namespace's root CA bundle and both children.
    await eventually('the owned-only informer superseded', async () =>
      watches.informerCount() === 1 ? true : undefined,
    );
    assert.ok(watches.peek(id('unrelated-0')));
    assert.ok(watches.cachedObjectCount() >= 7, String(watches.cachedObjectCount()));
  });
});
