// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * An upgrade that loses nothing: two `kgraph controller --leader-elect` replicas, then a rolling update
 * as the chart's Deployment does it (maxSurge 1, maxUnavailable 0): a replica with new arguments starts,
 * then an old one is stopped (SIGTERM), twice, while a client keeps editing RGD instances. Measured: the
 * leadership hand-over time (old leader's SIGTERM to the successor holding the Lease); asserted: every
 * edit reaches its child (0 lost), and no replica writes (create, apply, patch, delete) while another
 * holds the Lease (0 double writes; each replica's own request counters, scraped every 100 ms, against the Lease's holder).
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { hostname } from 'node:os';
import { after, before, describe, it } from 'node:test';
import type { KubeObject } from '../../../src/kube/index.ts';
import { RestClient } from '../../../src/kube/rest.ts';
import { applyChartCrds } from '../../support/chartCrds.ts';
import { freePort, spawnController, waitReadyz } from '../../support/controllerProcess.ts';
import { dedicatedControlPlane, type TestControlPlane } from '../../support/controlPlane.ts';
import { eventually } from '../../support/kube.ts';

const NS = 'apps';
const LEASE_NS = 'kgraph-system';
const INSTANCES = 4;
const API = { apiVersion: 'kro.run/v1alpha1', kind: 'Counter' } as const;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const rgd: KubeObject = {
  apiVersion: 'kro.run/v1alpha1',
  kind: 'ResourceGraphDefinition',
  metadata: { name: 'counter' },
  spec: {
    schema: { apiVersion: 'v1alpha1', kind: API.kind, spec: { n: 'integer | default=0' } },
    resources: [
      {
        id: 'cm',
        template: {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: '${schema.metadata.name}-n' },
          data: { n: '${string(schema.spec.n)}' },
        },
      },
    ],
  },
};

interface Replica {
  proc: ChildProcess;
  port: number;
  identity: string;
  /** Object writes so far, as last scraped. */
  writes: number;
}

/**
 * A replica's writes of objects so far (its own counters: create, patch, apply, delete), undefined when
 * its metrics do not answer. `update` is left out: it is the Lease renewal, which standbys also attempt.
 */
async function writeCount(port: number): Promise<number | undefined> {
  const r = await fetch(`http://127.0.0.1:${port}/metrics`).catch(() => undefined);
  if (r?.status !== 200) return undefined;
  const text = await r.text();
  let n = 0;
  for (const verb of ['create', 'patch', 'apply', 'delete'])
    n += Number(
      new RegExp(`^kgraph_api_requests_total\\{verb="${verb}"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0,
    );
  return n;
}

describe('a rolling update of two leader-elected replicas while instances are edited', {
  timeout: 10 * 60_000,
}, () => {
  let cp: TestControlPlane;
  let admin: RestClient;
  const replicas: Replica[] = [];
  const last = new Map<string, number>();
  let editing = true;
  let edits = 0;
  const handOvers: number[] = [];
  const doubleWrites: string[] = [];
  let holder = '';

  const leaseHolder = async (): Promise<{ holder: string; acquired: number }> => {
    const l = await admin.getOrUndefined({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      namespace: LEASE_NS,
      name: 'kgraph-controller',
    });
    const spec = l?.spec as { holderIdentity?: string; acquireTime?: string } | undefined;
    return { holder: spec?.holderIdentity ?? '', acquired: Date.parse(spec?.acquireTime ?? '') };
  };

  const startReplica = async (args: string[]): Promise<Replica> => {
    const port = await freePort();
    const proc = spawnController(cp.kubeconfigPath, port, [
      '--no-graphs',
      '--leader-elect',
      '--leader-election-namespace',
      LEASE_NS,
      '--lease-duration',
      '15s',
      ...args,
    ]);
    const r: Replica = { proc, port, identity: `${hostname()}_${proc.pid}`, writes: 0 };
    replicas.push(r);
    await waitReadyz(port, `replica ${r.identity}`, 120_000);
    return r;
  };

  /** SIGTERM as the kubelet sends it; when `r` led, the time until a successor holds the Lease. */
  const stopReplica = async (r: Replica): Promise<void> => {
    const led = (await leaseHolder()).holder === r.identity;
    const t0 = Date.now();
    const exited = once(r.proc, 'exit');
    r.proc.kill('SIGTERM');
    await exited;
    if (!led) return;
    const next = await eventually(
      'a successor holds the Lease',
      async () => {
        const l = await leaseHolder();
        return l.holder !== '' && l.holder !== r.identity ? l : undefined;
      },
      60_000,
      20,
    );
    handOvers.push(next.acquired - t0);
  };

  /** Every 100 ms: each live replica's write count must not grow while another replica holds the Lease. */
  const watchWrites = async (): Promise<void> => {
    while (editing) {
      const before = (await leaseHolder()).holder;
      const counts = await Promise.all(replicas.map((r) => writeCount(r.port)));
      const afterHolder = (await leaseHolder()).holder;
      replicas.forEach((r, i) => {
        const n = counts[i];
        if (n === undefined) return;
        // Only a window the same other replica held from start to end counts.
        if (
          n > r.writes &&
          before === afterHolder &&
          before !== r.identity &&
          before === holder &&
          holder !== ''
        )
          doubleWrites.push(`${r.identity}: ${n - r.writes} writes while ${before} led`);
        r.writes = n;
      });
      holder = afterHolder;
      await sleep(100);
    }
  };

  const editLoop = async (): Promise<void> => {
    while (editing) {
      for (let i = 0; i < INSTANCES; i++) {
        const name = `c${i}`;
        const n = (last.get(name) ?? 0) + 1;
        await admin.apply(
          { ...API, metadata: { name, namespace: NS }, spec: { n } },
          { fieldManager: 'editor', force: true },
        );
        last.set(name, n);
        edits += 1;
      }
      await sleep(50);
    }
  };

  before(async () => {
    cp = await dedicatedControlPlane({ workloads: false });
    admin = new RestClient(cp.kc);
    await applyChartCrds(admin);
    for (const n of [NS, LEASE_NS])
      await admin.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: n } });
  });

  after(async () => {
    editing = false;
    for (const r of replicas) if (r.proc.exitCode === null) r.proc.kill('SIGKILL');
    admin?.close();
  });

  it('hands over leadership with 0 lost edits and 0 double writes', async () => {
    const old = [await startReplica([]), await startReplica([])];
    await admin.apply(rgd, { fieldManager: 'test', force: true });
    await eventually(
      'the instances accepted',
      async () => {
        for (let i = 0; i < INSTANCES; i++)
          await admin.apply(
            { ...API, metadata: { name: `c${i}`, namespace: NS }, spec: { n: 0 } },
            { fieldManager: 'editor', force: true },
          );
        return true;
      },
      120_000,
      500,
    );
    holder = (await leaseHolder()).holder;
    const loops = [editLoop(), watchWrites()];
    try {
      // The roll: a new replica (new arguments) ready, then an old one stopped; twice.
      for (const r of old) {
        await sleep(2_000);
        await startReplica(['--rgd-concurrency', '2']);
        await stopReplica(r);
      }
      await sleep(2_000);
    } finally {
      editing = false;
      await Promise.all(loops);
    }

    // 0 lost edits: every child holds its instance's last value, and the status is on the last generation.
    await eventually(
      'every child at its last edit',
      async () => {
        for (let i = 0; i < INSTANCES; i++) {
          const name = `c${i}`;
          const c = await admin.getOrUndefined({
            apiVersion: 'v1',
            kind: 'ConfigMap',
            namespace: NS,
            name: `${name}-n`,
          });
          if ((c?.data as Record<string, string> | undefined)?.n !== String(last.get(name))) return undefined;
        }
        return true;
      },
      60_000,
    );
    process.stderr.write(
      `rolling update: ${edits} edits, hand-over ${handOvers.map((ms) => `${ms} ms`).join(', ')} (SIGTERM of the leader → successor holds the Lease), double writes ${doubleWrites.length}\n`,
    );
    assert.ok(handOvers.length >= 1, 'the leader was replaced at least once');
    assert.deepEqual(doubleWrites, []);
  });
});
