// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * Field ownership and writes on a real API server: patch contribution and release, status and
 * main-resource patches, two Graphs contending, drift repair, an out-of-band delete, a ServiceAccount
 * without rights and deletion order (design/graph.md §13, §22, §24).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { GraphController } from '../../../src/controller/graph/controller.ts';
import type { RestClient } from '../../../src/kube/index.ts';
import { widgetCrd } from '../../support/kube.ts';
import {
  applyGraph,
  cm,
  conditionOf,
  controllerFixture,
  eventually,
  getCm,
  getGraph,
  gone,
  graph,
  stopController,
  waitCondition,
} from './support.ts';

describe('Graph controller ownership', () => {
  let client: RestClient;
  let ns: string;
  let controller: GraphController;

  before(async () => {
    ({ client, ns, controller } = await controllerFixture('gc-own'));
  });
  after(() => stopController(controller));

  it('a patch contributes fields, then releases them when removed; the target survives', async () => {
    await client.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'pt-target', namespace: ns },
      data: { own: 'mine' },
    });
    await applyGraph(
      client,
      graph(ns, 'pt', [
        { id: 'keep', def: { v: 'x' } },
        {
          id: 'contrib',
          patch: {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: 'pt-target', labels: { team: 'a' } },
            data: { added: '${keep.v}' },
          },
        },
      ]),
    );
    const g = await waitCondition(client, ns, 'pt', 'Ready', 'True');
    const target = await getCm(client, ns, 'pt-target');
    assert.deepEqual(target?.data, { own: 'mine', added: 'x' });
    assert.equal(target?.metadata.labels?.team, 'a');
    const contributions = (
      g.status as { contributions: { name: string; fieldManager: string; subresource: string }[] }
    ).contributions;
    assert.equal(contributions.length, 1);
    assert.match(
      contributions[0]?.fieldManager ?? '',
      /^kro-graphengine\.patch\.[0-9a-f]{12}\.[0-9a-f]{12}$/,
    );
    assert.deepEqual((g.status as { managedResources: unknown[] }).managedResources, []);

    await applyGraph(client, graph(ns, 'pt', [{ id: 'keep', def: { v: 'x' } }]));
    await eventually('contribution released', async () => {
      const t = await getCm(client, ns, 'pt-target');
      return t &&
        (t.data as Record<string, string> | undefined)?.added === undefined &&
        t.metadata.labels?.team === undefined
        ? t
        : undefined;
    });
    const released = await waitCondition(client, ns, 'pt', 'Ready', 'True');
    assert.deepEqual((released.status as { contributions: unknown[] }).contributions, []);
    assert.deepEqual((await getCm(client, ns, 'pt-target'))?.data, { own: 'mine' });
  });

  it('a status patch is forced onto the status subresource; a main-resource patch conflict is reported, never forced', async () => {
    const group = `own${process.pid}.kgraph.test`;
    await client.create(widgetCrd(group));
    await eventually('Widget served', async () =>
      client.list({ apiVersion: `${group}/v1`, plural: 'widgets', namespace: ns }).then(() => true),
    );
    await eventually('Widget created', () =>
      client.create({
        apiVersion: `${group}/v1`,
        kind: 'Widget',
        metadata: { name: 'w1', namespace: ns },
        spec: { size: 1 },
      }),
    );
    // Someone else owns status.phase: the status patch is forced anyway (design/graph.md §13.2).
    await client.applyStatus(
      {
        apiVersion: `${group}/v1`,
        kind: 'Widget',
        metadata: { name: 'w1', namespace: ns },
        status: { phase: 'Old' },
      },
      { fieldManager: 'other-controller', force: true },
    );
    await applyGraph(
      client,
      graph(ns, 'stpatch', [
        { id: 'phase', def: { value: 'Running' } },
        {
          id: 'wstatus',
          patch: {
            apiVersion: `${group}/v1`,
            kind: 'Widget',
            metadata: { name: 'w1' },
            status: { phase: '${phase.value}' },
          },
        },
      ]),
    );
    await waitCondition(client, ns, 'stpatch', 'Ready', 'True', 'Ready', 60_000);
    const w = await client.get({ apiVersion: `${group}/v1`, kind: 'Widget', namespace: ns, name: 'w1' });
    assert.deepEqual(w.status, { phase: 'Running' });
    const g = await getGraph(client, ns, 'stpatch');
    assert.equal(
      (g?.status as { contributions?: { subresource: string }[] } | undefined)?.contributions?.[0]
        ?.subresource,
      'status',
    );

    // A main-resource field owned by another manager: reported, not taken.
    await client.apply(
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'owned-elsewhere', namespace: ns },
        data: { k: 'theirs' },
      },
      { fieldManager: 'kubectl', force: true },
    );
    await applyGraph(
      client,
      graph(ns, 'mainpatch', [
        {
          id: 'p',
          patch: {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: 'owned-elsewhere' },
            data: { k: 'ours' },
          },
        },
      ]),
    );
    const c = await waitCondition(
      client,
      ns,
      'mainpatch',
      'ResourcesConverged',
      'False',
      'FieldManagerConflict',
    );
    assert.match(conditionOf(c, 'ResourcesConverged')?.message ?? '', /kubectl/);
    assert.deepEqual((await getCm(client, ns, 'owned-elsewhere'))?.data, { k: 'theirs' });
  });

  it('a patch never creates its target: it waits for it, and a release after the target is gone writes nothing', async () => {
    const patchNode = {
      id: 'p',
      patch: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'pw-target' }, data: { added: 'yes' } },
    };
    await applyGraph(client, graph(ns, 'pw', [patchNode]));
    const waiting = await waitCondition(client, ns, 'pw', 'Ready', 'False');
    assert.notEqual(conditionOf(waiting, 'ResourcesConverged')?.status, 'True');
    await new Promise((r) => setTimeout(r, 1000));
    assert.equal(await getCm(client, ns, 'pw-target'), undefined, 'the patch did not create its target');
    await client.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'pw-target', namespace: ns },
      data: { own: 'x' },
    });
    await waitCondition(client, ns, 'pw', 'Ready', 'True');
    assert.deepEqual((await getCm(client, ns, 'pw-target'))?.data, { own: 'x', added: 'yes' });
    await client.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'pw-target' });
    await gone(client, ns, 'pw-target');
    await applyGraph(client, graph(ns, 'pw', [{ id: 'other', def: { v: 1 } }]));
    const g = await waitCondition(client, ns, 'pw', 'Ready', 'True');
    assert.deepEqual((g.status as { contributions: unknown[] }).contributions, []);
    assert.equal(await getCm(client, ns, 'pw-target'), undefined, 'the release did not recreate the target');
  });

  it('two Graphs templating one object: FieldManagerConflict reported, no takeover', async () => {
    await applyGraph(
      client,
      graph(ns, 'first', [{ id: 'shared', template: cm('contended', { k: 'first' }) }]),
    );
    await waitCondition(client, ns, 'first', 'Ready', 'True');
    await applyGraph(
      client,
      graph(ns, 'second', [{ id: 'shared', template: cm('contended', { k: 'second' }) }]),
    );
    const g = await waitCondition(
      client,
      ns,
      'second',
      'ResourcesConverged',
      'False',
      'FieldManagerConflict',
    );
    assert.match(conditionOf(g, 'ResourcesConverged')?.message ?? '', /kro-graphengine\.tmpl\./);
    // Not fought over: the first Graph's value stays, the first Graph stays Ready.
    await new Promise((r) => setTimeout(r, 1500));
    assert.deepEqual((await getCm(client, ns, 'contended'))?.data, { k: 'first' });
    assert.equal(conditionOf(await getGraph(client, ns, 'first'), 'Ready')?.status, 'True');
    // The second Graph never recorded the object with a UID: deleting it leaves the object alone.
    const entries = (g.status as { managedResources: { name: string; uid?: string }[] }).managedResources;
    assert.ok(
      entries.every((e) => e.uid === undefined),
      JSON.stringify(entries),
    );
    await client.delete({ apiVersion: 'kro.run/v1alpha1', kind: 'Graph', namespace: ns, name: 'second' });
    await eventually('second deleted', async () =>
      (await getGraph(client, ns, 'second')) ? undefined : true,
    );
    assert.deepEqual((await getCm(client, ns, 'contended'))?.data, { k: 'first' });
  });

  it('repairs drift on a managed field (reclaimed from a human) and recreates an object deleted out of band', async () => {
    await applyGraph(client, graph(ns, 'drift', [{ id: 'cm', template: cm('drift-cm', { k: 'v' }) }]));
    await waitCondition(client, ns, 'drift', 'Ready', 'True');
    // A human edits the managed field with their own apply: kgraph reclaims it with force.
    await client.apply(
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'drift-cm', namespace: ns },
        data: { k: 'human' },
      },
      { fieldManager: 'kubectl', force: true },
    );
    await eventually('drift repaired', async () =>
      ((await getCm(client, ns, 'drift-cm'))?.data as Record<string, string> | undefined)?.k === 'v'
        ? true
        : undefined,
    );
    // A `kubectl edit` (an Update: the field's ownership moves to the editor) is reclaimed too.
    await client.patch(
      { apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'drift-cm' },
      { data: { k: 'edited' } },
      { fieldManager: 'kubectl-edit' },
    );
    await eventually('edit reverted', async () =>
      ((await getCm(client, ns, 'drift-cm'))?.data as Record<string, string> | undefined)?.k === 'v'
        ? true
        : undefined,
    );
    const before = await getCm(client, ns, 'drift-cm');
    await client.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'drift-cm' });
    const recreated = await eventually('recreated', async () => {
      const o = await getCm(client, ns, 'drift-cm');
      return o && o.metadata.uid !== before?.metadata.uid ? o : undefined;
    });
    assert.deepEqual(recreated.data, { k: 'v' });
    const g = await eventually('inventory has the new UID', async () => {
      const x = await getGraph(client, ns, 'drift');
      const r = (x?.status as { managedResources?: { uid?: string }[] } | undefined)?.managedResources ?? [];
      return r[0]?.uid === recreated.metadata.uid ? x : undefined;
    });
    assert.ok(g);
  });

  it('a ServiceAccount without rights: ApplyFailed with the 403, nothing written', async () => {
    // It may read ConfigMaps (else the read check refuses first, ReadForbidden), not write them.
    await client.apply(
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'Role',
        metadata: { name: 'cm-reader', namespace: ns },
        rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] }],
      },
      { fieldManager: 'test' },
    );
    await client.apply(
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name: 'cm-reader-nobody', namespace: ns },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'cm-reader' },
        subjects: [{ kind: 'ServiceAccount', name: 'nobody', namespace: ns }],
      },
      { fieldManager: 'test' },
    );
    await applyGraph(
      client,
      graph(ns, 'norights', [{ id: 'cm', template: cm('norights-cm', { k: 'v' }) }], {
        serviceAccountName: 'nobody',
      }),
    );
    const g = await waitCondition(client, ns, 'norights', 'ResourcesConverged', 'False', 'ApplyFailed');
    const msg = conditionOf(g, 'ResourcesConverged')?.message ?? '';
    assert.match(msg, /403/);
    assert.match(msg, new RegExp(`system:serviceaccount:${ns}:nobody`));
    assert.equal(await getCm(client, ns, 'norights-cm'), undefined);
    assert.equal(
      (g.status as { appliedServiceAccount: string }).appliedServiceAccount,
      `system:serviceaccount:${ns}:nobody`,
    );
  });

  it('deletes in reverse order through the finalizer, waiting for a lingering dependent', async () => {
    await applyGraph(
      client,
      graph(ns, 'del', [
        { id: 'base', template: cm('del-base', { v: '1' }) },
        {
          id: 'dependent',
          template: cm('del-dep', { from: '${base.metadata.name}' }, { finalizers: ['test.kgraph/hold'] }),
        },
      ]),
    );
    const g = await waitCondition(client, ns, 'del', 'Ready', 'True');
    assert.deepEqual(
      (g.status as { managedResources: { name: string }[] }).managedResources.map((r) => r.name),
      ['del-base', 'del-dep'],
    );
    await client.delete({ apiVersion: 'kro.run/v1alpha1', kind: 'Graph', namespace: ns, name: 'del' });
    // The dependent (applied last) is deleted first; it lingers on its finalizer, so base waits.
    await eventually('dependent terminating', async () =>
      (await getCm(client, ns, 'del-dep'))?.metadata.deletionTimestamp ? true : undefined,
    );
    await new Promise((r) => setTimeout(r, 1500));
    const base = await getCm(client, ns, 'del-base');
    assert.ok(base && !base.metadata.deletionTimestamp, 'base is not deleted while its dependent remains');
    assert.ok(await getGraph(client, ns, 'del'), 'the Graph keeps its finalizer meanwhile');
    await client.patch(
      { apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'del-dep' },
      { metadata: { finalizers: null } },
    );
    await gone(client, ns, 'del-base');
    await eventually('graph gone', async () => ((await getGraph(client, ns, 'del')) ? undefined : true));
  });
});
