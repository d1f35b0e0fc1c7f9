// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * Sharded replicas running the planes (design/sharding.md §6, §7), as two `kgraph controller
 * --replicas-mode sharded --planes` processes over an audited management cluster and four consumer
 * clusters. Every ConsumerCluster gets a bucket; each replica serves the registrations of its buckets
 * only — each registration's status is written by its bucket's owner alone (audit log, by user agent)
 * and only that owner talks to its consumer cluster (`kgraph_planes_api_requests_total{plane="consumer"}`)
 * — while the blueprint's finalizer, status and nothing else of it are written by the coordinator.
 * An instance in every consumer converges (consumer and provider child). A blueprint deleted, every
 * replica releases kgraph's finalizer from the instances of its own clusters. The coordinator killed with
 * SIGKILL, the survivor registers the blueprint and serves every cluster: an instance edited in a
 * cluster that moved converges (the time from the kill is printed).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { shardsView } from '../../../src/cli/shards.ts';
import { bucketOf, LABEL_BUCKET } from '../../../src/controller/core/bucket.ts';
import { SHARD_MAP_NAME, shardMapOf } from '../../../src/controller/host/shardMapStore.ts';
import type { ShardMap } from '../../../src/controller/host/shardPlan.ts';
import { serviceAccountKubeconfig } from '../../../src/controller/planes/consumerSide.ts';
import { installPlaneCrds } from '../../../src/controller/planes/crds.ts';
import { FINALIZER_INSTANCE } from '../../../src/controller/planes/kropApi.ts';
import type { KubeObject, RestClient } from '../../../src/kube/index.ts';
import { RestClient as Client } from '../../../src/kube/rest.ts';
import { dedicatedControlPlane, type TestControlPlane } from '../../support/controlPlane.ts';
import {
  type AuditedPlane,
  auditedPlane,
  auditWrites,
  metric,
  type Replica,
  startReplica,
  stopReplica,
  waitReady,
} from '../host/shardingSupport.ts';
import {
  AV,
  apply,
  blueprint,
  type Consumer,
  cmT,
  cond,
  eventually,
  exportOf,
  GROUP,
  grant,
  ns,
  SUBJECT,
} from './support.ts';

const NS = 'kgraph-system';
const APPS = 'apps';
const LEASE_S = 5;
const CONSUMERS = 4;

const BLUEPRINT = blueprint(
  'sharded',
  'ShardedThing',
  [
    { id: 'local', template: cmT('${schema.metadata.name}-local', { v: '${schema.spec.v}' }) },
    {
      id: 'remote',
      target: 'provider',
      template: cmT('${schema.metadata.name}-remote', { v: '${schema.spec.v}' }, 'default'),
    },
  ],
  { spec: { v: 'string' } },
);

const CC = (name: string) => ({ apiVersion: AV, kind: 'ConsumerCluster', name });

describe('planes on sharded replicas', { timeout: 600_000 }, () => {
  let plane: AuditedPlane;
  let mgmt: RestClient;
  const consumers: Consumer[] = [];
  const replicas: Replica[] = [];

  const shardMap = async (): Promise<ShardMap | undefined> =>
    shardMapOf(
      await mgmt.getOrUndefined({ apiVersion: 'v1', kind: 'ConfigMap', namespace: NS, name: SHARD_MAP_NAME }),
    );

  /** The registration's bucket label (checked against its UID) and the replica owning it now. */
  async function ownerOf(c: Consumer): Promise<string | undefined> {
    const o = await mgmt.getOrUndefined(CC(c.name));
    const label = o?.metadata.labels?.[LABEL_BUCKET];
    if (!o || label === undefined) return undefined;
    assert.equal(label, String(bucketOf(o.metadata.uid ?? '')), `${c.name}: bucket of its UID`);
    const e = (await shardMap())?.buckets[Number(label)];
    return e?.phase === 'active' && e.owner ? e.owner : undefined;
  }

  /** Every bucket active with one of the replicas, each with its quota (no hand-over under way). */
  const settled = () =>
    eventually(
      'the shard map settled on both replicas',
      async () => {
        const m = await shardMap();
        const ids = new Set(replicas.map((r) => r.identity));
        if (!m?.buckets.every((e) => e.phase === 'active' && ids.has(e.owner))) return undefined;
        const mine = m.buckets.filter((e) => e.owner === replicas[0]?.identity).length;
        return mine === 512 ? m : undefined;
      },
      60_000,
      200,
    );

  async function register(c: Consumer): Promise<void> {
    await apply(mgmt, {
      apiVersion: AV,
      kind: 'ConsumerCluster',
      metadata: { name: c.name },
      spec: {
        kubeconfigSecretRef: { name: `${c.name}-kubeconfig`, key: 'kubeconfig' },
        blueprintSelector: {},
      },
    });
  }

  const instance = (c: Consumer, v: string) =>
    apply(c.admin, {
      apiVersion: AV,
      kind: 'ShardedThing',
      metadata: { name: 'thing', namespace: APPS },
      spec: { v },
    });

  /** The instance of consumer `c` is Ready with `v` in its consumer child and its provider child. */
  async function converged(c: Consumer, v: string, timeoutMs = 90_000): Promise<void> {
    await eventually(
      `${c.name}: the instance converged on ${v}`,
      async () => {
        const reg = await mgmt.get(CC(c.name));
        const clusterID = (reg.spec as { clusterID?: string }).clusterID;
        if (!clusterID) return undefined;
        const inst = await c.admin.getOrUndefined({
          apiVersion: AV,
          kind: 'ShardedThing',
          namespace: APPS,
          name: 'thing',
        });
        const local = await c.admin.getOrUndefined({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          namespace: APPS,
          name: 'thing-local',
        });
        const remote = await mgmt.list(
          { apiVersion: 'v1', plural: 'configmaps', namespace: 'default' },
          { labelSelector: `krop.opendefense.cloud/consumer-cluster=${clusterID}` },
        );
        const ok =
          cond(inst, 'Ready')?.status === 'True' &&
          (local?.data as Record<string, string> | undefined)?.v === v &&
          remote.items.length === 1 &&
          (remote.items[0]?.data as Record<string, string> | undefined)?.v === v;
        return ok ? true : undefined;
      },
      timeoutMs,
      200,
    );
  }

  before(async () => {
    const [audited, ...planes] = await Promise.all([
      auditedPlane(),
      ...Array.from({ length: CONSUMERS }, () => dedicatedControlPlane({ workloads: false })),
    ]);
    plane = audited as AuditedPlane;
    mgmt = plane.client;
    await installPlaneCrds(mgmt);
    await apply(mgmt, ns(NS));
    for (const [i, cp] of (planes as TestControlPlane[]).entries()) {
      const admin = new Client(cp.kc);
      const name = `consumer-${i + 1}`;
      await apply(admin, ns(APPS));
      const text = await serviceAccountKubeconfig(admin, SUBJECT, 7200);
      await apply(mgmt, {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: `${name}-kubeconfig`, namespace: NS },
        data: { kubeconfig: Buffer.from(text).toString('base64') },
      });
      consumers.push({
        cp,
        admin,
        name,
        subject: `system:serviceaccount:${SUBJECT.namespace}:${SUBJECT.name}`,
      });
    }
    for (let i = 0; i < 2; i++)
      replicas.push(await startReplica(plane.kubeconfigPath, NS, LEASE_S, 'planes'));
    await Promise.all(replicas.map((r) => waitReady(r)));
  });

  after(async () => {
    for (const r of replicas) await stopReplica(r);
    for (const c of consumers) c.admin.close();
    await plane?.stop();
  });

  const ua = (r: Replica) => `kgraph/0.1 replica/${r.identity}`;
  const owners = new Map<string, string>();
  /** The permission claims of the first blueprint (a consumer ConfigMap): the second one's too. */
  let configMapClaims: unknown;

  it('each replica serves the ConsumerClusters of its buckets; the coordinator registers the blueprint', async () => {
    // Registrations land in buckets by their UID: one registered again (a new UID) until both replicas own some.
    await settled();
    // Published and granted before the registrations: a grant made after a cluster's first attempt to
    // serve is noticed at its next resync only (5 min by default).
    await apply(mgmt, BLUEPRINT);
    const published = await eventually(
      'the blueprint is published',
      async () => {
        const b = await mgmt.get({ apiVersion: AV, kind: 'ResourceGraphDefinition', name: 'sharded' });
        return cond(b, 'Ready')?.reason === 'Published' ? b : undefined;
      },
      60_000,
    );
    const { exportName, group, plural } = exportOf(published);
    configMapClaims = (published.status as { claims: unknown }).claims;
    for (const c of consumers)
      await grant(c, exportName, { group, plural }, configMapClaims as never, { serve: true, claims: true });
    for (const c of consumers) await register(c);
    for (let attempt = 0; ; attempt++) {
      for (const c of consumers)
        owners.set(c.name, await eventually(`${c.name} labelled and owned`, () => ownerOf(c), 30_000, 100));
      if (new Set(owners.values()).size === 2) break;
      assert.ok(attempt < 10, 'registrations spread over both replicas');
      const moved = consumers[attempt % CONSUMERS] as Consumer;
      await mgmt.delete(CC(moved.name));
      await eventually(`${moved.name} deleted`, async () =>
        (await mgmt.getOrUndefined(CC(moved.name))) ? undefined : true,
      );
      await register(moved);
    }
    console.log(
      `owners: ${JSON.stringify([...owners].map(([c, o]) => [c, replicas.findIndex((r) => r.identity === o)]))}`,
    );

    for (const c of consumers)
      await eventually(`${c.name} serves the blueprint`, async () => {
        const o = await mgmt.get(CC(c.name));
        const bps = (o.status as { blueprints?: { served: boolean }[] } | undefined)?.blueprints ?? [];
        return bps.length === 1 && bps[0]?.served ? true : undefined;
      });
    for (const c of consumers) {
      c.admin.discovery.invalidate(AV);
      await instance(c, 'one');
    }
    for (const c of consumers) await converged(c, 'one');

    // Only the owner talks to a consumer cluster.
    for (const c of consumers) {
      const talks = await Promise.all(
        replicas.map(
          async (r) =>
            ((await metric(r, 'kgraph_planes_api_requests_total', `cluster="${c.name}"`)) ?? 0) > 0,
        ),
      );
      assert.deepEqual(
        talks,
        replicas.map((r) => r.identity === owners.get(c.name)),
        `${c.name}: requests to the consumer cluster by its owner only`,
      );
    }
    // Each replica caches its own: per cluster its registration, its instance, the instance's consumer
    // child and its provider child (the provider child watch selects the replica's clusters only).
    for (const r of replicas) {
      const mine = consumers.filter((c) => owners.get(c.name) === r.identity).length;
      await eventually(
        `replica ${r.identity} caches 4 objects for each of its ${mine} clusters`,
        async () => ((await metric(r, 'kgraph_shard_cached_objects')) === 4 * mine ? true : undefined),
        30_000,
        200,
      );
    }
    // `kgraph get shards` counts each replica's ConsumerClusters among the objects its buckets hold.
    const view = await shardsView(mgmt, NS);
    for (const r of replicas) {
      const mine = consumers.filter((c) => owners.get(c.name) === r.identity).length;
      assert.equal(view.rows.find((row) => row.replica === r.identity)?.objects, mine, r.identity);
    }
    // A registration's finalizer, identity and status are written by its owner alone.
    const writes = auditWrites(plane.auditPath).filter(
      (w) => w.userAgent.includes('replica/') && w.code < 400,
    );
    for (const c of consumers) {
      const writers = new Set(
        writes
          .filter((w) => w.resource === 'consumerclusters' && w.name === c.name && w.subresource === 'status')
          .map((w) => w.userAgent),
      );
      const owner = replicas.find((r) => r.identity === owners.get(c.name)) as Replica;
      assert.deepEqual([...writers], [ua(owner)], `${c.name}: status written by its owner`);
    }
    // The blueprint (finalizer, status) by the coordinator alone.
    const coordinator = await eventually('a coordinator', async () => {
      for (const r of replicas) if ((await metric(r, 'kgraph_shard_coordinator')) === 1) return r;
      return undefined;
    });
    const bpWriters = new Set(
      writes.filter((w) => w.resource === 'resourcegraphdefinitions').map((w) => w.userAgent),
    );
    assert.deepEqual([...bpWriters], [ua(coordinator)]);
  });

  it("a deleted blueprint releases every replica's instances; only the coordinator writes it", async () => {
    const EXTRA = blueprint('extra', 'ExtraThing', [
      { id: 'local', template: cmT('${schema.metadata.name}-extra', { v: 'x' }) },
    ]);
    // Granted before it is published (as `kgraph rbac` prints offline): its claims are the first one's.
    const exportName = 'extrathings.krop.opendefense.cloud';
    for (const c of consumers)
      await grant(c, exportName, { group: GROUP, plural: 'extrathings' }, configMapClaims as never, {
        serve: true,
        claims: true,
      });
    await apply(mgmt, EXTRA);
    const published = await eventually('extra is published', async () => {
      const b = await mgmt.get({ apiVersion: AV, kind: 'ResourceGraphDefinition', name: 'extra' });
      return cond(b, 'Ready')?.reason === 'Published' ? b : undefined;
    });
    assert.equal(exportOf(published).exportName, exportName);
    assert.deepEqual((published.status as { claims: unknown }).claims, configMapClaims);
    const extra = (c: Consumer) =>
      c.admin.getOrUndefined({ apiVersion: AV, kind: 'ExtraThing', namespace: APPS, name: 'x' });
    for (const c of consumers) {
      await eventually(`${c.name} serves extra`, async () => {
        const o = await mgmt.get(CC(c.name));
        const bps = (o.status as { blueprints?: { served: boolean }[] } | undefined)?.blueprints ?? [];
        return bps.length === 2 && bps.every((b) => b.served) ? true : undefined;
      });
      c.admin.discovery.invalidate(AV);
      await apply(c.admin, {
        apiVersion: AV,
        kind: 'ExtraThing',
        metadata: { name: 'x', namespace: APPS },
        spec: {},
      });
    }
    for (const c of consumers)
      await eventually(`${c.name}: extra instance served (finalizer, child)`, async () => {
        const o = await extra(c);
        const child = await c.admin.getOrUndefined({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          namespace: APPS,
          name: 'x-extra',
        });
        return o?.metadata.finalizers?.includes(FINALIZER_INSTANCE) && child ? true : undefined;
      });
    await mgmt.delete({ apiVersion: AV, kind: 'ResourceGraphDefinition', name: 'extra' });
    await eventually('extra is gone', async () =>
      (await mgmt.getOrUndefined({ apiVersion: AV, kind: 'ResourceGraphDefinition', name: 'extra' }))
        ? undefined
        : true,
    );
    // Each replica released the instances of its own clusters: every one can be deleted now.
    for (const c of consumers)
      await eventually(`${c.name}: the extra instance released`, async () => {
        const o = await extra(c);
        return o && !o.metadata.finalizers?.includes(FINALIZER_INSTANCE) ? true : undefined;
      });
    for (const c of consumers) {
      await c.admin.delete({ apiVersion: AV, kind: 'ExtraThing', namespace: APPS, name: 'x' });
      await eventually(`${c.name}: the extra instance deleted`, async () =>
        (await extra(c)) ? undefined : true,
      );
    }
    const coordinator = await eventually('a coordinator', async () => {
      for (const r of replicas) if ((await metric(r, 'kgraph_shard_coordinator')) === 1) return r;
      return undefined;
    });
    const bpWriters = new Set(
      auditWrites(plane.auditPath)
        .filter((w) => w.userAgent.includes('replica/') && w.resource === 'resourcegraphdefinitions')
        .map((w) => w.userAgent),
    );
    assert.deepEqual([...bpWriters], [ua(coordinator)]);
  });

  it('the coordinator killed, the survivor registers and serves every cluster', async () => {
    const coordinator = await eventually('a coordinator', async () => {
      for (const r of replicas) if ((await metric(r, 'kgraph_shard_coordinator')) === 1) return r;
      return undefined;
    });
    const survivor = replicas.find((r) => r !== coordinator) as Replica;
    const moved = consumers.filter((c) => owners.get(c.name) === coordinator.identity);
    assert.ok(moved.length > 0);
    const t0 = performance.now();
    coordinator.process.kill('SIGKILL');
    await coordinator.exited;
    for (const c of moved) await instance(c, 'two');
    for (const c of moved) await converged(c, 'two', 120_000);
    const ms = performance.now() - t0;
    console.log(
      `planes failover: ${moved.length} cluster(s) moved, edits converged ${Math.round(ms)} ms after SIGKILL`,
    );
    assert.equal(await metric(survivor, 'kgraph_shard_coordinator'), 1);
    for (const c of consumers) assert.equal(await ownerOf(c), survivor.identity);
    // The survivor now writes the moved registrations' status, and the clusters it served before keep converging.
    const writers = auditWrites(plane.auditPath).filter(
      (w) => w.resource === 'consumerclusters' && w.subresource === 'status' && w.userAgent === ua(survivor),
    );
    for (const c of moved)
      assert.ok(
        writers.some((w) => w.name === c.name),
        `${c.name}: status written by the survivor`,
      );
    const stayed = consumers.filter((c) => owners.get(c.name) === survivor.identity);
    for (const c of stayed) await instance(c, 'three');
    for (const c of stayed) await converged(c, 'three');
    const bp = await mgmt.get({ apiVersion: AV, kind: 'ResourceGraphDefinition', name: 'sharded' });
    assert.equal(cond(bp as KubeObject, 'Ready')?.reason, 'Published');
  });
});
