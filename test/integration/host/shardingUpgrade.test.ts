// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * The upgrade from one controller to sharded replicas, in two phases (design/sharding.md §4): children
 * stamped before the upgrade carry no bucket; until none that an owner claims is left, the replicas
 * cache every child of kgraph's (the shard map says `labellingChildren`), so each owner's pass re-applies
 * its children with the bucket and an RGD instance's prune still finds the unlabelled orphans it must
 * delete. Only then do the child caches narrow to the replica's buckets. A child whose owner is gone
 * does not hold the upgrade back, and is left alone.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { LABEL_BUCKET } from '../../../src/controller/core/bucket.ts';
import { shardMapOf } from '../../../src/controller/host/shardMapStore.ts';
import { installRgdCrd } from '../../../src/controller/rgd/crd.ts';
import { Informer, type KubeObject, type RestClient } from '../../../src/kube/index.ts';
import { eventually } from '../../support/kube.ts';
import { grantAll } from '../graph/support.ts';
import { waitRgd } from '../rgd/support.ts';
import {
  type AuditedPlane,
  auditedPlane,
  type Replica,
  startReplica,
  stopReplica,
  waitReady,
} from './shardingSupport.ts';

const NS = 'sharded-upgrade';
const GROUP = 'upgrade.example.com';
const INSTANCES = 6;
const GRAPHS = 3;

const rgd: KubeObject = {
  apiVersion: 'kro.run/v1alpha1',
  kind: 'ResourceGraphDefinition',
  metadata: { name: 'upgradeapp' },
  spec: {
    schema: {
      apiVersion: 'v1alpha1',
      kind: 'UpgradeApp',
      group: GROUP,
      spec: { v: 'string', extra: 'boolean | default=true' },
    },
    resources: [
      {
        id: 'cm',
        template: {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: '${schema.metadata.name}-cm' },
          data: { v: '${schema.spec.v}' },
        },
      },
      {
        id: 'extra',
        includeWhen: ['${schema.spec.extra}'],
        template: {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: '${schema.metadata.name}-extra' },
          data: { v: '${schema.spec.v}' },
        },
      },
    ],
  },
};

const instance = (i: number, extra: boolean): KubeObject => ({
  apiVersion: `${GROUP}/v1alpha1`,
  kind: 'UpgradeApp',
  metadata: { name: `u${i}`, namespace: NS },
  spec: { v: `v${i}`, extra },
});

const graph = (i: number): KubeObject => ({
  apiVersion: 'kro.run/v1alpha1',
  kind: 'Graph',
  metadata: { name: `g${i}`, namespace: NS },
  spec: {
    nodes: [
      {
        id: 'cm',
        template: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `g${i}-cm` }, data: { v: '1' } },
      },
    ],
  },
});

const children = async (client: RestClient): Promise<KubeObject[]> =>
  (
    await client.list(
      { apiVersion: 'v1', plural: 'configmaps', namespace: NS },
      { labelSelector: 'kro.run/node-id' },
    )
  ).items;

describe('upgrading to sharded replicas', { timeout: 300_000 }, () => {
  let plane: AuditedPlane;
  let client: RestClient;
  const replicas: Replica[] = [];
  let maps: Informer | undefined;

  before(async () => {
    plane = await auditedPlane();
    client = plane.client;
    await installRgdCrd(client);
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    await grantAll(client, NS, 'default');
  });
  after(async () => {
    await maps?.stop();
    for (const r of replicas) await stopReplica(r);
    await plane?.stop();
  });

  it('labels the old children before any replica narrows its caches; prune still finds the old orphans', async () => {
    // Before: one unsharded controller stamps children without a bucket.
    const single = await startReplica(plane.kubeconfigPath, NS, 5, 'both', 'single');
    replicas.push(single);
    await waitReady(single);
    await client.apply(rgd, { fieldManager: 'test', force: true });
    await waitRgd(client, 'upgradeapp', 'Ready', 'True');
    client.discovery.invalidate(`${GROUP}/v1alpha1`);
    for (let i = 0; i < INSTANCES; i++)
      await client.apply(instance(i, true), { fieldManager: 'test', force: true });
    for (let i = 0; i < GRAPHS; i++) await client.apply(graph(i), { fieldManager: 'test', force: true });
    const before = await eventually(
      'the single controller created every child',
      async () => {
        const items = await children(client);
        return items.length === 2 * INSTANCES + GRAPHS ? items : undefined;
      },
      90_000,
    );
    assert.ok(
      before.every((c) => c.metadata.labels?.[LABEL_BUCKET] === undefined),
      'an unsharded controller stamps no bucket',
    );
    await stopReplica(single);

    // While no controller runs, the instances drop their `extra` child: it becomes an orphan to prune.
    for (let i = 0; i < INSTANCES; i++)
      await client.apply(instance(i, false), { fieldManager: 'test', force: true });
    // A child whose owner is long gone: nobody claims it, it must not hold the upgrade back.
    await client.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'leftover',
        namespace: NS,
        labels: { 'kro.run/node-id': 'cm', 'kro.run/instance-id': '00000000-0000-0000-0000-000000000000' },
      },
    });

    // Every version of the shard map, from its first one on.
    const phases: boolean[] = [];
    maps = new Informer(client, {
      target: { apiVersion: 'v1', plural: 'configmaps', namespace: NS },
      fieldSelector: 'metadata.name=kgraph-shards',
    });
    const record = (cm: KubeObject): void => {
      const m = shardMapOf(cm);
      if (m) phases.push(m.labellingChildren === true);
    };
    maps.addHandlers({ add: record, update: (_o, n) => record(n) });
    maps.start();
    await maps.waitForSync(10_000);

    const sharded: Replica[] = [];
    for (let i = 0; i < 2; i++) sharded.push(await startReplica(plane.kubeconfigPath, NS, 5, 'both'));
    replicas.push(...sharded);
    await Promise.all(sharded.map((r) => waitReady(r)));

    await eventually(
      'the orphaned children are pruned and every other child carries its owner’s bucket',
      async () => {
        const items = await children(client);
        const extra = items.filter((c) => c.metadata.name?.endsWith('-extra'));
        const owned = items.filter((c) => c.metadata.name !== 'leftover');
        return extra.length === 0 &&
          owned.length === INSTANCES + GRAPHS &&
          owned.every((c) => c.metadata.labels?.[LABEL_BUCKET] !== undefined)
          ? items
          : undefined;
      },
      90_000,
    );
    // Each child has the bucket of its owner.
    const owners = [
      ...(await client.list({ apiVersion: `${GROUP}/v1alpha1`, plural: 'upgradeapps', namespace: NS })).items,
      ...(await client.list({ apiVersion: 'kro.run/v1alpha1', plural: 'graphs', namespace: NS })).items,
    ];
    const bucketOf = new Map(owners.map((o) => [o.metadata.name, o.metadata.labels?.[LABEL_BUCKET]]));
    for (const c of await children(client)) {
      if (c.metadata.name === 'leftover') continue;
      const owner = (c.metadata.name ?? '').replace(/-cm$/, '');
      assert.ok(bucketOf.get(owner), `${owner} has a bucket`);
      assert.equal(c.metadata.labels?.[LABEL_BUCKET], bucketOf.get(owner), c.metadata.name);
    }

    // The caches were whole first, then narrowed: the map asked for labelling, then stopped asking.
    await eventually('the map narrows the child caches', async () =>
      phases.length > 0 && phases[phases.length - 1] === false ? true : undefined,
    );
    assert.equal(phases[0], true, `the first map asks for labelling (phases seen: ${phases.join(',')})`);
    // The orphan nobody claims is still there, unlabelled.
    const leftover = await client.get({
      apiVersion: 'v1',
      plural: 'configmaps',
      namespace: NS,
      name: 'leftover',
    });
    assert.equal(leftover.metadata.labels?.[LABEL_BUCKET], undefined);
  });
});
