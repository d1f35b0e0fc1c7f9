// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * Lifecycles on a real API server: a CRD installed after the Graph that uses it, a nested graph with a
 * capture and its deletion, a stamped child Graph, and the `kgraph controller` process killed
 * mid-convergence then replaced (design/graph.md §14, §22).
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import type { GraphController } from '../../../src/controller/graph/controller.ts';
import type { KubeObject, RestClient } from '../../../src/kube/index.ts';
import { freePort, spawnController, waitReadyz } from '../../support/controllerProcess.ts';
import { sharedControlPlane } from '../../support/controlPlane.ts';
import { adminClient } from '../../support/kube.ts';
import {
  applyGraph,
  cm,
  conditionOf,
  controllerFixture,
  ensureCrd,
  eventually,
  getCm,
  getGraph,
  gone,
  graph,
  graphNamespace,
  startController,
  stopController,
  waitCondition,
} from './support.ts';

describe('Graph controller lifecycles', () => {
  let client: RestClient;
  let ns: string;
  let controller: GraphController;

  before(async () => {
    ({ client, ns, controller } = await controllerFixture('gc-life'));
  });
  after(() => stopController(controller));

  it('a Graph created before the CRD it uses is recompiled and proceeds once the CRD is installed', async () => {
    const group = `later${process.pid}.kgraph.test`;
    await applyGraph(
      client,
      graph(ns, 'later', [
        {
          id: 'gadget',
          template: {
            apiVersion: `${group}/v1`,
            kind: 'Gadget',
            metadata: { name: 'g1' },
            spec: { size: 3 },
          },
        },
      ]),
    );
    const invalid = await waitCondition(client, ns, 'later', 'Accepted', 'False', 'InvalidGraph');
    assert.match(conditionOf(invalid, 'Accepted')?.message ?? '', /Gadget/);
    await client.create({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `gadgets.${group}` },
      spec: {
        group,
        scope: 'Namespaced',
        names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } },
              },
            },
          },
        ],
      },
    });
    await waitCondition(client, ns, 'later', 'Ready', 'True', 'Ready', 60_000);
    const obj = await client.get({ apiVersion: `${group}/v1`, kind: 'Gadget', namespace: ns, name: 'g1' });
    assert.deepEqual(obj.spec, { size: 3 });
  });

  it('a nested graph captures a parent node, is addressed from outside, and is deleted with the Graph', async () => {
    await applyGraph(
      client,
      graph(ns, 'nest', [
        { id: 'shared', def: { app: 'nest' } },
        {
          id: 'backend',
          graph: { nodes: [{ id: 'inner', template: cm('${shared.app}-inner', { v: 'i' }) }] },
        },
        { id: 'outer', template: cm('nest-outer', { inner: '${backend.inner.metadata.name}' }) },
      ]),
    );
    const g = await waitCondition(client, ns, 'nest', 'Ready', 'True');
    const inner = await getCm(client, ns, 'nest-inner');
    assert.equal(inner?.metadata.labels?.['kro.run/node-id'], 'backend.inner');
    assert.equal(inner?.metadata.annotations?.['internal.kro.run/node-path'], 'backend/inner');
    assert.deepEqual((await getCm(client, ns, 'nest-outer'))?.data, { inner: 'nest-inner' });
    assert.deepEqual(
      (g.status as { managedResources: { nodeID: string }[] }).managedResources.map((r) => r.nodeID),
      ['backend.inner', 'outer'],
    );
    await client.delete({ apiVersion: 'kro.run/v1alpha1', kind: 'Graph', namespace: ns, name: 'nest' });
    await gone(client, ns, 'nest-outer');
    await gone(client, ns, 'nest-inner');
    await eventually('graph gone', async () => ((await getGraph(client, ns, 'nest')) ? undefined : true));
  });

  it('stamps a child Graph that is reconciled on its own, with a deferred expression', async () => {
    await applyGraph(
      client,
      graph(ns, 'parent', [
        { id: 'cfg', def: { suffix: 'kid' } },
        {
          id: 'child',
          template: {
            apiVersion: 'kro.run/v1alpha1',
            kind: 'Graph',
            metadata: { name: 'child-${cfg.suffix}' },
            spec: {
              nodes: [
                { id: 'base', template: cm('stamped-base', { v: '1' }) },
                // Evaluated by the child, not the parent (design/graph.md §14.4).
                { id: 'copy', template: cm("${'${base.metadata.name}'}-copy", { v: '2' }) },
              ],
            },
          },
        },
      ]),
    );
    await waitCondition(client, ns, 'parent', 'Ready', 'True');
    await waitCondition(client, ns, 'child-kid', 'Ready', 'True');
    assert.ok(await getCm(client, ns, 'stamped-base-copy'));
    const child = await getGraph(client, ns, 'child-kid');
    assert.equal(child?.metadata.labels?.['kro.run/node-id'], 'child');
    // Deleting the parent deletes the child Graph, whose finalizer deletes its own resources.
    await client.delete({ apiVersion: 'kro.run/v1alpha1', kind: 'Graph', namespace: ns, name: 'parent' });
    await eventually('child gone', async () =>
      (await getGraph(client, ns, 'child-kid')) ? undefined : true,
    );
    await gone(client, ns, 'stamped-base-copy');
    await gone(client, ns, 'stamped-base');
  });
});

describe('kgraph controller process', () => {
  let client: RestClient;
  let ns: string;
  let proc: ChildProcess | undefined;

  before(async () => {
    client = await adminClient();
    ns = await graphNamespace('gc-kill');
    await ensureCrd();
  });
  after(() => {
    proc?.kill('SIGKILL');
  });

  it('serves health and metrics; killed mid-convergence and replaced, it converges with no duplicate or leak', async () => {
    const cp = await sharedControlPlane();
    const port = await freePort();
    const total = 400;
    await applyGraph(
      client,
      graph(ns, 'big', [
        { id: 'cfg', def: { ids: Array.from({ length: total }, (_, i) => `n${i}`) } },
        { id: 'fleet', forEach: [{ i: '${cfg.ids}' }], template: cm('big-${i}', { i: '${i}' }) },
      ]),
    );
    // --no-rgds: this test is about Graphs; RGDs of other test files are served by their own controllers.
    proc = spawnController(cp.kubeconfigPath, port, ['--namespace', ns, '--no-rgds']);
    const ready = await waitReadyz(port, 'controller /readyz', 60_000, 50);
    assert.ok(ready);
    assert.equal((await fetch(`http://127.0.0.1:${port}/healthz`)).status, 200);
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    assert.match(metrics, /kgraph_api_requests_total\{verb="list"\} \d+/);
    assert.match(metrics, /kgraph_workqueue_depth \d+/);

    const list = async (): Promise<KubeObject[]> =>
      (
        await client.listAll(
          { apiVersion: 'v1', kind: 'ConfigMap', namespace: ns },
          { labelSelector: { 'kro.run/node-id': 'fleet' } },
        )
      ).items;
    const atKill = await eventually(
      'first items created',
      async () => {
        const n = (await list()).length;
        return n > 0 ? n : undefined;
      },
      60_000,
      10,
    ).catch(async (e) => {
      throw new Error(
        `${(e as Error).message}; graph: ${JSON.stringify((await getGraph(client, ns, 'big'))?.status)}`,
      );
    });
    proc.kill('SIGKILL');
    await once(proc, 'exit');
    proc = undefined;
    assert.ok(atKill < total, `killed after ${atKill} of ${total} items`);

    const replacement = await startController([ns]);
    try {
      const g = await waitCondition(client, ns, 'big', 'Ready', 'True', 'Ready', 120_000);
      const items = await list();
      assert.equal(items.length, total);
      assert.equal(new Set(items.map((o) => o.metadata.name)).size, total);
      const inv = (g.status as { managedResources: { name: string; uid?: string }[] }).managedResources;
      assert.equal(inv.length, total);
      const uids = new Map(items.map((o) => [o.metadata.name, o.metadata.uid]));
      for (const e of inv) assert.equal(e.uid, uids.get(e.name), e.name);
      const all = await client.listAll({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns });
      assert.equal(
        all.items.filter((o) => o.metadata.name?.startsWith('big-')).length,
        total,
        'no leaked object',
      );
    } finally {
      await replacement.stop();
      replacement.client.close();
    }
  });
});

describe('deletion after a crash before the UID record', () => {
  it('deletes objects of UID-less inventory entries that its template manager owns, and leaves others', async () => {
    const client = await adminClient();
    const ns = await graphNamespace('gc-crash');
    const first = await startController([ns]);
    await applyGraph(
      client,
      graph(ns, 'crashy', [
        { id: 'mine', template: cm('crashy-mine', { v: '1' }) },
        { id: 'other', template: cm('crashy-other', { v: '1' }) },
      ]),
    );
    await waitCondition(client, ns, 'crashy', 'Ready', 'True');
    await first.stop();
    first.client.close();
    // As if the controller had crashed between its applies and the UID record; and another object
    // of the same name as an intent entry, created by someone else.
    await client.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'crashy-other' });
    await client.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'crashy-other', namespace: ns },
      data: { v: 'foreign' },
    });
    const g = await getGraph(client, ns, 'crashy');
    const entries = (
      (g?.status as { managedResources?: Record<string, unknown>[] } | undefined)?.managedResources ?? []
    ).map((e) => {
      const { uid: _uid, ...rest } = e;
      return rest;
    });
    await client.patch(
      { apiVersion: 'kro.run/v1alpha1', kind: 'Graph', namespace: ns, name: 'crashy' },
      { status: { managedResources: entries } },
      { subresource: 'status' },
    );
    await client.delete({ apiVersion: 'kro.run/v1alpha1', kind: 'Graph', namespace: ns, name: 'crashy' });
    const second = await startController([ns]);
    try {
      await eventually('graph gone', async () => ((await getGraph(client, ns, 'crashy')) ? undefined : true));
      assert.equal(await getCm(client, ns, 'crashy-mine'), undefined);
      assert.deepEqual((await getCm(client, ns, 'crashy-other'))?.data, { v: 'foreign' });
    } finally {
      await second.stop();
      second.client.close();
    }
  });
});
