// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * "No write when nothing changed" on a real API server: once Graphs have converged,
 * reconciling them again — as a resync does — makes zero write requests, asserted on the controller's
 * request counters.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { GraphController } from '../../../src/controller/graph/controller.ts';
import { diffCounts, type RestClient, WRITE_VERBS } from '../../../src/kube/index.ts';
import { applyGraph, cm, controllerFixture, graph, stopController, waitCondition } from './support.ts';

describe('Graph controller steady state', () => {
  let client: RestClient;
  let ns: string;
  let controller: GraphController;

  before(async () => {
    ({ client, ns, controller } = await controllerFixture('gc-steady'));
  });
  after(() => stopController(controller));

  it('a steady-state reconcile of every node kind makes zero write requests', async () => {
    await client.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'steady-input', namespace: ns, labels: { feed: 'yes' } },
      data: { replicas: '2' },
    });
    await applyGraph(
      client,
      graph(ns, 'steady', [
        { id: 'cfg', def: { items: ['a', 'b', 'c'] } },
        { id: 'input', ref: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'steady-input' } } },
        {
          id: 'feeds',
          ref: {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            // In the Graph's namespace: its ServiceAccount may list there, not cluster-wide (design/graph.md §24).
            metadata: { namespace: ns, selector: { matchLabels: { feed: 'yes' } } },
          },
        },
        {
          id: 'base',
          template: cm(
            'steady-base',
            { k: '${input.data.replicas}', n: '${string(size(feeds))}' },
            { labels: { app: 'steady' } },
          ),
        },
        {
          id: 'many',
          forEach: [{ i: '${cfg.items}' }],
          template: cm('steady-${i}', { from: '${base.metadata.name}' }),
          readyWhen: ['${each.data.from == "steady-base"}'],
        },
        {
          id: 'sub',
          graph: { nodes: [{ id: 'inner', template: cm('steady-inner-${cfg.items[0]}', { x: 'y' }) }] },
        },
        {
          id: 'p',
          patch: {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: 'steady-input', annotations: { seen: 'yes' } },
          },
        },
      ]),
    );
    await waitCondition(client, ns, 'steady', 'Ready', 'True');
    await controller.idle();
    await new Promise((r) => setTimeout(r, 500));
    await controller.idle();

    const before = controller.client.counters.snapshot();
    const reconcilesBefore = controller.metrics.reconcileCount();
    for (let i = 0; i < 3; i++) {
      controller.queue.add(`${ns}/steady`);
      await new Promise((r) => setTimeout(r, 100));
      await controller.idle();
    }
    const delta = diffCounts(before, controller.client.counters.snapshot());
    assert.ok(controller.metrics.reconcileCount() >= reconcilesBefore + 3, 'reconciles ran');
    for (const v of WRITE_VERBS)
      assert.equal(delta[v], 0, `${v} requests in steady state: ${JSON.stringify(delta)}`);
    // Reads come from the informer caches, too.
    assert.equal(delta.get + delta.list, 0, JSON.stringify(delta));
  });
});
