// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * What a Graph costs the API server while it converges, asserted on the controller's
 * own requests: the finalizer patch and status writes are echoes the controller does not reconcile
 * again, so a Graph whose children are ready at once converges in one reconcile with its child applies,
 * one write-ahead status (a second one only for a dependent whose identity is computed) and one final
 * status; and a Graph waiting on a
 * readiness condition is reconciled by the watch event that makes it true.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { GraphController, ReconcileTrace } from '../../../src/controller/graph/controller.ts';
import type { RestClient } from '../../../src/kube/index.ts';
import { adminClient } from '../../support/kube.ts';
import {
  applyGraph,
  cm,
  graph,
  graphNamespace,
  startController,
  stopController,
  waitCondition,
} from './support.ts';

describe('Graph controller writes while converging', () => {
  let client: RestClient;
  let ns: string;
  let controller: GraphController;
  const traces: ReconcileTrace[] = [];
  /** Controller writes by Graph: `status`, `graph` (main resource) or the child's name. */
  const writes: { graph: string; what: string }[] = [];

  before(async () => {
    client = await adminClient();
    ns = await graphNamespace('gc-writes');
    controller = await startController([ns], { trace: (e) => traces.push(e) });
    controller.client.counters.listen((verb, _method, path) => {
      if (!['create', 'patch', 'apply', 'update', 'delete'].includes(verb)) return;
      const g = /\/graphs\/([^/]+)(\/status)?$/.exec(path);
      if (g?.[1]) writes.push({ graph: g[1], what: g[2] ? 'status' : 'graph' });
      const c = /\/configmaps\/([^/]+)$/.exec(path);
      if (c?.[1]) writes.push({ graph: c[1].split('-')[0] ?? '', what: c[1] });
    });
  });
  after(async () => {
    controller.client.counters.listen(undefined);
    await stopController(controller);
  });

  const reconcilesOf = (name: string) =>
    traces.filter((t) => t.event === 'started' && t.key === `${ns}/${name}`).length;
  const writesOf = (name: string, what?: string) =>
    writes.filter((w) => w.graph === name && (what === undefined || w.what === what)).length;

  it('independent children: one reconcile, the finalizer, 4 applies, write-ahead and final status', async () => {
    await applyGraph(
      client,
      graph(
        ns,
        'flat',
        ['a', 'b', 'c', 'd'].map((k) => ({ id: k, template: cm(`flat-${k}`, { k }) })),
      ),
    );
    await waitCondition(client, ns, 'flat', 'Ready', 'True');
    await controller.idle();
    await new Promise((r) => setTimeout(r, 500)); // late echoes would queue it again
    await controller.idle();
    assert.equal(reconcilesOf('flat'), 1, 'the echoes of its own writes do not reconcile the Graph again');
    assert.equal(writesOf('flat', 'graph'), 1, 'the finalizer');
    assert.equal(writesOf('flat', 'status'), 2, 'write-ahead inventory and final status');
    assert.equal(writesOf('flat'), 7);
  });

  it('a chain with a literal name: one write-ahead (the dependent foreseen), one final status', async () => {
    await applyGraph(
      client,
      graph(ns, 'chain', [
        { id: 'base', template: cm('chain-base', { v: '1' }) },
        { id: 'derived', template: cm('chain-derived', { from: '${base.metadata.name}' }) },
      ]),
    );
    await waitCondition(client, ns, 'chain', 'Ready', 'True');
    await controller.idle();
    await new Promise((r) => setTimeout(r, 500));
    await controller.idle();
    assert.equal(reconcilesOf('chain'), 1);
    assert.equal(writesOf('chain', 'status'), 2, 'write-ahead of both objects, final status');
    assert.equal(writesOf('chain', 'chain-base') + writesOf('chain', 'chain-derived'), 2);
    assert.equal(writesOf('chain'), 5);
  });

  it('a chain whose dependent name is computed: a second write-ahead before the dependent is created', async () => {
    await applyGraph(
      client,
      graph(ns, 'computed', [
        { id: 'base', template: cm('computed-base', { v: '1' }) },
        { id: 'derived', template: cm('${base.metadata.name}-x', { v: '2' }) },
      ]),
    );
    const g = await waitCondition(client, ns, 'computed', 'Ready', 'True');
    await controller.idle();
    await new Promise((r) => setTimeout(r, 500));
    await controller.idle();
    assert.equal(reconcilesOf('computed'), 1);
    assert.equal(
      writesOf('computed', 'status'),
      3,
      'a write-ahead per pass that creates objects, final status',
    );
    const inventory = (g.status as { managedResources: { name: string; uid?: string }[] }).managedResources;
    assert.deepEqual(
      inventory.map((r) => [r.name, typeof r.uid]),
      [
        ['computed-base', 'string'],
        ['computed-base-x', 'string'],
      ],
    );
  });

  it('readiness is noticed from the watch event that makes it true', async () => {
    await client.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'signal', namespace: ns },
      data: { ready: 'no' },
    });
    await applyGraph(
      client,
      graph(ns, 'gated', [
        {
          id: 'signal',
          ref: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'signal' } },
          readyWhen: ['${signal.data.ready == "yes"}'],
        },
        { id: 'after', template: cm('gated-after', { v: '${signal.data.ready}' }) },
      ]),
    );
    await waitCondition(client, ns, 'gated', 'Ready', 'False', 'WaitingForReadiness');
    await controller.idle();
    const mark = traces.length;
    await client.apply(
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'signal', namespace: ns },
        data: { ready: 'yes' },
      },
      { fieldManager: 'test', force: true },
    );
    await waitCondition(client, ns, 'gated', 'Ready', 'True');
    const since = traces.slice(mark).filter((t) => t.key === `${ns}/gated`);
    const queued = since.find((t) => t.event === 'queued');
    assert.ok(queued && queued.event === 'queued', 'queued again after the change');
    assert.equal(queued.cause, 'watch');
    assert.match(queued.by ?? '', new RegExp(`^configmap/signal -n ${ns}`));
  });
});
