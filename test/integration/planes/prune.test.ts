// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * Reads and pruning across planes on real control planes (design/planes.md §6.1, §12):
 * an externalRef collection observes exactly the matching objects, an empty match is an empty
 * list (not pending) and a LIST error is a hard error; an incomplete pass deletes nothing on any plane;
 * a GVK dropped from a live blueprint is still reached through the stored union by the prune of a
 * complete pass, by the finalizer and by the sweeper.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { roleNames } from '../../../src/controller/planes/claims.ts';
import { bindingName } from '../../../src/controller/planes/consumerSide.ts';
import { livenessRecordName, qualifiedName } from '../../../src/controller/planes/naming.ts';
import { installWidgetCRD } from '../../support/kube.ts';
import {
  AV,
  apply,
  BP,
  blueprint,
  CONTROLLER_NS,
  cmT,
  cond,
  eventually,
  exportOf,
  getObj,
  instanceOf,
  planesFixture,
  readyReason,
  sleep,
  waitFor,
  waitGone,
} from './support.ts';

const NS = 'ns-a';

const COLLECT = blueprint(
  'collect',
  'Collect',
  [
    {
      id: 'shared',
      externalRef: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { namespace: NS, selector: { matchLabels: { tier: '${schema.spec.tier}' } } },
      },
    },
    {
      id: 'summary',
      template: cmT('${schema.spec.name}-summary', {
        count: '${string(size(shared))}',
        names: '${shared.map(s, s.metadata.name).join(",")}',
      }),
    },
  ],
  { spec: { name: 'string', tier: 'string' }, status: { names: '${summary.data.names}' } },
);

/** A host-target collection of a kind the host cluster does not serve: the LIST fails. */
const HOST_LIST = blueprint(
  'hostlist',
  'HostList',
  [
    {
      id: 'widgets',
      target: 'host',
      externalRef: {
        apiVersion: 'w.kgraph.test/v1',
        kind: 'Widget',
        metadata: { namespace: 'default', selector: {} },
      },
    },
    { id: 'after', template: cmT('${schema.spec.name}-after', { n: '${string(size(widgets))}' }) },
  ],
  { spec: { name: 'string' } },
);

/** A provider child A, and a consumer child B that depends on a consumer externalRef. */
const KEEP = blueprint(
  'keep',
  'Keep',
  [
    { id: 'a', target: 'provider', template: cmT('${schema.spec.name}-a', { a: 'b' }, 'default') },
    {
      id: 'dep',
      externalRef: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: '${schema.spec.name}-dep' } },
    },
    { id: 'b', template: cmT('${schema.spec.name}-b', { from: '${dep.data.v}' }) },
  ],
  { spec: { name: 'string' } },
);

/** A provider Secret is the only node of its GVK; `withSecret: false` drops it. */
const drop = (withSecret: boolean) =>
  blueprint(
    'drop',
    'Drop',
    [
      ...(withSecret
        ? [
            {
              id: 'secret',
              target: 'provider',
              template: {
                apiVersion: 'v1',
                kind: 'Secret',
                metadata: { name: '${schema.spec.name}-s', namespace: 'default' },
                stringData: { a: 'b' },
              },
            },
          ]
        : []),
      { id: 'a', target: 'provider', template: cmT('${schema.spec.name}-a', { a: 'b' }, 'default') },
      {
        id: 'dep',
        externalRef: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: '${schema.spec.name}-dep' } },
      },
      { id: 'b', template: cmT('${schema.spec.name}-b', { from: '${dep.data.v}' }) },
    ],
    { spec: { name: 'string' } },
  );

describe('planes: reads and pruning across planes', () => {
  const inst = (kind: string, name: string) => getObj(p.consumer.admin, AV, kind, name, NS);
  const cget = (name: string) => getObj(p.consumer.admin, 'v1', 'ConfigMap', name, NS);
  const pget = (kind: 'ConfigMap' | 'Secret', name: string, original: string) =>
    getObj(p.management.admin, 'v1', kind, qualifiedName(p.clusterId, NS, name, original, kind), 'default');
  const record = (uid: string) =>
    getObj(p.management.admin, 'v1', 'ConfigMap', livenessRecordName(p.clusterId, uid), CONTROLLER_NS);
  const recordGvks = async (uid: string) =>
    ((await record(uid))?.data as { providerChildGVKs?: string } | undefined)?.providerChildGVKs ?? '';

  const p = planesFixture({
    namespaces: [NS],
    // The Widget type exists in the management cluster (it type-checks) but not in the host cluster.
    prepare: () => installWidgetCRD(p.management.admin, 'w.kgraph.test'),
    blueprints: [COLLECT, HOST_LIST, KEEP, drop(true)],
    grants: ['collect', 'hostlist', 'keep', 'drop'],
  });

  it('external collection: exactly the matching objects, an empty match is an empty list, a LIST error is hard', async () => {
    for (const [name, tier] of [
      ['s1', 'shared'],
      ['s2', 'shared'],
      ['p1', 'private'],
    ] as const)
      await apply(p.consumer.admin, {
        ...cmT(name, { x: 'y' }, NS),
        metadata: { name, namespace: NS, labels: { tier } },
      });
    await apply(p.consumer.admin, instanceOf('Collect', 'two', NS, { name: 'two', tier: 'shared' }));
    await apply(p.consumer.admin, instanceOf('Collect', 'none', NS, { name: 'none', tier: 'nothing' }));
    const two = await waitFor('two Ready', () => inst('Collect', 'two'), readyReason('Ready'));
    assert.equal((two.status as { names?: string }).names, 's1,s2');
    assert.deepEqual((await cget('two-summary'))?.data, { count: '2', names: 's1,s2' });
    // No match: an empty list, the pass completes (not pending).
    const none = await waitFor('none Ready', () => inst('Collect', 'none'), readyReason('Ready'));
    assert.equal((none.status as { state?: string }).state, 'ACTIVE');
    assert.deepEqual((await cget('none-summary'))?.data, { count: '0', names: '' });
    // The collection is read, never labelled.
    assert.equal((await cget('s1'))?.metadata.labels?.['krop.opendefense.cloud/instance-uid'], undefined);

    // A third match appears: the next pass observes it.
    await apply(p.consumer.admin, {
      ...cmT('s3', {}, NS),
      metadata: { name: 's3', namespace: NS, labels: { tier: 'shared' } },
    });
    await waitFor(
      'three observed',
      () => cget('two-summary'),
      (o) => (o.data as { count?: string }).count === '3',
    );

    // A LIST the host plane cannot answer is a hard error: ApplyFailed, state ERROR, dependents not applied.
    await apply(p.consumer.admin, instanceOf('HostList', 'l', NS, { name: 'l' }));
    const failed = await waitFor('ApplyFailed', () => inst('HostList', 'l'), readyReason('ApplyFailed'));
    assert.equal(cond(failed, 'Ready')?.status, 'False');
    assert.equal((failed.status as { state?: string }).state, 'ERROR');
    assert.match(cond(failed, 'Ready')?.message ?? '', /list widgets on the host plane/);
    assert.equal(await cget('l-after'), undefined);
  });

  it('prune only after a complete pass: a pending dependency deletes neither the provider nor the consumer child', async () => {
    await apply(p.consumer.admin, cmT('k-dep', { v: 'one' }, NS));
    await apply(p.consumer.admin, instanceOf('Keep', 'k', NS, { name: 'k' }));
    await waitFor('k Ready', () => inst('Keep', 'k'), readyReason('Ready'));
    assert.ok(await pget('ConfigMap', 'k', 'k-a'));
    assert.deepEqual((await cget('k-b'))?.data, { from: 'one' });

    await p.consumer.admin.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: NS, name: 'k-dep' });
    const pending = await waitFor('k pends', () => inst('Keep', 'k'), readyReason('Progressing'));
    assert.match(cond(pending, 'Ready')?.message ?? '', /dep/);
    await sleep(3_000); // three heartbeats of incomplete passes
    assert.equal(cond(await inst('Keep', 'k'), 'Ready')?.reason, 'Progressing');
    assert.ok(await pget('ConfigMap', 'k', 'k-a'), 'provider child A kept');
    assert.deepEqual((await cget('k-b'))?.data, { from: 'one' }, 'consumer child B kept');
  });

  it('dropped GVK: prune, the finalizer and the sweeper reach the old children through the stored union', async () => {
    // `one` completes; `two` and `three` pend on their missing dependency (no prune for them).
    await apply(p.consumer.admin, cmT('one-dep', { v: '1' }, NS));
    const uids = new Map<string, string>();
    for (const name of ['one', 'two', 'three']) {
      await apply(p.consumer.admin, instanceOf('Drop', name, NS, { name }));
      const o = await waitFor(
        `${name} has a Secret`,
        () => inst('Drop', name),
        () => true,
      );
      uids.set(name, o.metadata.uid ?? '');
      await waitFor(
        `${name}'s provider Secret`,
        () => pget('Secret', name, `${name}-s`),
        () => true,
      );
    }
    await waitFor('one Ready', () => inst('Drop', 'one'), readyReason('Ready'));
    for (const name of ['one', 'two', 'three'])
      assert.equal(await recordGvks(uids.get(name) ?? ''), '/v1/ConfigMap,/v1/Secret');
    const starts = p.controller.serveStarts.get('drop');

    // The provider removes the only Secret node; serving restarts on the new graph.
    await apply(p.management.admin, drop(false));
    await eventually('serving restarted', async () =>
      p.controller.serveStarts.get('drop') === (starts ?? 0) + 1 ? true : undefined,
    );
    await waitGone("one's Secret pruned by a complete pass", () => pget('Secret', 'one', 'one-s'));
    assert.ok(await pget('ConfigMap', 'one', 'one-a'));
    await waitFor(
      "the Secret GVK leaves one's union",
      () => record(uids.get('one') ?? ''),
      (o) => (o.data as { providerChildGVKs?: string }).providerChildGVKs === '/v1/ConfigMap',
    );
    // Incomplete passes on the new graph prune nothing and keep the Secret GVK in the union.
    await sleep(2_000);
    for (const name of ['two', 'three']) {
      assert.ok(await pget('Secret', name, `${name}-s`), `${name}'s Secret kept while pending`);
      assert.equal(await recordGvks(uids.get(name) ?? ''), '/v1/ConfigMap,/v1/Secret');
    }

    // The finalizer of `two` deletes its Secret, which the current graph no longer has.
    await p.consumer.admin.delete({ apiVersion: AV, kind: 'Drop', namespace: NS, name: 'two' });
    await waitGone('two deleted', () => inst('Drop', 'two'));
    assert.equal(await pget('Secret', 'two', 'two-s'), undefined);
    assert.equal(await record(uids.get('two') ?? ''), undefined);

    // `three` becomes unreachable for kgraph (the consumer revokes this blueprint's serving role):
    // the sweeper reclaims its Secret from the stored union.
    const { exportName } = exportOf(await p.management.admin.get(BP('drop')));
    await p.consumer.admin.delete({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      name: bindingName(roleNames(exportName).serve),
    });
    await eventually('drop no longer served', async () =>
      p.controller.loops.has(`drop|${p.consumer.name}`) ? undefined : true,
    );
    const later = () => new Date(Date.now() + 2 * 3_600_000);
    const report = await p.controller.sweeper.withClock(later, new Date(0)).sweep();
    assert.equal(report.decisions.get(livenessRecordName(p.clusterId, uids.get('three') ?? '')), 'swept');
    assert.equal(await pget('Secret', 'three', 'three-s'), undefined);
    assert.equal(await pget('ConfigMap', 'three', 'three-a'), undefined);
    assert.equal(await record(uids.get('three') ?? ''), undefined);
  });
});
