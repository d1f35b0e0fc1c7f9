// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * kro's NetworkingStack lifecycle (kro networkingstack_test.go with its generator), ported: a VPC, a
 * security group and three subnets reading the VPC's id, their ids projected into the instance status,
 * then deletion. kro's envtest carries the ACK EC2 CRDs; we install stand-ins (support.ts) on the plane
 * without workload controllers and write their statuses by hand, as kro does.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { isAlreadyExists } from '../../../src/kube/errors.ts';
import type { RestClient } from '../../../src/kube/index.ts';
import { eventually, waitCrdEstablished } from '../../support/kube.ts';
import { applyInstance, applyRgd, getInstance, instance, rgd, waitRgd } from '../rgd/support.ts';
import { ACK_GROUP, absent, ackCrd, handStatusFixture, present } from './support.ts';

const str = { type: 'string' };
const CRDS = [
  ackCrd(
    'VPC',
    {
      cidrBlocks: { type: 'array', items: str },
      enableDNSHostnames: { type: 'boolean' },
      enableDNSSupport: { type: 'boolean' },
    },
    { vpcID: str },
  ),
  ackCrd('Subnet', { availabilityZone: str, cidrBlock: str, vpcID: str }, { subnetID: str }),
  ackCrd('SecurityGroup', { vpcID: str, name: str, description: str }, { id: str }),
];

type Hand = Awaited<ReturnType<typeof handStatusFixture>>;

describe('kro conformance: NetworkingStack lifecycle', () => {
  let h: Hand;
  let client: RestClient;

  before(async () => {
    h = await handStatusFixture('kro-netstack');
    client = h.client;
    for (const crd of CRDS) {
      try {
        await client.create(crd);
      } catch (e) {
        if (!isAlreadyExists(e)) throw e;
      }
      await waitCrdEstablished(client, crd.metadata.name ?? '');
    }
  });
  after(() => h.stop());

  const ack = (kind: string, name: string) => ({
    apiVersion: `${ACK_GROUP}/v1alpha1`,
    kind,
    namespace: h.ns,
    name,
  });
  const subnet = (suffix: string, az: string, cidr: string) => ({
    apiVersion: `${ACK_GROUP}/v1alpha1`,
    kind: 'Subnet',
    metadata: { name: `subnet-${suffix}-\${schema.spec.name}` },
    spec: { availabilityZone: az, cidrBlock: cidr, vpcID: '${vpc.status.vpcID}' },
  });
  const setStatus = async (kind: string, name: string, status: Record<string, string>) => {
    const o = await client.get(ack(kind, name));
    await client.update({ ...o, status }, { subresource: 'status' });
  };

  it('handles the complete lifecycle of the RGD and an instance', async () => {
    const rgdName = 'test-networking-stack';
    await applyRgd(
      client,
      rgd(
        h,
        rgdName,
        {
          kind: 'NetworkingStack',
          spec: { name: 'string' },
          status: {
            networkingInfo: {
              vpcID: '${vpc.status.vpcID}',
              subnetAZA: '${subnetAZA.status.subnetID}',
              subnetAZB: '${subnetAZB.status.subnetID}',
              subnetAZC: '${subnetAZC.status.subnetID}',
              securityGroup: '${securityGroup.status.id}',
            },
          },
        },
        [
          {
            id: 'vpc',
            template: {
              apiVersion: `${ACK_GROUP}/v1alpha1`,
              kind: 'VPC',
              metadata: { name: 'vpc-${schema.spec.name}' },
              spec: { cidrBlocks: ['192.168.0.0/16'], enableDNSHostnames: false, enableDNSSupport: true },
            },
          },
          {
            id: 'securityGroup',
            template: {
              apiVersion: `${ACK_GROUP}/v1alpha1`,
              kind: 'SecurityGroup',
              metadata: { name: 'security-group-${schema.spec.name}' },
              spec: {
                vpcID: '${vpc.status.vpcID}',
                name: 'my-sg-${schema.spec.name}',
                description: 'something something',
              },
            },
          },
          { id: 'subnetAZA', template: subnet('a', 'us-west-2a', '192.168.0.0/18') },
          { id: 'subnetAZB', template: subnet('b', 'us-west-2b', '192.168.64.0/18') },
          { id: 'subnetAZC', template: subnet('c', 'us-west-2c', '192.168.128.0/18') },
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
    assert.deepEqual(st.topologicalOrder, ['vpc', 'securityGroup', 'subnetAZA', 'subnetAZB', 'subnetAZC']);
    const deps = new Map((st.resources ?? []).map((x) => [x.id, (x.dependencies ?? []).map((d) => d.id)]));
    assert.ok(!deps.has('vpc') || deps.get('vpc')?.length === 0);
    for (const id of ['securityGroup', 'subnetAZA', 'subnetAZB', 'subnetAZC'])
      assert.deepEqual(deps.get(id), ['vpc'], id);

    const name = 'test-instance';
    await applyInstance(client, instance(h, 'NetworkingStack', name, { name }));
    await present(client, ack('VPC', `vpc-${name}`));
    await setStatus('VPC', `vpc-${name}`, { vpcID: 'vpc-12345' });
    await present(
      client,
      ack('SecurityGroup', `security-group-${name}`),
      (o) => (o.spec as { vpcID?: string }).vpcID === 'vpc-12345',
    );
    await setStatus('SecurityGroup', `security-group-${name}`, { id: 'sg-12345' });
    for (const [s, id] of [
      ['a', 'subnet-a12345'],
      ['b', 'subnet-b12345'],
      ['c', 'subnet-c12345'],
    ] as const) {
      await present(
        client,
        ack('Subnet', `subnet-${s}-${name}`),
        (o) => (o.spec as { vpcID?: string }).vpcID === 'vpc-12345',
      );
      await setStatus('Subnet', `subnet-${s}-${name}`, { subnetID: id });
    }
    await eventually('networkingInfo projected', async () => {
      const info = (
        (await getInstance(client, h, 'NetworkingStack', name))?.status as {
          networkingInfo?: Record<string, string>;
        }
      )?.networkingInfo;
      return info?.vpcID === 'vpc-12345' &&
        info.subnetAZA === 'subnet-a12345' &&
        info.subnetAZB === 'subnet-b12345' &&
        info.subnetAZC === 'subnet-c12345' &&
        info.securityGroup === 'sg-12345'
        ? true
        : undefined;
    });
    const inst = { apiVersion: `${h.group}/v1alpha1`, kind: 'NetworkingStack', namespace: h.ns, name };
    await client.delete(inst);
    await absent(client, ack('VPC', `vpc-${name}`));
    await absent(client, ack('SecurityGroup', `security-group-${name}`));
    await absent(client, inst);
    const rgdRef = { apiVersion: 'kro.run/v1alpha1', kind: 'ResourceGraphDefinition', name: rgdName };
    await client.delete(rgdRef);
    await absent(client, rgdRef);
  });
});
