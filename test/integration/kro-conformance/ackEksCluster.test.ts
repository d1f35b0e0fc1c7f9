// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * kro's ACK EKS cluster lifecycle (kro ackekscluster_test.go with its generator), ported: twelve ACK
 * resources (IAM roles, VPC, gateway, route table, subnets, EKS cluster, Elastic IP, NAT gateway, node
 * group) in kro's topological order and dependencies, statuses written by hand as kro does, the status
 * projected into the instance; once the resources are settled, a version change updates the Cluster
 * and writes nothing else; then deletion. kro's envtest carries the ACK CRDs; we install schemaless
 * stand-ins of the nine kinds (same groups and kinds) on the plane without workload controllers.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { isAlreadyExists } from '../../../src/kube/errors.ts';
import type { KubeObject, RestClient } from '../../../src/kube/index.ts';
import { eventually, waitCrdEstablished } from '../../support/kube.ts';
import { applyInstance, applyRgd, getInstance, instance, rgd, waitRgd } from '../rgd/support.ts';
import { absent, handStatusFixture, present } from './support.ts';

const EC2 = 'ec2.services.k8s.aws';
const IAM = 'iam.services.k8s.aws';
const EKS = 'eks.services.k8s.aws';
const open = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };

/** A namespaced stand-in of an ACK kind: any spec and status, with the status subresource. */
function standIn(group: string, kind: string): KubeObject {
  const plural = `${kind.toLowerCase()}s`;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List` },
      versions: [
        {
          name: 'v1alpha1',
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: { openAPIV3Schema: { type: 'object', properties: { spec: open, status: open } } },
        },
      ],
    },
  } as unknown as KubeObject;
}

const KINDS: [string, string][] = [
  [EC2, 'VPC'],
  [EC2, 'ElasticIPAddress'],
  [EC2, 'InternetGateway'],
  [EC2, 'RouteTable'],
  [EC2, 'Subnet'],
  [EC2, 'NATGateway'],
  [IAM, 'Role'],
  [EKS, 'Cluster'],
  [EKS, 'Nodegroup'],
];

type Hand = Awaited<ReturnType<typeof handStatusFixture>>;

describe('kro conformance: ACK EKS cluster lifecycle', () => {
  let h: Hand;
  let client: RestClient;

  before(async () => {
    h = await handStatusFixture('kro-ackeks');
    client = h.client;
    for (const [group, kind] of KINDS) {
      const crd = standIn(group, kind);
      try {
        await client.create(crd);
      } catch (e) {
        if (!isAlreadyExists(e)) throw e;
      }
      await waitCrdEstablished(client, crd.metadata.name ?? '');
    }
  });
  after(() => h.stop());

  it('handles the complete lifecycle of the RGD and an instance', async () => {
    const ns = h.ns;
    const obj = (group: string, kind: string, name: string, spec: Record<string, unknown>) => ({
      apiVersion: `${group}/v1alpha1`,
      kind,
      metadata: { name, namespace: ns },
      spec,
    });
    const role = (name: string, description: string, policies: string[], service: string) =>
      obj(IAM, 'Role', name, {
        name,
        description,
        policies,
        assumeRolePolicyDocument: JSON.stringify({
          Version: '2012-10-17',
          Statement: [{ Effect: 'Allow', Principal: { Service: service }, Action: 'sts:AssumeRole' }],
        }),
      });
    const subnet = (name: string, az: string, cidr: string) =>
      obj(EC2, 'Subnet', name, {
        availabilityZone: az,
        cidrBlock: cidr,
        vpcID: '${clusterVPC.status.vpcID}',
        routeTables: ['${clusterRouteTable.status.routeTableID}'],
        mapPublicIPOnLaunch: true,
      });
    const rgdName = 'test-eks-cluster';
    await applyRgd(
      client,
      rgd(
        h,
        rgdName,
        {
          kind: 'EKSCluster',
          spec: { name: 'string', version: 'string' },
          status: {
            networkingInfo: {
              vpcID: '${clusterVPC.status.vpcID}',
              subnetAZA: '${clusterSubnetA.status.subnetID}',
              subnetAZB: '${clusterSubnetB.status.subnetID}',
            },
            clusterARN: '${cluster.status.ackResourceMetadata.arn}',
          },
        },
        [
          {
            id: 'clusterRole',
            template: role(
              'kro-cluster-role',
              'kro created cluster cluster role',
              ['arn:aws:iam::aws:policy/AmazonEKSClusterPolicy'],
              'eks.amazonaws.com',
            ),
          },
          {
            id: 'clusterVPC',
            template: obj(EC2, 'VPC', 'kro-cluster-vpc', {
              cidrBlocks: ['192.168.0.0/16'],
              enableDNSSupport: true,
              enableDNSHostnames: true,
            }),
          },
          {
            id: 'clusterInternetGateway',
            template: obj(EC2, 'InternetGateway', 'kro-cluster-igw', { vpc: '${clusterVPC.status.vpcID}' }),
          },
          {
            id: 'clusterRouteTable',
            template: obj(EC2, 'RouteTable', 'kro-cluster-public-route-table', {
              vpcID: '${clusterVPC.status.vpcID}',
              routes: [
                {
                  destinationCIDRBlock: '0.0.0.0/0',
                  gatewayID: '${clusterInternetGateway.status.internetGatewayID}',
                },
              ],
            }),
          },
          {
            id: 'clusterSubnetA',
            template: subnet('kro-cluster-public-subnet1', 'us-west-2a', '192.168.0.0/18'),
          },
          {
            id: 'clusterSubnetB',
            template: subnet('kro-cluster-public-subnet2', 'us-west-2b', '192.168.64.0/18'),
          },
          {
            id: 'cluster',
            template: {
              apiVersion: `${EKS}/v1alpha1`,
              kind: 'Cluster',
              metadata: { name: '${schema.spec.name}', namespace: ns },
              spec: {
                name: '${schema.spec.name}',
                accessConfig: { authenticationMode: 'API_AND_CONFIG_MAP' },
                roleARN: '${clusterRole.status.ackResourceMetadata.arn}',
                version: '${schema.spec.version}',
                resourcesVPCConfig: {
                  endpointPrivateAccess: false,
                  endpointPublicAccess: true,
                  subnetIDs: ['${clusterSubnetA.status.subnetID}', '${clusterSubnetB.status.subnetID}'],
                },
              },
            },
          },
          {
            id: 'clusterAdminRole',
            template: role(
              'kro-cluster-pia-role',
              'kro created cluster admin pia role',
              ['arn:aws:iam::aws:policy/AdministratorAccess'],
              'pods.eks.amazonaws.com',
            ),
          },
          { id: 'clusterElasticIPAddress', template: obj(EC2, 'ElasticIPAddress', 'kro-cluster-eip', {}) },
          {
            id: 'clusterNATGateway',
            template: obj(EC2, 'NATGateway', 'kro-cluster-natgateway1', {
              subnetID: '${clusterSubnetB.status.subnetID}',
              allocationID: '${clusterElasticIPAddress.status.allocationID}',
            }),
          },
          {
            id: 'clusterNodeRole',
            template: role(
              'kro-cluster-node-role',
              'kro created cluster node role',
              [
                'arn:aws:iam::aws:policy/AmazonEKSWorkerNodePolicy',
                'arn:aws:iam::aws:policy/AmazonEC2ContainerRegistryReadOnly',
                'arn:aws:iam::aws:policy/AmazonEKS_CNI_Policy',
              ],
              'ec2.amazonaws.com',
            ),
          },
          {
            id: 'clusterNodeGroup',
            template: obj(EKS, 'Nodegroup', 'kro-cluster-nodegroup', {
              name: 'kro-cluster-ng',
              diskSize: 100,
              clusterName: '${cluster.spec.name}',
              subnets: ['${clusterSubnetA.status.subnetID}', '${clusterSubnetB.status.subnetID}'],
              nodeRole: '${clusterNodeRole.status.ackResourceMetadata.arn}',
              updateConfig: { maxUnavailable: 1 },
              scalingConfig: { minSize: 1, maxSize: 1, desiredSize: 1 },
            }),
          },
        ],
      ),
    );
    const r = await waitRgd(client, rgdName, 'Ready', 'True');
    const st = r.status as {
      state?: string;
      topologicalOrder?: string[];
      resources?: { id: string; dependencies?: { id: string }[] }[];
    };
    assert.equal(st.state, 'Active');
    assert.deepEqual(st.topologicalOrder, [
      'clusterRole',
      'clusterVPC',
      'clusterInternetGateway',
      'clusterRouteTable',
      'clusterSubnetA',
      'clusterSubnetB',
      'cluster',
      'clusterAdminRole',
      'clusterElasticIPAddress',
      'clusterNATGateway',
      'clusterNodeRole',
      'clusterNodeGroup',
    ]);
    const deps = new Map(
      (st.resources ?? []).map((x) => [x.id, (x.dependencies ?? []).map((d) => d.id).sort()]),
    );
    for (const root of [
      'clusterRole',
      'clusterVPC',
      'clusterElasticIPAddress',
      'clusterAdminRole',
      'clusterNodeRole',
    ]) {
      assert.ok((deps.get(root) ?? []).length === 0, root);
    }
    assert.deepEqual(deps.get('clusterInternetGateway'), ['clusterVPC']);
    assert.deepEqual(deps.get('clusterRouteTable'), ['clusterInternetGateway', 'clusterVPC']);
    assert.deepEqual(deps.get('clusterSubnetA'), ['clusterRouteTable', 'clusterVPC']);
    assert.deepEqual(deps.get('clusterSubnetB'), ['clusterRouteTable', 'clusterVPC']);
    assert.deepEqual(deps.get('cluster'), ['clusterRole', 'clusterSubnetA', 'clusterSubnetB']);
    assert.deepEqual(deps.get('clusterNATGateway'), ['clusterElasticIPAddress', 'clusterSubnetB']);
    assert.deepEqual(deps.get('clusterNodeGroup'), [
      'cluster',
      'clusterNodeRole',
      'clusterSubnetA',
      'clusterSubnetB',
    ]);

    const name = 'test-instance';
    await applyInstance(client, instance(h, 'EKSCluster', name, { name, version: '1.27' }));
    const ref = (group: string, kind: string, n: string) => ({
      apiVersion: `${group}/v1alpha1`,
      kind,
      namespace: ns,
      name: n,
    });
    const arn = (a: string) => ({
      ackResourceMetadata: { ownerAccountID: '123456789012', region: 'us-west-2', arn: a },
    });
    const setStatus = async (
      group: string,
      kind: string,
      n: string,
      status: Record<string, unknown>,
      check?: (o: KubeObject) => boolean,
    ) => {
      const o = await present(client, ref(group, kind, n), check);
      await client.update({ ...o, status }, { subresource: 'status' });
    };
    const spec = (o: KubeObject) => o.spec as Record<string, unknown>;
    await setStatus(IAM, 'Role', 'kro-cluster-role', arn('arn:aws:iam::123456789012:role/kro-cluster-role'));
    await setStatus(EC2, 'VPC', 'kro-cluster-vpc', { vpcID: 'vpc-12345' });
    await setStatus(
      EC2,
      'InternetGateway',
      'kro-cluster-igw',
      { internetGatewayID: 'igw-12345' },
      (o) => spec(o).vpc === 'vpc-12345',
    );
    await setStatus(EC2, 'RouteTable', 'kro-cluster-public-route-table', { routeTableID: 'rtb-12345' });
    await setStatus(EC2, 'Subnet', 'kro-cluster-public-subnet1', { subnetID: 'subnet-a12345' });
    await setStatus(EC2, 'Subnet', 'kro-cluster-public-subnet2', { subnetID: 'subnet-b12345' });
    await setStatus(EKS, 'Cluster', name, arn('arn:aws:eks:us-west-2:123456789012:cluster/test-instance'));
    await setStatus(
      IAM,
      'Role',
      'kro-cluster-pia-role',
      arn('arn:aws:iam::123456789012:role/kro-cluster-pia-role'),
    );
    await setStatus(EC2, 'ElasticIPAddress', 'kro-cluster-eip', { allocationID: 'eipalloc-12345' });
    await setStatus(EC2, 'NATGateway', 'kro-cluster-natgateway1', { natGatewayID: 'nat-12345' });
    await setStatus(
      IAM,
      'Role',
      'kro-cluster-node-role',
      arn('arn:aws:iam::123456789012:role/kro-cluster-node-role'),
    );
    await present(client, ref(EKS, 'Nodegroup', 'kro-cluster-nodegroup'));
    await eventually('status projected', async () => {
      const s = (await getInstance(client, h, 'EKSCluster', name))?.status as
        | { networkingInfo?: Record<string, string>; clusterARN?: string }
        | undefined;
      return s?.networkingInfo?.vpcID === 'vpc-12345' &&
        s.networkingInfo.subnetAZA === 'subnet-a12345' &&
        s.networkingInfo.subnetAZB === 'subnet-b12345' &&
        s.clusterARN === 'arn:aws:eks:us-west-2:123456789012:cluster/test-instance'
        ? true
        : undefined;
    });

    const tracked = [
      ref(EC2, 'VPC', 'kro-cluster-vpc'),
      ref(EC2, 'InternetGateway', 'kro-cluster-igw'),
      ref(EC2, 'RouteTable', 'kro-cluster-public-route-table'),
      ref(EC2, 'Subnet', 'kro-cluster-public-subnet1'),
      ref(EC2, 'Subnet', 'kro-cluster-public-subnet2'),
      ref(EKS, 'Cluster', name),
      ref(IAM, 'Role', 'kro-cluster-pia-role'),
      ref(EC2, 'ElasticIPAddress', 'kro-cluster-eip'),
      ref(EC2, 'NATGateway', 'kro-cluster-natgateway1'),
      ref(IAM, 'Role', 'kro-cluster-node-role'),
      ref(EKS, 'Nodegroup', 'kro-cluster-nodegroup'),
      ref(IAM, 'Role', 'kro-cluster-role'),
    ];
    const snapshot = async () => {
      const out = new Map<string, string>();
      for (const t of tracked)
        out.set(`${t.kind}/${t.name}`, (await client.get(t)).metadata.resourceVersion ?? '');
      return out;
    };
    // kro: wait until the resourceVersions stop moving before the version bump.
    let baseline = await snapshot();
    await eventually(
      'resourceVersions settled',
      async () => {
        await new Promise((res) => setTimeout(res, 2_000));
        const now = await snapshot();
        const same = [...now].every(([k, v]) => baseline.get(k) === v);
        baseline = now;
        return same || undefined;
      },
      90_000,
    );
    await applyInstance(client, instance(h, 'EKSCluster', name, { name, version: '1.28' }));
    await present(client, ref(EKS, 'Cluster', name), (o) => spec(o).version === '1.28', 60_000);
    await new Promise((res) => setTimeout(res, 2_000));
    const after = await snapshot();
    for (const [k, v] of after) {
      if (k.startsWith('Cluster/'))
        assert.notEqual(v, baseline.get(k), `${k} updated for the version change`);
      else assert.equal(v, baseline.get(k), `${k} not written during the version change`);
    }

    const inst = { apiVersion: `${h.group}/v1alpha1`, kind: 'EKSCluster', namespace: ns, name };
    await client.delete(inst);
    await absent(client, inst, 60_000);
    const rgdRef = { apiVersion: 'kro.run/v1alpha1', kind: 'ResourceGraphDefinition', name: rgdName };
    await client.delete(rgdRef);
    await absent(client, rgdRef);
  });
});
