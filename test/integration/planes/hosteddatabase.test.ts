/**
 * The seed's worked example across real control planes: the HostedDatabase
 * blueprint served in three consumer clusters with instances of the same name. Two consumers granted
 * the serving and claims roles: each converges with its VPC read (consumer), its Deployment on the
 * shared host (prefixed with its cluster ID), its registration in the management cluster (qualified
 * name, namespace in the hash) and its connection ConfigMap back in the consumer. The third granted
 * only the serving role: ClaimNotAccepted, nothing written in its cluster. Deleting an instance removes
 * its children on every plane and leaves the VPC untouched; removing a node from the blueprint prunes
 * its children on its plane.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { livenessRecordName, qualifiedName } from '../../../src/controller/planes/naming.ts';
import type { KubeObject } from '../../../src/kube/index.ts';
import {
  apply,
  BP,
  CONTROLLER_NS,
  cond,
  eventually,
  getObj,
  grant,
  ns,
  planesFixture,
  waitPublished,
  waitServed,
  yamlObjects,
} from './support.ts';

const EXPORT = 'hosteddatabases.krop.opendefense.cloud';
const INSTANCE = { group: 'krop.opendefense.cloud', plural: 'hosteddatabases' };
const TEAM = 'team-a';

function hostedDatabase(name: string): KubeObject {
  return {
    apiVersion: 'krop.opendefense.cloud/v1alpha1',
    kind: 'HostedDatabase',
    metadata: { name, namespace: TEAM },
    spec: { name },
  };
}

describe('planes: HostedDatabase across management, host and three consumer clusters', () => {
  const ids: string[] = [];

  const p = planesFixture({
    consumers: 3,
    prepare: async () => {
      const [vpcCrd] = yamlObjects('examples/planes/00-vpc-crd.yaml') as [KubeObject];
      await apply(p.management.admin, vpcCrd);
      await apply(p.host.admin, ns('databases'));
      for (const [i, c] of p.consumers.entries()) {
        await apply(c.admin, vpcCrd);
        await apply(c.admin, ns(TEAM));
        await eventually(
          'VPC served',
          async () =>
            (
              await c.admin.getOrUndefined({
                apiVersion: 'apiextensions.k8s.io/v1',
                kind: 'CustomResourceDefinition',
                name: 'vpcs.ec2.services.k8s.aws',
              })
            )?.status &&
            (await c.admin.discovery.resolveKind('ec2.services.k8s.aws/v1alpha1', 'VPC').then(
              () => true,
              () => undefined,
            )),
        );
        await apply(c.admin, {
          apiVersion: 'ec2.services.k8s.aws/v1alpha1',
          kind: 'VPC',
          metadata: { name: 'db-vpc', namespace: TEAM },
          spec: { cidrBlock: '10.0.0.0/16' },
        });
        await c.admin.applyStatus(
          {
            apiVersion: 'ec2.services.k8s.aws/v1alpha1',
            kind: 'VPC',
            metadata: { name: 'db-vpc', namespace: TEAM },
            status: { vpcID: `vpc-${i + 1}` },
          },
          { fieldManager: 'test', force: true },
        );
      }
      await eventually('VPC type in the management cluster', () =>
        p.management.admin.discovery.resolveKind('ec2.services.k8s.aws/v1alpha1', 'VPC').then(() => true),
      );
    },
    blueprints: yamlObjects('examples/planes/10-hosteddatabase.yaml'),
    finish: async () => {
      const published = await waitPublished(p, 'hosteddatabase');
      const status = published.status as {
        claims: { group: string; resource: string; verbs: string[]; scope: 'Namespaced' }[];
      };
      for (const [i, c] of p.consumers.entries()) {
        await grant(c, EXPORT, INSTANCE, status.claims, { serve: true, claims: i < 2 });
      }
      for (const c of p.consumers) {
        const cc = await waitServed(p, c);
        ids.push((cc.spec as { clusterID: string }).clusterID);
        await apply(c.admin, hostedDatabase('db'));
      }
    },
  });

  it('publishes claims merged per GroupResource, sorted, none for host or provider types', async () => {
    const b = await p.management.admin.get(BP('hosteddatabase'));
    const s = b.status as Record<string, unknown>;
    assert.equal(s.exportedAPI, EXPORT);
    assert.match(String(s.observedSpecHash), /^[0-9a-f]{12}$/);
    assert.deepEqual(s.claims, [
      {
        group: '',
        resource: 'configmaps',
        verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
        scope: 'Namespaced',
      },
      {
        group: 'ec2.services.k8s.aws',
        resource: 'vpcs',
        verbs: ['get', 'list', 'watch'],
        scope: 'Namespaced',
      },
    ]);
    assert.deepEqual(s.rbac, { serve: `kgraph:${EXPORT}:serve`, claims: `kgraph:${EXPORT}:claims` });
  });

  it('converges both granted consumers with same-named instances, without collision', async () => {
    assert.equal(ids.length, 3);
    assert.notEqual(ids[0], ids[1]);
    for (const [i, c] of p.consumers.slice(0, 2).entries()) {
      const id = ids[i] as string;
      const inst = await eventually(
        `${c.name} instance Ready`,
        async () => {
          const o = await getObj(c.admin, 'krop.opendefense.cloud/v1alpha1', 'HostedDatabase', 'db', TEAM);
          return cond(o, 'Ready')?.status === 'True' ? o : undefined;
        },
        60_000,
      );
      const st = inst.status as Record<string, unknown>;
      assert.equal(st.endpoint, `${id}-db.databases.svc.cluster.local`);
      assert.equal(st.vpcID, `vpc-${i + 1}`);
      assert.equal(st.state, 'ACTIVE');
      // design/planes.md §8: the stamp is runtime-only.
      assert.equal(inst.metadata.annotations?.['krop.opendefense.cloud/consumer-cluster'], undefined);

      // Host: the template name, GC labels, the VPC id read from the consumer.
      const dep = await getObj(p.host.admin, 'apps/v1', 'Deployment', `${id}-db`, 'databases');
      assert.ok(dep, `host Deployment ${id}-db`);
      assert.equal(dep.metadata.labels?.['krop.opendefense.cloud/consumer-cluster'], id);
      assert.equal(dep.metadata.labels?.['krop.opendefense.cloud/instance-uid'], inst.metadata.uid);
      assert.equal(dep.metadata.labels?.['krop.opendefense.cloud/blueprint'], EXPORT);
      const env = (dep.spec as { template: { spec: { containers: { env: { value: string }[] }[] } } })
        .template.spec.containers[0]?.env[0];
      assert.equal(env?.value, `vpc-${i + 1}`);
      assert.equal(dep.metadata.ownerReferences, undefined);
      // ...and not on the provider plane.
      assert.equal(
        await getObj(p.management.admin, 'apps/v1', 'Deployment', `${id}-db`, 'databases'),
        undefined,
      );

      // Provider: qualified name with the namespace in the hash.
      const qn = qualifiedName(id, TEAM, 'db', 'db-registration', 'ConfigMap');
      const reg = await getObj(p.management.admin, 'v1', 'ConfigMap', qn, 'default');
      assert.ok(reg, `provider ConfigMap ${qn}`);
      assert.deepEqual(reg.data, { consumerCluster: id, engine: 'postgres' });
      assert.equal(
        await getObj(p.management.admin, 'v1', 'ConfigMap', 'db-registration', 'default'),
        undefined,
      );

      // Consumer: literal name, owner reference to the instance, the host name read back.
      const conn = await getObj(c.admin, 'v1', 'ConfigMap', 'db-connection', TEAM);
      assert.ok(conn);
      assert.deepEqual(conn.data, {
        endpoint: `${id}-db.databases.svc.cluster.local`,
        vpcID: `vpc-${i + 1}`,
      });
      assert.deepEqual(
        conn.metadata.ownerReferences?.map((r) => [r.kind, r.name, r.uid]),
        [['HostedDatabase', 'db', inst.metadata.uid]],
      );
      // The VPC is read, never labelled.
      const vpc = await getObj(c.admin, 'ec2.services.k8s.aws/v1alpha1', 'VPC', 'db-vpc', TEAM);
      assert.equal(vpc?.metadata.labels, undefined);

      // The liveness record lists the provider and host GVKs.
      const rec = await getObj(
        p.management.admin,
        'v1',
        'ConfigMap',
        livenessRecordName(id, inst.metadata.uid ?? ''),
        CONTROLLER_NS,
      );
      assert.equal((rec?.data as Record<string, string> | undefined)?.providerChildGVKs, '/v1/ConfigMap');
      assert.equal((rec?.data as Record<string, string> | undefined)?.hostChildGVKs, 'apps/v1/Deployment');
    }
  });

  it('a consumer without the claims role gets ClaimNotAccepted and nothing written in its cluster', async () => {
    const c = p.consumers[2];
    assert.ok(c);
    const inst = await eventually(
      'ClaimNotAccepted',
      async () => {
        const o = await getObj(c.admin, 'krop.opendefense.cloud/v1alpha1', 'HostedDatabase', 'db', TEAM);
        return cond(o, 'Ready')?.reason === 'ClaimNotAccepted' ? o : undefined;
      },
      60_000,
    );
    assert.equal(cond(inst, 'Ready')?.status, 'False');
    assert.match(
      cond(inst, 'Ready')?.message ?? '',
      /vpcs\.ec2\.services\.k8s\.aws.*missing verbs get,list,watch/,
    );
    assert.equal(await getObj(c.admin, 'v1', 'ConfigMap', 'db-connection', TEAM), undefined);
    // The host Deployment waits on the VPC it could not read.
    assert.equal(await getObj(p.host.admin, 'apps/v1', 'Deployment', `${ids[2]}-db`, 'databases'), undefined);
    // The independent provider node still converged (pending never stops independent nodes).
    assert.ok(
      await getObj(
        p.management.admin,
        'v1',
        'ConfigMap',
        qualifiedName(ids[2] as string, TEAM, 'db', 'db-registration', 'ConfigMap'),
        'default',
      ),
    );
  });

  it('removing a node from the blueprint prunes its children on its plane', async () => {
    const [blueprint] = yamlObjects('examples/planes/10-hosteddatabase.yaml') as [KubeObject];
    const spec = blueprint.spec as { resources: { id: string }[] };
    spec.resources = spec.resources.filter((r) => r.id !== 'registration');
    await apply(p.management.admin, blueprint);
    for (const id of ids.slice(0, 2)) {
      await eventually(
        `provider registration of ${id} pruned`,
        async () =>
          (await getObj(
            p.management.admin,
            'v1',
            'ConfigMap',
            qualifiedName(id, TEAM, 'db', 'db-registration', 'ConfigMap'),
            'default',
          )) === undefined
            ? true
            : undefined,
        60_000,
      );
    }
    // The other planes keep theirs.
    assert.ok(await getObj(p.host.admin, 'apps/v1', 'Deployment', `${ids[0]}-db`, 'databases'));
    assert.ok(await getObj(p.consumers[0]?.admin as never, 'v1', 'ConfigMap', 'db-connection', TEAM));
  });

  it('deleting an instance removes its children on every plane and leaves the VPC untouched', async () => {
    const c = p.consumers[0];
    assert.ok(c);
    const id = ids[0] as string;
    const inst = await getObj(c.admin, 'krop.opendefense.cloud/v1alpha1', 'HostedDatabase', 'db', TEAM);
    await c.admin.delete({
      apiVersion: 'krop.opendefense.cloud/v1alpha1',
      kind: 'HostedDatabase',
      namespace: TEAM,
      name: 'db',
    });
    await eventually(
      'instance gone',
      async () =>
        (await getObj(c.admin, 'krop.opendefense.cloud/v1alpha1', 'HostedDatabase', 'db', TEAM)) === undefined
          ? true
          : undefined,
      60_000,
    );
    assert.equal(await getObj(p.host.admin, 'apps/v1', 'Deployment', `${id}-db`, 'databases'), undefined);
    assert.equal(await getObj(c.admin, 'v1', 'ConfigMap', 'db-connection', TEAM), undefined);
    assert.equal(
      await getObj(
        p.management.admin,
        'v1',
        'ConfigMap',
        livenessRecordName(id, inst?.metadata.uid ?? ''),
        CONTROLLER_NS,
      ),
      undefined,
    );
    const vpc = await getObj(c.admin, 'ec2.services.k8s.aws/v1alpha1', 'VPC', 'db-vpc', TEAM);
    assert.ok(vpc);
    assert.equal(vpc.metadata.labels, undefined);
    // The other consumer's instance keeps everything.
    assert.ok(await getObj(p.host.admin, 'apps/v1', 'Deployment', `${ids[1]}-db`, 'databases'));
    assert.ok(await getObj(p.consumers[1]?.admin as never, 'v1', 'ConfigMap', 'db-connection', TEAM));
  });
});
