/**
 * Deployments on the real controllers and scheduler, with KWOK playing the kubelet: a rollout
 * becomes Available and its Service's EndpointSlice lists the pods; a new template rolls out
 * through a new ReplicaSet; the SDK's derived availability spread lands pods on distinct nodes and
 * zones as its constraints say; a PodDisruptionBudget reports its status.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { KubeObject } from '../../../src/kube/types.ts';
import { type ClusterDef, createSession } from '../../../src/sdk/index.ts';
import { eventually } from '../../support/kube.ts';
import {
  deployment,
  field,
  num,
  type Obj,
  pods,
  rolledOut,
  type WorkloadEnv,
  workloadEnv,
} from './support.ts';

const nodeZone = async (w: WorkloadEnv): Promise<Map<string, string>> => {
  const nodes = await w.client.list({ apiVersion: 'v1', kind: 'Node' });
  return new Map(
    nodes.items.map((n) => [n.metadata.name ?? '', n.metadata.labels?.['topology.kubernetes.io/zone'] ?? '']),
  );
};

const nodeOf = (p: KubeObject): string => String(field(p, 'spec', 'nodeName') ?? '');

describe('Deployments on the workload plane', () => {
  let w: WorkloadEnv;
  before(async () => {
    w = await workloadEnv();
  });

  it('the simulated nodes are Ready, labelled with hostname and zone, with allocatable CPU and memory', async () => {
    const nodes = (await w.client.list({ apiVersion: 'v1', kind: 'Node' })).items.filter((n) =>
      w.nodes.includes(n.metadata.name ?? ''),
    );
    assert.equal(nodes.length, w.nodes.length);
    assert.ok(nodes.length >= 2, `expected several simulated nodes, got ${w.nodes.join(', ')}`);
    for (const n of nodes) {
      const conds = field(n, 'status', 'conditions') as { type: string; status: string }[];
      assert.equal(conds.find((c) => c.type === 'Ready')?.status, 'True', n.metadata.name);
      assert.equal(n.metadata.labels?.['kubernetes.io/hostname'], n.metadata.name);
      assert.match(n.metadata.labels?.['topology.kubernetes.io/zone'] ?? '', /^zone-[a-z]$/);
      assert.equal(field(n, 'status', 'allocatable', 'cpu'), '3800m');
      assert.equal(field(n, 'status', 'allocatable', 'memory'), '15Gi');
    }
    assert.ok(new Set(nodes.map((n) => n.metadata.labels?.['topology.kubernetes.io/zone'])).size >= 2);
  });

  it('becomes Available, and its Service EndpointSlice lists the ready pods by IP', async () => {
    const ns = await w.namespace('wl-deploy');
    await w.client.create(deployment(ns, 'web', 3));
    await w.client.create({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web', namespace: ns },
      spec: { selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 8080 }] },
    });
    const d = await rolledOut(w.client, ns, 'web', 3);
    assert.equal(num(field(d, 'status', 'readyReplicas')), 3);

    const running = await pods(w.client, ns, 'app=web');
    assert.equal(running.length, 3);
    for (const p of running) {
      assert.equal(field(p, 'status', 'phase'), 'Running');
      assert.ok(w.nodes.includes(nodeOf(p)), `pod bound by the scheduler to a simulated node: ${nodeOf(p)}`);
      assert.match(String(field(p, 'status', 'podIP')), /^10\.244\.\d+\.\d+$/);
    }

    const slice = await eventually('an EndpointSlice with 3 ready endpoints', async () => {
      const list = await w.client.list(
        { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', namespace: ns },
        { labelSelector: 'kubernetes.io/service-name=web' },
      );
      const s = list.items[0] as (KubeObject & { endpoints?: Obj[] }) | undefined;
      const ready = (s?.endpoints ?? []).filter((e) => field(e, 'conditions', 'ready') === true);
      return ready.length === 3 ? s : undefined;
    });
    const endpoints = (slice as KubeObject & { endpoints: Obj[] }).endpoints;
    assert.deepEqual(
      endpoints.map((e) => String(field(e, 'targetRef', 'name'))).sort(),
      running.map((p) => p.metadata.name).sort(),
    );
    assert.deepEqual(
      endpoints.map((e) => (e.addresses as string[])[0]).sort(),
      running.map((p) => String(field(p, 'status', 'podIP'))).sort(),
    );
    assert.deepEqual(
      (slice as KubeObject & { ports: Obj[] }).ports.map((p) => [p.name, p.port]),
      [['http', 8080]],
    );
  });

  it('rolls a new template out through a new ReplicaSet and scales the old one to zero', async () => {
    const ns = await w.namespace('wl-rollout');
    await w.client.create(deployment(ns, 'api', 2));
    await rolledOut(w.client, ns, 'api', 2);
    const target = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: ns, name: 'api' };
    await w.client.patch(
      target,
      { spec: { template: { spec: { containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.9' }] } } } },
      { type: 'strategic' },
    );
    await rolledOut(w.client, ns, 'api', 2);
    const sets = await eventually('the old ReplicaSet scaled to zero', async () => {
      const list = (await w.client.list({ apiVersion: 'apps/v1', kind: 'ReplicaSet', namespace: ns })).items;
      return list.length === 2 && list.some((rs) => num(field(rs, 'status', 'replicas')) === 0)
        ? list
        : undefined;
    });
    const images = sets.map((rs) => [
      String(field(rs, 'spec', 'template', 'spec', 'containers', '0', 'image')),
      num(field(rs, 'spec', 'replicas')),
    ]);
    assert.deepEqual(images.sort(), [
      ['registry.k8s.io/pause:3.10', 0],
      ['registry.k8s.io/pause:3.9', 2],
    ]);
  });

  const spreadCluster = (availability: 'node' | 'zone'): ClusterDef => ({
    availability,
    capabilities: { multiNode: true, daemonSets: true, privilegedContainers: false, metricsApi: 'provided' },
    topology: { failureDomainKeys: ['topology.kubernetes.io/zone', 'kubernetes.io/hostname'] },
  });

  /** The SDK's manifests for a 3-replica Deployment at `availability`, in namespace `ns`. */
  function sdkDeployment(ns: string, availability: 'node' | 'zone') {
    const session = createSession(spreadCluster(availability));
    const scope = session.scope({ instanceName: 'spread', namespaceName: ns });
    scope.mkDeployment({
      name: 'spread',
      spec: {
        replicas: 3,
        selector: { matchLabels: { app: 'spread' } },
        template: {
          spec: {
            containers: [
              {
                name: 'app',
                image: 'registry.k8s.io/pause:3.10',
                resources: {
                  requests: { cpu: '100m', memory: '64Mi' },
                  limits: { cpu: '100m', memory: '64Mi' },
                },
              },
            ],
          },
        },
      },
    });
    return session.finalize().manifests;
  }

  async function applyAll(ns: string, manifests: ReturnType<typeof sdkDeployment>): Promise<void> {
    for (const m of manifests) {
      if (m.kind === 'Namespace') continue;
      await w.client.apply(
        { ...(m as KubeObject), metadata: { ...m.metadata, namespace: ns } },
        {
          fieldManager: 'spread-test',
        },
      );
    }
  }

  it('the SDK spread at availability node puts 3 replicas on 3 distinct nodes (hostname DoNotSchedule)', async () => {
    const ns = await w.namespace('wl-spread-node');
    const manifests = sdkDeployment(ns, 'node');
    const dep = manifests.find((m) => m.kind === 'Deployment')!;
    const tsc = field(dep, 'spec', 'template', 'spec', 'topologySpreadConstraints') as Obj[];
    assert.deepEqual(
      tsc.map((c) => [c.topologyKey, c.whenUnsatisfiable]),
      [
        ['topology.kubernetes.io/zone', 'ScheduleAnyway'],
        ['kubernetes.io/hostname', 'DoNotSchedule'],
      ],
    );
    await applyAll(ns, manifests);
    await rolledOut(w.client, ns, 'spread', 3);
    const placed = (await pods(w.client, ns, 'app=spread')).map(nodeOf);
    assert.equal(new Set(placed).size, 3, `pods on ${placed.join(', ')}`);
  });

  it('the SDK spread at availability zone balances 3 replicas over both zones (zone DoNotSchedule, skew <= 1)', async () => {
    const ns = await w.namespace('wl-spread-zone');
    const manifests = sdkDeployment(ns, 'zone');
    const dep = manifests.find((m) => m.kind === 'Deployment')!;
    const tsc = field(dep, 'spec', 'template', 'spec', 'topologySpreadConstraints') as Obj[];
    assert.deepEqual(
      tsc.map((c) => [c.topologyKey, c.whenUnsatisfiable]),
      [
        ['topology.kubernetes.io/zone', 'DoNotSchedule'],
        ['kubernetes.io/hostname', 'ScheduleAnyway'],
      ],
    );
    await applyAll(ns, manifests);
    await rolledOut(w.client, ns, 'spread', 3);
    const zones = await nodeZone(w);
    const perZone = new Map<string, number>();
    for (const p of await pods(w.client, ns, 'app=spread')) {
      const z = zones.get(nodeOf(p)) ?? '?';
      perZone.set(z, (perZone.get(z) ?? 0) + 1);
    }
    const counts = [...perZone.values()].sort();
    assert.deepEqual(counts, [1, 2], `pods per zone: ${JSON.stringify(Object.fromEntries(perZone))}`);
  });

  it('a PodDisruptionBudget reports healthy and allowed disruptions for its pods', async () => {
    const ns = await w.namespace('wl-pdb');
    await w.client.create(deployment(ns, 'db', 3));
    await w.client.create({
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'db', namespace: ns },
      spec: { minAvailable: 2, selector: { matchLabels: { app: 'db' } } },
    });
    await rolledOut(w.client, ns, 'db', 3);
    const pdb = await eventually('the PDB status', async () => {
      const p = await w.client.get({
        apiVersion: 'policy/v1',
        kind: 'PodDisruptionBudget',
        namespace: ns,
        name: 'db',
      });
      return num(field(p, 'status', 'currentHealthy')) === 3 ? p : undefined;
    });
    assert.equal(num(field(pdb, 'status', 'expectedPods')), 3);
    assert.equal(num(field(pdb, 'status', 'desiredHealthy')), 2);
    assert.equal(num(field(pdb, 'status', 'disruptionsAllowed')), 1);
    const conds = field(pdb, 'status', 'conditions') as { type: string; status: string }[];
    assert.equal(conds.find((c) => c.type === 'DisruptionAllowed')?.status, 'True');
  });
});
