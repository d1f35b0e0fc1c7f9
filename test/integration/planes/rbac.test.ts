// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * Least privilege (design/planes.md §16): the planes controller runs as the `kgraph-controller` ServiceAccount
 * of the management cluster holding only deploy/planes/rbac.yaml (a token, not an admin kubeconfig),
 * and as a host ServiceAccount holding only the host-target kind of the example (Deployments). The
 * HostedDatabase example converges on all three planes; a blueprint routing a kind outside those
 * rules to the provider plane is refused by the API server and reported, not worked around.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { qualifiedName } from '../../../src/controller/planes/naming.ts';
import type { KubeObject, RestClient } from '../../../src/kube/index.ts';
import {
  AV,
  apply,
  blueprint,
  CONTROLLER_NS,
  cond,
  eventually,
  getObj,
  instanceOf,
  ns,
  planesFixture,
  readyReason,
  serviceAccountClient,
  waitFor,
  yamlObjects,
} from './support.ts';

const TEAM = 'team-a';

/** A provider-target Secret: not among the provider kinds deploy/planes/rbac.yaml grants. */
const SECRETIVE = blueprint(
  'secretive',
  'Secretive',
  [
    {
      id: 'token',
      target: 'provider',
      template: {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: '${schema.spec.name}-token', namespace: 'default' },
        stringData: { a: 'b' },
      },
    },
  ],
  { spec: { name: 'string' } },
);

describe('planes: the controller under its least-privilege roles', () => {
  let mgmt: RestClient;
  let host: RestClient;

  const p = planesFixture({
    prepare: async () => {
      // Management: the ServiceAccount deploy/planes/rbac.yaml binds, with only those rules.
      for (const o of yamlObjects('deploy/planes/rbac.yaml')) await apply(p.management.admin, o);
      mgmt = await serviceAccountClient(p.management.admin, {
        namespace: CONTROLLER_NS,
        name: 'kgraph-controller',
      });
      // Host: the provider grants the host-target kind of the example, Deployments.
      await apply(p.host.admin, ns('databases'));
      await apply(p.host.admin, {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name: 'kgraph-host' },
        rules: [
          {
            apiGroups: ['apps'],
            resources: ['deployments'],
            verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
          },
        ],
      });
      await apply(p.host.admin, {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name: 'kgraph-host' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'kgraph-host' },
        subjects: [{ kind: 'ServiceAccount', name: 'kgraph', namespace: 'kgraph-host' }],
      });
      host = await serviceAccountClient(p.host.admin, { namespace: 'kgraph-host', name: 'kgraph' });

      const [vpcCrd] = yamlObjects('examples/planes/00-vpc-crd.yaml') as [KubeObject];
      for (const x of [p.management.admin, p.consumer.admin]) {
        await apply(x, vpcCrd);
        await eventually('VPC served', () =>
          x.discovery.resolveKind('ec2.services.k8s.aws/v1alpha1', 'VPC').then(
            () => true,
            () => {
              x.discovery.invalidate('ec2.services.k8s.aws/v1alpha1');
              return undefined;
            },
          ),
        );
      }
      await apply(p.consumer.admin, ns(TEAM));
      const vpc = {
        apiVersion: 'ec2.services.k8s.aws/v1alpha1',
        kind: 'VPC',
        metadata: { name: 'db-vpc', namespace: TEAM },
      };
      await apply(p.consumer.admin, { ...vpc, spec: { cidrBlock: '10.0.0.0/16' } });
      await p.consumer.admin.applyStatus(
        { ...vpc, status: { vpcID: 'vpc-1' } },
        { fieldManager: 'test', force: true },
      );
    },
    controller: () => ({ client: mgmt, hostClient: host }),
    blueprints: [...yamlObjects('examples/planes/10-hosteddatabase.yaml'), SECRETIVE],
    grants: ['hosteddatabase', 'secretive'],
  });

  it('converges HostedDatabase on all three planes as the kgraph-controller ServiceAccount', async () => {
    assert.equal(mgmt.kubeConfig.getCurrentUser()?.token !== undefined, true);
    await apply(p.consumer.admin, instanceOf('HostedDatabase', 'db', TEAM, { name: 'db' }));
    const inst = await waitFor(
      'HostedDatabase Ready',
      () => getObj(p.consumer.admin, AV, 'HostedDatabase', 'db', TEAM),
      readyReason('Ready'),
    );
    assert.equal((inst.status as { vpcID?: string }).vpcID, 'vpc-1');
    assert.ok(
      await getObj(
        p.management.admin,
        'v1',
        'ConfigMap',
        qualifiedName(p.clusterId, TEAM, 'db', 'db-registration', 'ConfigMap'),
        'default',
      ),
    );
    assert.ok(await getObj(p.host.admin, 'apps/v1', 'Deployment', `${p.clusterId}-db`, 'databases'));
    assert.ok(await getObj(p.consumer.admin, 'v1', 'ConfigMap', 'db-connection', TEAM));
  });

  it('a provider write outside deploy/planes/rbac.yaml is refused: ApplyFailed names the refusal, nothing is written', async () => {
    await apply(p.consumer.admin, instanceOf('Secretive', 's', TEAM, { name: 's' }));
    const inst = await waitFor(
      'ApplyFailed',
      () => getObj(p.consumer.admin, AV, 'Secretive', 's', TEAM),
      readyReason('ApplyFailed'),
    );
    assert.match(
      cond(inst, 'Ready')?.message ?? '',
      /(read token|apply secret\/\S+ -n default) on the provider plane: .*forbidden.*system:serviceaccount:kgraph-system:kgraph-controller/i,
    );
    assert.equal(
      await getObj(
        p.management.admin,
        'v1',
        'Secret',
        qualifiedName(p.clusterId, TEAM, 's', 's-token', 'Secret'),
        'default',
      ),
      undefined,
    );
    // The same identity may not read Secrets outside its namespace either.
    await assert.rejects(
      mgmt.listAll({ apiVersion: 'v1', kind: 'Secret', namespace: 'default' }),
      (e: unknown) => (e as { code?: number }).code === 403,
    );
  });
});
