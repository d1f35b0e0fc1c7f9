/**
 * Sharded replicas on a real control plane (design/sharding.md §3–§5), as separate `kgraph controller`
 * processes: they split the Graphs by bucket and each caches only its share; a replica killed with
 * SIGKILL has its buckets reconciled by the others within two lease durations; one stopped (SIGSTOP)
 * for two lease durations and then resumed writes nothing — counted in the API server's audit log by
 * its user agent — and exits; scaling 3 → 4 under a stream of edits leaves no Graph unowned and no
 * object written by a replica again after another took it over; the coordinator killed, another
 * coordinates and every Graph converges again.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { LABEL_BUCKET } from '../../../src/controller/core/bucket.ts';
import { SHARD_MAP_NAME, shardMapOf } from '../../../src/controller/host/shardMapStore.ts';
import type { ShardMap } from '../../../src/controller/host/shardPlan.ts';
import type { KubeObject, RestClient } from '../../../src/kube/index.ts';
import { eventually } from '../../support/kube.ts';
import { grantAll } from '../graph/support.ts';
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

const LEASE_S = 5;
const GRAPHS = 40;
const NS = 'sharded';

function graphOf(i: number, v: number): KubeObject {
  return {
    apiVersion: 'kro.run/v1alpha1',
    kind: 'Graph',
    metadata: { name: `g${i}`, namespace: NS },
    spec: {
      nodes: [
        {
          id: 'cm',
          template: {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: `g${i}-cm` },
            data: { v: String(v) },
          },
        },
      ],
    },
  };
}

async function applyGraphs(client: RestClient, values: number[]): Promise<void> {
  await Promise.all(values.map((v, i) => client.apply(graphOf(i, v), { fieldManager: 'test', force: true })));
}

/** Every child holds its Graph's value. */
async function converged(client: RestClient, values: number[], timeoutMs: number): Promise<number> {
  const t0 = performance.now();
  await eventually(
    'children converged',
    async () => {
      const list = await client.list(
        { apiVersion: 'v1', plural: 'configmaps', namespace: NS },
        { labelSelector: 'kro.run/node-id' },
      );
      const byName = new Map(
        list.items.map((o) => [o.metadata.name, (o.data as Record<string, string> | undefined)?.v]),
      );
      return values.every((v, i) => byName.get(`g${i}-cm`) === String(v)) ? true : undefined;
    },
    timeoutMs,
    100,
  );
  return performance.now() - t0;
}

async function shardMap(client: RestClient): Promise<ShardMap | undefined> {
  const cm = await client.getOrUndefined({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    namespace: NS,
    name: SHARD_MAP_NAME,
  });
  return shardMapOf(cm);
}

/** Waits until the map gives every bucket to one of `replicas`, active, balanced. */
async function settled(client: RestClient, replicas: Replica[], timeoutMs = 60_000): Promise<ShardMap> {
  const ids = new Set(replicas.map((r) => r.identity));
  const quota = Math.floor(1024 / replicas.length);
  return eventually(
    `shard map settled on ${replicas.length} replicas`,
    async () => {
      const m = await shardMap(client);
      if (!m?.buckets.every((e) => e.phase === 'active' && ids.has(e.owner))) return undefined;
      const counts = new Map<string, number>();
      for (const e of m.buckets) counts.set(e.owner, (counts.get(e.owner) ?? 0) + 1);
      return [...ids].every((id) => (counts.get(id) ?? 0) >= quota) ? m : undefined;
    },
    timeoutMs,
    200,
  );
}

async function coordinatorOf(replicas: Replica[]): Promise<Replica> {
  return eventually('a coordinator', async () => {
    for (const r of replicas) if ((await metric(r, 'kgraph_shard_coordinator')) === 1) return r;
    return undefined;
  });
}

/** Replicas' writes to the children and Graphs of the test namespace, from the audit log. */
const replicaWrites = (plane: AuditedPlane) =>
  auditWrites(plane.auditPath).filter(
    (w) => w.namespace === NS && w.userAgent.includes('replica/') && w.code < 400 && w.resource !== 'leases',
  );

describe('sharded replicas', { timeout: 600_000 }, () => {
  let plane: AuditedPlane;
  let client: RestClient;
  const replicas: Replica[] = [];
  const values = new Array<number>(GRAPHS).fill(0);

  before(async () => {
    plane = await auditedPlane();
    client = plane.client;
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    await grantAll(client, NS, 'default');
    for (let i = 0; i < 2; i++) replicas.push(await startReplica(plane.kubeconfigPath, NS, LEASE_S));
    await Promise.all(replicas.map((r) => waitReady(r)));
  });
  after(async () => {
    for (const r of replicas) await stopReplica(r);
    await plane?.stop();
  });

  const live = () => replicas.filter((r) => r.process.exitCode === null && r.process.signalCode === null);

  it('two replicas split the Graphs; each caches only its share', async () => {
    await settled(client, live());
    await applyGraphs(client, values);
    await converged(client, values, 90_000);
    const graphs = await client.list({ apiVersion: 'kro.run/v1alpha1', plural: 'graphs', namespace: NS });
    const children = await client.list(
      { apiVersion: 'v1', plural: 'configmaps', namespace: NS },
      { labelSelector: 'kro.run/node-id' },
    );
    const bucketOf = new Map(graphs.items.map((g) => [g.metadata.name, g.metadata.labels?.[LABEL_BUCKET]]));
    for (const c of children.items) {
      const owner = (c.metadata.name ?? '').replace(/-cm$/, '');
      assert.ok(bucketOf.get(owner), `Graph ${owner} has a bucket`);
      assert.equal(
        c.metadata.labels?.[LABEL_BUCKET],
        bucketOf.get(owner),
        `child ${c.metadata.name} carries its Graph's bucket`,
      );
    }
    const cached = await eventually('both replicas report their caches', async () => {
      const n = await Promise.all(live().map((r) => metric(r, 'kgraph_shard_cached_objects')));
      return n.every((x) => x !== undefined) && n.reduce((a, b) => (a ?? 0) + (b ?? 0), 0) === 2 * GRAPHS
        ? (n as number[])
        : undefined;
    });
    for (const n of cached)
      assert.ok(n > 0 && n < 2 * GRAPHS, `each caches a share, not everything: ${cached}`);
    for (const r of live()) assert.equal(await metric(r, 'kgraph_shard_buckets', 'state="served"'), 512);
    // `kgraph get shards` shows both, each with its buckets and Graphs.
    const out = execFileSync(
      process.execPath,
      ['bin/kgraph.js', 'get', 'shards', '-n', NS, '--kubeconfig', plane.kubeconfigPath, '-o', 'json'],
      { encoding: 'utf8' },
    );
    const view = JSON.parse(out) as {
      rows: { replica: string; served: number; objects: number; coordinator: boolean }[];
      unowned: number;
    };
    assert.deepEqual(
      view.rows.map((r) => r.served),
      [512, 512],
    );
    assert.equal(
      view.rows.reduce((n, r) => n + r.objects, 0),
      GRAPHS,
    );
    assert.equal(view.rows.filter((r) => r.coordinator).length, 1);
    assert.equal(view.unowned, 0);
  });

  it("SIGKILL: the lost replica's buckets converge again within two lease durations", async () => {
    const coordinator = await coordinatorOf(live());
    const victim = live().find((r) => r !== coordinator) as Replica;
    victim.process.kill('SIGKILL');
    await victim.exited;
    const killedAt = performance.now();
    values.fill(1);
    await applyGraphs(client, values);
    await converged(client, values, 60_000);
    const elapsed = performance.now() - killedAt;
    console.log(
      `# buckets of the killed replica converged ${Math.round(elapsed)} ms after SIGKILL (lease ${LEASE_S} s)`,
    );
    assert.ok(elapsed < 2 * LEASE_S * 1000, `${Math.round(elapsed)} ms`);
  });

  it('SIGSTOP for two lease durations, then SIGCONT: the resumed replica writes nothing and exits', async () => {
    replicas.push(await startReplica(plane.kubeconfigPath, NS, LEASE_S));
    await settled(client, live());
    await Promise.all(live().map((r) => waitReady(r)));
    const coordinator = await coordinatorOf(live());
    const victim = live().find((r) => r !== coordinator) as Replica;
    assert.ok(
      ((await metric(victim, 'kgraph_shard_buckets', 'state="served"')) ?? 0) > 0,
      'the victim serves buckets',
    );
    victim.process.kill('SIGSTOP');
    const stoppedAt = Date.now();
    // Work for its buckets arrives while it is stopped: its watches buffer the events.
    values.fill(2);
    await applyGraphs(client, values);
    await converged(client, values, 60_000);
    await new Promise((r) => setTimeout(r, Math.max(0, stoppedAt + 2 * LEASE_S * 1000 - Date.now())));
    values.fill(3);
    await applyGraphs(client, values);
    await converged(client, values, 30_000);
    victim.process.kill('SIGCONT');
    const code = await Promise.race([
      victim.exited,
      new Promise((r) => setTimeout(() => r('running'), 15_000)),
    ]);
    assert.equal(code, 1, 'the resumed replica exits: its membership is lost');
    const writes = replicaWrites(plane).filter(
      (w) => w.userAgent.endsWith(victim.identity) && w.at >= stoppedAt,
    );
    assert.deepEqual(writes, [], 'no write from the resumed replica');
    await converged(client, values, 10_000);
  });

  it('scale 3 → 4 under a stream of edits: every Graph keeps converging, no object written back by a former owner', async () => {
    while (live().length < 3) replicas.push(await startReplica(plane.kubeconfigPath, NS, LEASE_S));
    await settled(client, live());
    await Promise.all(live().map((r) => waitReady(r)));
    const from = Date.now();
    let streaming = true;
    const stream = (async () => {
      for (let k = 0; streaming; k++) {
        const i = k % GRAPHS;
        values[i] = (values[i] ?? 0) + 1;
        await client.apply(graphOf(i, values[i] as number), { fieldManager: 'test', force: true });
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    replicas.push(await startReplica(plane.kubeconfigPath, NS, LEASE_S));
    const map = await settled(client, live(), 90_000);
    await Promise.all(live().map((r) => waitReady(r)));
    await new Promise((r) => setTimeout(r, 2_000));
    streaming = false;
    await stream;
    await converged(client, values, 30_000);
    const ids = new Set(live().map((r) => r.identity));
    assert.ok(
      map.buckets.every((e) => ids.has(e.owner) && e.phase === 'active'),
      'every bucket owned',
    );
    // Per object, the replicas that wrote it in order: a hand-over is A…A B…B; A B A is a double write.
    const byObject = new Map<string, string[]>();
    for (const w of replicaWrites(plane)
      .filter((x) => x.at >= from)
      .sort((a, b) => a.at - b.at)) {
      const key = `${w.resource}/${w.name}`;
      const runs = byObject.get(key) ?? [];
      if (runs.at(-1) !== w.userAgent) runs.push(w.userAgent);
      byObject.set(key, runs);
    }
    const doubles = [...byObject].filter(([, runs]) => new Set(runs).size !== runs.length);
    assert.deepEqual(doubles, []);
  });

  it('SIGKILL of the coordinator: another replica coordinates and every Graph converges again', async () => {
    const coordinator = await coordinatorOf(live());
    coordinator.process.kill('SIGKILL');
    await coordinator.exited;
    const killedAt = performance.now();
    values.fill(100);
    await applyGraphs(client, values);
    await converged(client, values, 90_000);
    const elapsed = performance.now() - killedAt;
    // The successor waits out the leader Lease; the dead coordinator's membership Lease has been unchanged
    // for as long in its eyes (every replica observes them), so its buckets move in the successor's first rounds.
    console.log(
      `# the coordinator's buckets converged ${Math.round(elapsed)} ms after SIGKILL (lease ${LEASE_S} s)`,
    );
    assert.ok(elapsed < 2 * LEASE_S * 1000, `${Math.round(elapsed)} ms`);
    const next = await coordinatorOf(live());
    assert.notEqual(next, coordinator);
    await settled(client, live());
  });
});
