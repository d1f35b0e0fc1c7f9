// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * Garbage collection across planes with an injected clock (design/planes.md §13):
 * startup grace, corrupt records, live instances kept, a revoked serving grant swept (the other consumer
 * keeps everything), an unreachable consumer never swept, a changed cluster identity stops serving, and
 * deleting a ConsumerCluster cleans up its provider and host children through its finalizer.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { livenessRecordName, qualifiedName } from '../../../src/controller/planes/naming.ts';
import {
  AV,
  apply,
  blueprint,
  CONTROLLER_NS,
  type Consumer,
  cmT,
  cond,
  eventually,
  exportOf,
  getObj,
  grantPublished,
  ns,
  planesFixture,
  waitPublished,
  waitServed,
} from './support.ts';

const STALE = 60_000;
const DATA = { a: 'b' };

const BLUEPRINT = blueprint(
  'gcdemo',
  'GcDemo',
  [
    { id: 'prov', target: 'provider', template: cmT('${schema.spec.name}-prov', DATA, 'default') },
    {
      id: 'onHost',
      target: 'host',
      template: cmT(
        '${schema.spec.name}-${schema.metadata.annotations["krop.opendefense.cloud/consumer-cluster"]}',
        DATA,
        'default',
      ),
    },
    { id: 'mine', template: cmT('${schema.spec.name}-mine', DATA) },
  ],
  { spec: { name: 'string' } },
);

describe('planes: liveness records, the sweeper and deregistration', () => {
  const ids: string[] = [];
  let exportName = '';
  const uids: string[] = [];
  const later = () => new Date(Date.now() + 10 * STALE);
  const sweeper = () => p.controller.sweeper.withClock(later, new Date(Date.now() - 10 * STALE));
  const prov = (i: number) =>
    getObj(
      p.management.admin,
      'v1',
      'ConfigMap',
      qualifiedName(ids[i] ?? '', 'ns-a', 'g', 'g-prov', 'ConfigMap'),
      'default',
    );
  const hostObj = (i: number) => getObj(p.host.admin, 'v1', 'ConfigMap', `g-${ids[i]}`, 'default');
  const record = (i: number) =>
    getObj(
      p.management.admin,
      'v1',
      'ConfigMap',
      livenessRecordName(ids[i] ?? '', uids[i] ?? ''),
      CONTROLLER_NS,
    );
  const cc = (c: Consumer) =>
    p.management.admin.getOrUndefined({ apiVersion: AV, kind: 'ConsumerCluster', name: c.name });

  const p = planesFixture({
    consumers: 2,
    controller: { timings: { staleAfterMs: STALE, startupGraceMs: STALE } },
    blueprints: [BLUEPRINT],
    finish: async () => {
      const b = await waitPublished(p, 'gcdemo');
      exportName = exportOf(b).exportName;
      for (const c of p.consumers) {
        await apply(c.admin, ns('ns-a'));
        await grantPublished(p, c, 'gcdemo');
      }
      for (const c of p.consumers) {
        const o = await waitServed(p, c);
        ids.push((o.spec as { clusterID: string }).clusterID);
        await apply(c.admin, {
          apiVersion: AV,
          kind: 'GcDemo',
          metadata: { name: 'g', namespace: 'ns-a' },
          spec: { name: 'g' },
        });
      }
      for (const [i, c] of p.consumers.entries()) {
        const inst = await eventually(
          `${c.name} Ready`,
          async () => {
            const o = await getObj(c.admin, AV, 'GcDemo', 'g', 'ns-a');
            return cond(o, 'Ready')?.status === 'True' ? o : undefined;
          },
          60_000,
        );
        uids.push(inst.metadata.uid ?? '');
        assert.ok(await prov(i));
        assert.ok(await hostObj(i));
      }
    },
  });

  it('sweeps nothing during the startup grace, even when every record is stale', async () => {
    const s = p.controller.sweeper.withClock(later, new Date(later().getTime() - 1_000));
    const report = await s.sweep();
    assert.equal(report.decisions.size, 0);
    assert.ok(await record(0));
    assert.ok(await prov(0));
  });

  it('keeps live instances and skips corrupt records without deleting them', async () => {
    await apply(p.management.admin, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'krop-live-garbage',
        namespace: CONTROLLER_NS,
        labels: {
          'krop.opendefense.cloud/liveness': 'true',
          'krop.opendefense.cloud/instance-uid': 'x',
          'krop.opendefense.cloud/consumer-cluster': 'gone',
        },
      },
      data: { lastReconciled: 'not a time', providerChildGVKs: '/v1/ConfigMap' },
    });
    await apply(p.management.admin, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'krop-live-nouid',
        namespace: CONTROLLER_NS,
        labels: { 'krop.opendefense.cloud/liveness': 'true' },
      },
      data: { lastReconciled: '2020-01-01T00:00:00Z' },
    });
    const report = await sweeper().sweep();
    assert.equal(report.decisions.get('krop-live-garbage'), 'skipped');
    assert.equal(report.decisions.get('krop-live-nouid'), 'skipped');
    assert.equal(report.decisions.get(livenessRecordName(ids[0] ?? '', uids[0] ?? '')), 'alive');
    assert.equal(report.decisions.get(livenessRecordName(ids[1] ?? '', uids[1] ?? '')), 'alive');
    assert.ok(await getObj(p.management.admin, 'v1', 'ConfigMap', 'krop-live-garbage', CONTROLLER_NS));
    assert.ok(await getObj(p.management.admin, 'v1', 'ConfigMap', 'krop-live-nouid', CONTROLLER_NS));
    assert.ok(await prov(0));
    assert.ok(await prov(1));
  });

  it('a revoked serving grant stops reconciles; the stale record is swept, the other consumer keeps everything', async () => {
    const c = p.consumers[0] as Consumer;
    await c.admin.delete({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      name: `kgraph-${exportName}-serve`,
    });
    // Without the serving role kgraph can no longer read kube-system: serving stops (no more reconciles).
    await eventually(
      'serving stopped',
      async () => {
        const x = await cc(c);
        return cond(x, 'IdentityVerified')?.reason === 'IdentityUnreadable' &&
          !p.controller.loops.has(`gcdemo|${c.name}`)
          ? true
          : undefined;
      },
      30_000,
    );
    // design/planes.md §13.4, leader only: a sweeper whose Lease is not held, or that was given no authority at all,
    // refuses and deletes nothing; the same sweeper sweeps once it leads.
    let leading = false;
    const byLease = sweeper().withAuthority({ isLeader: () => leading });
    for (const s of [byLease, sweeper().withAuthority({ none: true })]) {
      const refused = await s.sweep();
      assert.match(refused.refused ?? '', /not the leader|no sweep authority/);
      assert.equal(refused.decisions.size, 0);
    }
    assert.ok(await prov(0));
    assert.ok(await hostObj(0));
    assert.ok(await record(0));
    leading = true;
    const report = await byLease.sweep();
    assert.equal(report.refused, undefined);
    assert.equal(report.decisions.get(livenessRecordName(ids[0] ?? '', uids[0] ?? '')), 'swept');
    assert.equal(await prov(0), undefined);
    assert.equal(await hostObj(0), undefined);
    assert.equal(await record(0), undefined);
    // The consumer's own child is the consumer's: the sweeper never touches the consumer plane.
    assert.ok(await getObj(c.admin, 'v1', 'ConfigMap', 'g-mine', 'ns-a'));
    assert.ok(await prov(1));
    assert.ok(await hostObj(1));
  });

  it('an unreachable consumer is never swept, a changed identity stops serving', async () => {
    const c = p.consumers[1] as Consumer;
    const secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      name: `${c.name}-kubeconfig`,
      namespace: CONTROLLER_NS,
    };
    const original = await p.management.admin.get(secret);
    const broken = Buffer.from(
      'apiVersion: v1\nkind: Config\nclusters: [{name: x, cluster: {server: "https://127.0.0.1:1"}}]\nusers: [{name: u, user: {token: t}}]\ncontexts: [{name: c, context: {cluster: x, user: u}}]\ncurrent-context: c\n',
    ).toString('base64');
    await p.management.admin.apply(
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: secret.name, namespace: CONTROLLER_NS },
        data: { kubeconfig: broken },
      },
      { fieldManager: 'test', force: true },
    );
    // The cluster reconcile follows the Secret at its next resync.
    await eventually(
      'Connected=False',
      async () => (cond(await cc(c), 'Connected')?.reason === 'Unreachable' ? true : undefined),
      30_000,
    );
    const report = await sweeper().sweep();
    assert.equal(report.decisions.get(livenessRecordName(ids[1] ?? '', uids[1] ?? '')), 'kept');
    assert.ok(report.unreachable >= 1);
    assert.ok(await prov(1));
    assert.ok(await hostObj(1));

    // Another cluster behind the registration's kubeconfig: a different kube-system UID. (Consumer 1
    // revoked its serving role above; let its identity read kube-system so the guard can compare UIDs.)
    const c1 = p.consumers[0] as Consumer;
    await apply(c1.admin, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'read-kube-system' },
      rules: [{ apiGroups: [''], resources: ['namespaces'], resourceNames: ['kube-system'], verbs: ['get'] }],
    });
    await apply(c1.admin, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'read-kube-system' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'read-kube-system' },
      subjects: [{ kind: 'ServiceAccount', name: 'kgraph', namespace: 'kgraph-consumer' }],
    });
    const other = await p.management.admin.get({
      apiVersion: 'v1',
      kind: 'Secret',
      name: `${p.consumers[0]?.name}-kubeconfig`,
      namespace: CONTROLLER_NS,
    });
    await p.management.admin.apply(
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: secret.name, namespace: CONTROLLER_NS },
        data: other.data,
      },
      { fieldManager: 'test', force: true },
    );
    const changed = await eventually(
      'ClusterIdentityChanged',
      async () => {
        const x = await cc(c);
        return cond(x, 'IdentityVerified')?.reason === 'ClusterIdentityChanged' ? x : undefined;
      },
      30_000,
    );
    assert.equal(cond(changed, 'Ready')?.status, 'False');
    assert.equal(p.controller.loops.has(`gcdemo|${c.name}`), false);
    assert.equal(
      (await sweeper().sweep()).decisions.get(livenessRecordName(ids[1] ?? '', uids[1] ?? '')),
      'kept',
    );
    assert.ok(await prov(1));
    await p.management.admin.apply(
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: secret.name, namespace: CONTROLLER_NS },
        data: original.data,
      },
      { fieldManager: 'test', force: true },
    );
  });

  it('deleting a ConsumerCluster cleans up its provider and host children through its finalizer (design/planes.md §13.5)', async () => {
    const c = p.consumers[1] as Consumer;
    await eventually(
      'verified again',
      async () => (cond(await cc(c), 'IdentityVerified')?.reason === 'Verified' ? true : undefined),
      30_000,
    );
    await p.management.admin.delete({ apiVersion: AV, kind: 'ConsumerCluster', name: c.name });
    await eventually(
      'ConsumerCluster gone',
      async () => ((await cc(c)) === undefined ? true : undefined),
      30_000,
    );
    assert.equal(await prov(1), undefined);
    assert.equal(await hostObj(1), undefined);
    assert.equal(await record(1), undefined);
    // Reachable: kgraph's finalizer is released from the instance; the consumer's children stay.
    const inst = await getObj(c.admin, AV, 'GcDemo', 'g', 'ns-a');
    assert.deepEqual(inst?.metadata.finalizers ?? [], []);
    assert.ok(await getObj(c.admin, 'v1', 'ConfigMap', 'g-mine', 'ns-a'));
  });
});
