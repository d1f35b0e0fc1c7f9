// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * The Graph controller on a real API server: acceptance, templates, renames, includeWhen contagion,
 * forEach, readiness and refs.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { GraphController } from '../../../src/controller/graph/controller.ts';
import type { RestClient } from '../../../src/kube/index.ts';
import {
  applyGraph,
  cm,
  conditionOf,
  controllerFixture,
  getCm,
  gone,
  graph,
  stopController,
  waitCondition,
} from './support.ts';

describe('Graph controller basics', () => {
  let client: RestClient;
  let ns: string;
  let controller: GraphController;

  before(async () => {
    ({ client, ns, controller } = await controllerFixture('gc-basics'));
  });
  after(() => stopController(controller));

  it('toggles Accepted between Compiled and InvalidGraph with edits', async () => {
    await applyGraph(client, graph(ns, 'acc', [{ id: 'cm', template: cm('acc-cm', { k: 'v' }) }]));
    const ok = await waitCondition(client, ns, 'acc', 'Accepted', 'True', 'Compiled');
    assert.match(conditionOf(ok, 'Accepted')?.message ?? '', /compiled 1 nodes/);
    await waitCondition(client, ns, 'acc', 'Ready', 'True', 'Ready');
    // An unknown identifier makes the graph invalid; nothing is applied for it.
    await applyGraph(
      client,
      graph(ns, 'acc', [
        { id: 'cm', template: cm('acc-cm', { k: 'v' }) },
        { id: 'other', template: cm('acc-other', { k: '${nope.metadata.name}' }) },
      ]),
    );
    const bad = await waitCondition(client, ns, 'acc', 'Accepted', 'False', 'InvalidGraph');
    assert.match(conditionOf(bad, 'Accepted')?.message ?? '', /nope/);
    assert.equal(conditionOf(bad, 'Ready')?.status, 'False');
    assert.equal(conditionOf(bad, 'Ready')?.reason, 'InvalidGraph');
    assert.equal(await getCm(client, ns, 'acc-other'), undefined);
    await applyGraph(client, graph(ns, 'acc', [{ id: 'cm', template: cm('acc-cm', { k: 'v2' }) }]));
    await waitCondition(client, ns, 'acc', 'Accepted', 'True', 'Compiled');
    await waitCondition(client, ns, 'acc', 'Ready', 'True');
    assert.deepEqual((await getCm(client, ns, 'acc-cm'))?.data, { k: 'v2' });
  });

  it('creates a template with labels, annotations and inventory; a rename prunes the old object', async () => {
    await applyGraph(
      client,
      graph(ns, 'ren', [
        { id: 'naming', def: { prefix: 'ren' } },
        { id: 'cm', template: cm('${naming.prefix}-one', { a: '1' }) },
      ]),
    );
    const g = await waitCondition(client, ns, 'ren', 'Ready', 'True');
    const obj = await getCm(client, ns, 'ren-one');
    assert.ok(obj);
    assert.equal(obj.metadata.labels?.['kro.run/node-id'], 'cm');
    assert.equal(obj.metadata.annotations?.['internal.kro.run/node-path'], 'cm');
    assert.equal(obj.metadata.annotations?.['internal.kro.run/apply-order'], '1');
    const managers = (obj.metadata.managedFields ?? []).map((m) => m.manager);
    assert.ok(
      managers.some((m) => m?.startsWith('kro-graphengine.tmpl.')),
      managers.join(','),
    );
    const status = g.status as {
      managedResources: { name: string; uid?: string; nodeID: string }[];
      appliedServiceAccount: string;
    };
    assert.deepEqual(
      status.managedResources.map((r) => [r.nodeID, r.name, r.uid]),
      [['cm', 'ren-one', obj.metadata.uid]],
    );
    assert.equal(status.appliedServiceAccount, `system:serviceaccount:${ns}:default`);
    assert.ok((g.metadata.finalizers ?? []).includes('kro.run/graph-finalizer'));

    await applyGraph(
      client,
      graph(ns, 'ren', [
        { id: 'naming', def: { prefix: 'ren' } },
        { id: 'cm', template: cm('${naming.prefix}-two', { a: '1' }) },
      ]),
    );
    await gone(client, ns, 'ren-one');
    assert.ok(await getCm(client, ns, 'ren-two'));
    const after2 = await waitCondition(client, ns, 'ren', 'Ready', 'True');
    assert.deepEqual(
      (after2.status as { managedResources: { name: string }[] }).managedResources.map((r) => r.name),
      ['ren-two'],
    );
  });

  it('contagious includeWhen: excluded chain absent, created when flipped on, pruned when flipped off', async () => {
    const nodes = (on: boolean) => [
      { id: 'flag', def: { on } },
      { id: 'a', includeWhen: ['${flag.on}'], template: cm('inc-a', { v: 'a' }) },
      { id: 'b', template: cm('inc-b', { from: '${a.metadata.name}' }) },
      { id: 'c', template: cm('inc-c', { from: '${b.metadata.name}' }) },
      { id: 'd', template: cm('inc-d', { v: 'd' }) },
    ];
    await applyGraph(client, graph(ns, 'inc', nodes(false)));
    await waitCondition(client, ns, 'inc', 'Ready', 'True');
    assert.ok(await getCm(client, ns, 'inc-d'));
    for (const n of ['inc-a', 'inc-b', 'inc-c']) assert.equal(await getCm(client, ns, n), undefined, n);

    await applyGraph(client, graph(ns, 'inc', nodes(true)));
    await waitCondition(client, ns, 'inc', 'Ready', 'True');
    for (const n of ['inc-a', 'inc-b', 'inc-c', 'inc-d']) assert.ok(await getCm(client, ns, n), n);
    assert.deepEqual((await getCm(client, ns, 'inc-c'))?.data, { from: 'inc-b' });

    await applyGraph(client, graph(ns, 'inc', nodes(false)));
    for (const n of ['inc-a', 'inc-b', 'inc-c']) await gone(client, ns, n);
    assert.ok(await getCm(client, ns, 'inc-d'));
    const g = await waitCondition(client, ns, 'inc', 'Ready', 'True');
    assert.deepEqual(
      (g.status as { managedResources: { name: string }[] }).managedResources.map((r) => r.name),
      ['inc-d'],
    );
  });

  it('forEach: one object per item of the cartesian product, outer first; a shrink prunes', async () => {
    const nodes = (regions: string[]) => [
      { id: 'cfg', def: { regions, tiers: ['web', 'api'] } },
      {
        id: 'cms',
        forEach: [{ region: '${cfg.regions}' }, { tier: '${cfg.tiers}' }],
        template: cm('fe-${region}-${tier}', { region: '${region}', tier: '${tier}' }),
      },
    ];
    await applyGraph(client, graph(ns, 'fe', nodes(['east', 'west'])));
    const g = await waitCondition(client, ns, 'fe', 'Ready', 'True');
    const names = (g.status as { managedResources: { name: string }[] }).managedResources.map((r) => r.name);
    assert.deepEqual(names, ['fe-east-web', 'fe-east-api', 'fe-west-web', 'fe-west-api']);
    const item = await getCm(client, ns, 'fe-west-web');
    assert.equal(item?.metadata.labels?.['kro.run/collection-index'], '2');
    assert.equal(item?.metadata.labels?.['kro.run/collection-size'], '4');
    assert.equal(item?.metadata.labels?.['kro.run/instance-id'], g.metadata.uid);

    await applyGraph(client, graph(ns, 'fe', nodes(['east'])));
    await gone(client, ns, 'fe-west-web');
    await gone(client, ns, 'fe-west-api');
    assert.ok(await getCm(client, ns, 'fe-east-web'));
    const g2 = await waitCondition(client, ns, 'fe', 'Ready', 'True');
    assert.deepEqual(
      (g2.status as { managedResources: { name: string }[] }).managedResources.map((r) => r.name),
      ['fe-east-web', 'fe-east-api'],
    );
  });

  it('readiness goes from WaitingForReadiness to Ready when the readyWhen becomes true', async () => {
    await client.create({
      ...cm('rdy-src', { state: 'starting' }),
      metadata: { name: 'rdy-src', namespace: ns },
    });
    await applyGraph(
      client,
      graph(ns, 'rdy', [
        {
          id: 'src',
          ref: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'rdy-src' } },
          readyWhen: ["${src.data.state == 'up'}"],
        },
        { id: 'out', template: cm('rdy-out', { state: '${src.data.state}' }) },
      ]),
    );
    const waiting = await waitCondition(
      client,
      ns,
      'rdy',
      'ResourcesConverged',
      'False',
      'WaitingForReadiness',
    );
    assert.equal(conditionOf(waiting, 'Ready')?.reason, 'WaitingForReadiness');
    assert.ok(await getCm(client, ns, 'rdy-out'), 'scope-gated: the dependent is applied before readiness');
    await client.apply(
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'rdy-src', namespace: ns },
        data: { state: 'up' },
      },
      { fieldManager: 'test', force: true },
    );
    await waitCondition(client, ns, 'rdy', 'Ready', 'True', 'Ready');
    assert.deepEqual((await getCm(client, ns, 'rdy-out'))?.data, { state: 'up' });
  });

  it('a ref to a missing object waits (DataPending) and proceeds once it appears', async () => {
    await applyGraph(
      client,
      graph(ns, 'wait', [
        { id: 'src', ref: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'wait-src' } } },
        { id: 'out', template: cm('wait-out', { copy: '${src.data.v}' }) },
        { id: 'free', template: cm('wait-free', { v: 'x' }) },
      ]),
    );
    const g = await waitCondition(client, ns, 'wait', 'ResourcesConverged', 'False', 'DataPending');
    assert.equal(conditionOf(g, 'Accepted')?.status, 'True');
    assert.ok(await getCm(client, ns, 'wait-free'), 'independent nodes are applied');
    assert.equal(await getCm(client, ns, 'wait-out'), undefined);
    await client.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'wait-src', namespace: ns },
      data: { v: 'hello' },
    });
    await waitCondition(client, ns, 'wait', 'Ready', 'True');
    assert.deepEqual((await getCm(client, ns, 'wait-out'))?.data, { copy: 'hello' });
  });

  it('never prunes while data is pending: resources of a node whose input vanished are kept', async () => {
    await client.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'pend-src', namespace: ns },
      data: { on: 'true', v: 'a' },
    });
    await applyGraph(
      client,
      graph(ns, 'pend', [
        { id: 'src', ref: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'pend-src' } } },
        { id: 'gated', includeWhen: ["${src.data.on == 'true'}"], template: cm('pend-gated', { v: '1' }) },
        { id: 'copy', template: cm('pend-copy', { v: '${src.data.v}' }) },
      ]),
    );
    const ready = await waitCondition(client, ns, 'pend', 'Ready', 'True');
    const uids = (ready.status as { managedResources: { uid: string }[] }).managedResources.map((r) => r.uid);
    await client.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'pend-src' });
    const pending = await waitCondition(client, ns, 'pend', 'ResourcesConverged', 'False', 'DataPending');
    await new Promise((r) => setTimeout(r, 1000));
    assert.ok(await getCm(client, ns, 'pend-gated'), 'kept: includeWhen is pending, not false');
    assert.ok(await getCm(client, ns, 'pend-copy'), 'kept: its input is pending');
    assert.deepEqual(
      (pending.status as { managedResources: { uid: string }[] }).managedResources.map((r) => r.uid),
      uids,
    );
    // The input comes back with the gate off: now the gated node is pruned.
    await client.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'pend-src', namespace: ns },
      data: { on: 'false', v: 'b' },
    });
    await gone(client, ns, 'pend-gated');
    await waitCondition(client, ns, 'pend', 'Ready', 'True');
    assert.deepEqual((await getCm(client, ns, 'pend-copy'))?.data, { v: 'b' });
  });

  it('a genuine CEL error at run time aborts the pass (ExpressionError, not ApplyFailed) and prunes nothing', async () => {
    await applyGraph(
      client,
      graph(ns, 'cerr', [
        { id: 'cfg', def: { s: '12' } },
        { id: 'first', template: cm('cerr-first', { v: '${string(int(cfg.s) + 1)}' }) },
      ]),
    );
    await waitCondition(client, ns, 'cerr', 'Ready', 'True');
    assert.deepEqual((await getCm(client, ns, 'cerr-first'))?.data, { v: '13' });
    await applyGraph(
      client,
      graph(ns, 'cerr', [
        { id: 'cfg', def: { s: 'abc' } },
        { id: 'second', template: cm('cerr-second', { v: '${string(int(cfg.s) + 1)}' }) },
      ]),
    );
    const failed = await waitCondition(client, ns, 'cerr', 'ResourcesConverged', 'False', 'ExpressionError');
    assert.match(conditionOf(failed, 'ResourcesConverged')?.message ?? '', /node second/);
    assert.ok(await getCm(client, ns, 'cerr-first'), 'nothing is pruned by an aborted pass');
    assert.equal(await getCm(client, ns, 'cerr-second'), undefined);
  });
});
