// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * Sharded replicas serving RGD instances (design/sharding.md §2, §6): the coordinator alone registers the
 * RGD (its CRD and status: counted in the audit log by user agent); every top-level instance gets a
 * bucket, its children carry it, and the two replicas each cache and reconcile their share. A rollout
 * (planned by the coordinator) holds the instances of every replica, not only the coordinator's.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { LABEL_BUCKET } from '../../../src/controller/core/bucket.ts';
import { shardMapOf } from '../../../src/controller/host/shardMapStore.ts';
import { installRgdCrd } from '../../../src/controller/rgd/crd.ts';
import { rolloutAction } from '../../../src/controller/rgd/rollout/actions.ts';
import type { KubeObject, RestClient } from '../../../src/kube/index.ts';
import { eventually } from '../../support/kube.ts';
import { grantAll } from '../graph/support.ts';
import { holdsFor } from '../kro-conformance/support.ts';
import {
  type AuditedPlane,
  auditedPlane,
  auditWrites,
  metric,
  type Replica,
  startReplica,
  stopReplica,
  waitReady,
} from './shardingSupport.ts';

const NS = 'sharded-rgd';
const INSTANCES = 30;
const GROUP = 'shard.example.com';

const template = (data: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: '${schema.metadata.name}-cm' },
  data,
});
const rgd: KubeObject = {
  apiVersion: 'kro.run/v1alpha1',
  kind: 'ResourceGraphDefinition',
  metadata: { name: 'shardapp' },
  spec: {
    schema: { apiVersion: 'v1alpha1', kind: 'ShardApp', group: GROUP, spec: { v: 'string' } },
    resources: [{ id: 'cm', template: template({ v: '${schema.spec.v}' }) }],
  },
};

describe('sharded replicas serving RGD instances', { timeout: 300_000 }, () => {
  let plane: AuditedPlane;
  let client: RestClient;
  const replicas: Replica[] = [];

  before(async () => {
    plane = await auditedPlane();
    client = plane.client;
    await installRgdCrd(client);
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    await grantAll(client, NS, 'default');
    // Two GraphRevisions kept per RGD: retention runs within these tests (the last one checks it).
    for (let i = 0; i < 2; i++)
      replicas.push(
        await startReplica(plane.kubeconfigPath, NS, 5, 'rgds', 'sharded', [
          '--rgd-max-graph-revisions',
          '2',
        ]),
      );
    await Promise.all(replicas.map((r) => waitReady(r)));
  });
  after(async () => {
    for (const r of replicas) await stopReplica(r);
    await plane?.stop();
  });

  /** An instance that the replica which does not coordinate serves (the shard map's owner of its bucket). */
  async function followerInstance(): Promise<KubeObject | undefined> {
    const coordinator = await eventually('a coordinator', async () => {
      for (const r of replicas) if ((await metric(r, 'kgraph_shard_coordinator')) === 1) return r;
      return undefined;
    });
    const map = shardMapOf(
      await client.get({ apiVersion: 'v1', plural: 'configmaps', namespace: NS, name: 'kgraph-shards' }),
    );
    assert.ok(map);
    const instances = (
      await client.list({ apiVersion: `${GROUP}/v1alpha1`, plural: 'shardapps', namespace: NS })
    ).items;
    return instances.find(
      (o) => map.buckets[Number(o.metadata.labels?.[LABEL_BUCKET])]?.owner !== coordinator.identity,
    );
  }

  it('the coordinator registers the RGD; the replicas split its instances', async () => {
    await client.apply(rgd, { fieldManager: 'test', force: true });
    await eventually(
      'the RGD is Active',
      async () => {
        const r = await client.getOrUndefined({
          apiVersion: 'kro.run/v1alpha1',
          kind: 'ResourceGraphDefinition',
          name: 'shardapp',
        });
        return (r?.status as { state?: string } | undefined)?.state === 'Active' ? r : undefined;
      },
      60_000,
    );
    client.discovery.invalidate(`${GROUP}/v1alpha1`);
    for (let i = 0; i < INSTANCES; i++) {
      await client.apply(
        {
          apiVersion: `${GROUP}/v1alpha1`,
          kind: 'ShardApp',
          metadata: { name: `a${i}`, namespace: NS },
          spec: { v: `v${i}` },
        },
        { fieldManager: 'test', force: true },
      );
    }
    await eventually(
      'every instance converged',
      async () => {
        const cms = await client.list(
          { apiVersion: 'v1', plural: 'configmaps', namespace: NS },
          { labelSelector: 'kro.run/node-id' },
        );
        return cms.items.length === INSTANCES ? cms : undefined;
      },
      90_000,
    );
    const instances = await client.list({
      apiVersion: `${GROUP}/v1alpha1`,
      plural: 'shardapps',
      namespace: NS,
    });
    const bucketOf = new Map(
      instances.items.map((o) => [o.metadata.name, o.metadata.labels?.[LABEL_BUCKET]]),
    );
    const cms = await client.list(
      { apiVersion: 'v1', plural: 'configmaps', namespace: NS },
      { labelSelector: 'kro.run/node-id' },
    );
    for (const c of cms.items) {
      const owner = (c.metadata.name ?? '').replace(/-cm$/, '');
      assert.ok(bucketOf.get(owner), `instance ${owner} has a bucket`);
      assert.equal(c.metadata.labels?.[LABEL_BUCKET], bucketOf.get(owner));
    }
    const cached = await eventually('both replicas report their share', async () => {
      const n = (await Promise.all(
        replicas.map((r) => metric(r, 'kgraph_shard_cached_objects')),
      )) as number[];
      return n.every((x) => x !== undefined) && n[0]! + n[1]! === 2 * INSTANCES ? n : undefined;
    });
    for (const n of cached) assert.ok(n > 0 && n < 2 * INSTANCES, String(cached));
    // The RGD, its CRD and its status were written by one replica only: the coordinator.
    const coordinator = await eventually('a coordinator', async () => {
      for (const r of replicas) if ((await metric(r, 'kgraph_shard_coordinator')) === 1) return r;
      return undefined;
    });
    const registrations = auditWrites(plane.auditPath).filter(
      (w) =>
        w.userAgent.includes('replica/') &&
        (w.resource === 'resourcegraphdefinitions' || w.resource === 'customresourcedefinitions'),
    );
    assert.ok(registrations.length > 0);
    assert.deepEqual(
      [...new Set(registrations.map((w) => w.userAgent))],
      [`kgraph/0.1 replica/${coordinator.identity}`],
    );
  });

  it("a rollout holds every replica's instances until it moves them", async () => {
    const RO = { apiVersion: 'kgraph.dev/v1alpha1', kind: 'GraphRollout' };
    const status = async () =>
      (await client.getOrUndefined({ ...RO, name: 'shardapp' }))?.status as
        | { phase?: string; stableRevision?: number; targetRevision?: number }
        | undefined;
    await client.apply(
      {
        ...RO,
        metadata: { name: 'shardapp' },
        spec: { steps: [{ pause: {} }, { batch: { percent: 100 } }] },
      } as KubeObject,
      { fieldManager: 'test', force: true },
    );
    await eventually('the rollout is stable at 1', async () => {
      const s = await status();
      return s?.phase === 'Completed' && s.stableRevision === 1 ? s : undefined;
    });
    const cms = () =>
      client.list(
        { apiVersion: 'v1', plural: 'configmaps', namespace: NS },
        { labelSelector: 'kro.run/node-id' },
      );
    const edited = structuredClone(rgd) as KubeObject & { spec: { resources: unknown[] } };
    edited.spec.resources = [{ id: 'cm', template: template({ v: '${schema.spec.v}', w: 'two' }) }];
    await client.apply(edited, { fieldManager: 'test', force: true });
    await eventually('the rollout pauses at revision 2', async () => {
      const s = await status();
      return s?.phase === 'Paused' && s.targetRevision === 2 ? s : undefined;
    });
    // Each replica serves its share; none may apply the new revision while the rollout holds it.
    await holdsFor(
      'no instance of any replica moves',
      async () => (await cms()).items.every((c) => (c.data as Record<string, string>).w === undefined),
      6_000,
    );
    await rolloutAction(client, 'shardapp', 'promote');
    await eventually(
      'every instance of every replica moves after the promotion',
      async () => {
        const items = (await cms()).items;
        return items.length === INSTANCES &&
          items.every((c) => (c.data as Record<string, string>).w === 'two')
          ? items
          : undefined;
      },
      90_000,
    );
  });

  it("the coordinator's rollout sees every replica's instances: a canary served by the other replica moves first", async () => {
    const RO = { apiVersion: 'kgraph.dev/v1alpha1', kind: 'GraphRollout' };
    const status = async () =>
      (await client.getOrUndefined({ ...RO, name: 'shardapp' }))?.status as
        | { phase?: string; stableRevision?: number; targetRevision?: number; currentStep?: number }
        | undefined;
    const canary = await followerInstance();
    assert.ok(canary, 'some instance is served by the replica that does not coordinate');
    await client.patch(
      {
        apiVersion: `${GROUP}/v1alpha1`,
        plural: 'shardapps',
        namespace: NS,
        name: canary.metadata.name ?? '',
      },
      { metadata: { labels: { canary: 'yes' } } },
      { type: 'merge' },
    );
    await client.apply(
      {
        ...RO,
        metadata: { name: 'shardapp' },
        spec: {
          steps: [
            { canary: { selector: { matchLabels: { canary: 'yes' } } } },
            { pause: {} },
            { batch: { percent: 100 } },
          ],
        },
      } as KubeObject,
      { fieldManager: 'test', force: true },
    );
    const edited = structuredClone(rgd) as KubeObject & { spec: { resources: unknown[] } };
    edited.spec.resources = [{ id: 'cm', template: template({ v: '${schema.spec.v}', w: 'three' }) }];
    await client.apply(edited, { fieldManager: 'test', force: true });
    const cms = async () =>
      (
        await client.list(
          { apiVersion: 'v1', plural: 'configmaps', namespace: NS },
          { labelSelector: 'kro.run/node-id' },
        )
      ).items;
    const w = (c: KubeObject): string | undefined => (c.data as Record<string, string>).w;
    // The canary moves, is judged healthy from the revision its replica recorded, and the rollout pauses.
    await eventually(
      'the canary of the other replica moves and the rollout pauses after it',
      async () => {
        const s = await status();
        const moved = (await cms()).filter((c) => w(c) === 'three').map((c) => c.metadata.name);
        return s?.phase === 'Paused' && s.targetRevision === 3 && moved.length === 1 ? moved : undefined;
      },
      60_000,
    ).then((moved) => assert.deepEqual(moved, [`${canary.metadata.name}-cm`]));
    await holdsFor(
      'nothing but the canary moves while paused',
      async () => (await cms()).filter((c) => w(c) === 'three').length === 1,
      3_000,
    );
    await rolloutAction(client, 'shardapp', 'promote');
    await eventually(
      'every instance moves and the rollout completes',
      async () => {
        const s = await status();
        const items = await cms();
        return s?.phase === 'Completed' && items.every((c) => w(c) === 'three') ? s : undefined;
      },
      90_000,
    );
  });

  it("revision retention keeps a revision another replica's instance is pinned to", async () => {
    const GR = { apiVersion: 'internal.kro.run/v1alpha1', plural: 'graphrevisions' };
    // No rollout from here on: every edit goes to the instances at once.
    await client.delete({ apiVersion: 'kgraph.dev/v1alpha1', plural: 'graphrollouts', name: 'shardapp' });
    const pinned = await followerInstance();
    assert.ok(pinned, "an instance of the other replica's buckets");
    const revisions = async (): Promise<number[]> =>
      (await client.list(GR)).items
        .filter((r) => r.metadata.name?.startsWith('shardapp-'))
        .map((r) => (r.spec as { revision: number }).revision)
        .sort((a, b) => a - b);
    const latest = Math.max(...(await revisions()));
    await client.patch(
      {
        apiVersion: `${GROUP}/v1alpha1`,
        plural: 'shardapps',
        namespace: NS,
        name: pinned.metadata.name ?? '',
      },
      { metadata: { annotations: { 'kgraph.dev/revision': String(latest) } } },
      { type: 'merge' },
    );
    // Two more revisions: retention keeps the newest two, and the pinned one because an instance uses it.
    for (const w of ['four', 'five']) {
      const edited = structuredClone(rgd) as KubeObject & { spec: { resources: unknown[] } };
      edited.spec.resources = [{ id: 'cm', template: template({ v: '${schema.spec.v}', w }) }];
      await client.apply(edited, { fieldManager: 'test', force: true });
      await eventually(
        `every unpinned instance at ${w}`,
        async () => {
          const cms = (
            await client.list(
              { apiVersion: 'v1', plural: 'configmaps', namespace: NS },
              { labelSelector: 'kro.run/node-id' },
            )
          ).items.filter((c) => c.metadata.name !== `${pinned.metadata.name}-cm`);
          return cms.length === INSTANCES - 1 && cms.every((c) => (c.data as Record<string, string>).w === w)
            ? true
            : undefined;
        },
        90_000,
      );
    }
    const kept = await eventually('retention ran', async () => {
      const r = await revisions();
      return r.length <= 3 ? r : undefined;
    });
    assert.deepEqual(kept, [latest, latest + 1, latest + 2]);
  });
});
