// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * kro's data-pending scenarios (kro data_pending_test.go), ported: a resource that reads a status field
 * nobody has written yet waits (ResourcesReady=False, "unresolved"), while resources that do not need it
 * go ahead; writing the status lets the waiting ones through. kro's envtest carries the ACK EC2 CRDs;
 * we install stand-ins of the four kinds (same group, kinds and the fields read) on the plane without
 * workload controllers, where statuses stay as written.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { isAlreadyExists } from '../../../src/kube/errors.ts';
import type { KubeObject, RestClient } from '../../../src/kube/index.ts';
import { waitCrdEstablished } from '../../support/kube.ts';
import { applyInstance, applyRgd, conditionOf, instance, rgd, waitRgd, waitState } from '../rgd/support.ts';
import { ackCrd, ACK_GROUP as GROUP, handStatusFixture, present, staysAbsent } from './support.ts';

const str = { type: 'string' };

const ACK_CRDS = [
  ackCrd('VPC', { cidrBlocks: { type: 'array', items: str } }, { vpcID: str }),
  ackCrd('InternetGateway', { vpc: str }, { internetGatewayID: str }),
  ackCrd('Subnet', { vpcID: str, cidrBlock: str }, { subnetID: str }),
  ackCrd('NATGateway', { subnetID: str }, { natGatewayID: str }),
];

type Hand = Awaited<ReturnType<typeof handStatusFixture>>;

describe('kro conformance: data pending', () => {
  let h: Hand;
  let client: RestClient;

  before(async () => {
    h = await handStatusFixture('kro-pending');
    client = h.client;
    for (const crd of ACK_CRDS) {
      try {
        await client.create(crd);
      } catch (e) {
        if (!isAlreadyExists(e)) throw e;
      }
      await waitCrdEstablished(client, crd.metadata.name ?? '');
    }
  });
  after(() => h.stop());

  const ref = (kind: string, name: string) => ({
    apiVersion: `${GROUP}/v1alpha1`,
    kind,
    namespace: h.ns,
    name,
  });
  const ack = (kind: string, name: string, spec: Record<string, unknown>) => ({
    apiVersion: `${GROUP}/v1alpha1`,
    kind,
    metadata: { name },
    spec,
  });
  const writeStatus = async (kind: string, name: string, status: Record<string, unknown>) => {
    const o = await client.get(ref(kind, name));
    await client.update({ ...o, status }, { subresource: 'status' });
  };
  const specField = (o: KubeObject, field: string) =>
    (o.spec as Record<string, unknown> | undefined)?.[field];

  it('reports ResourcesReady=False while a status field is unresolved, then proceeds', async () => {
    const name = 'test-data-pending';
    await applyRgd(
      client,
      rgd(
        h,
        'kro-pending-data',
        {
          kind: 'TestDataPending',
          spec: { name: 'string' },
          status: { vpcID: '${vpc.status.vpcID}', subnetID: '${subnet.status.subnetID}' },
        },
        [
          { id: 'vpc', template: ack('VPC', '${schema.spec.name}-vpc', { cidrBlocks: ['10.0.0.0/16'] }) },
          {
            id: 'igw',
            template: ack('InternetGateway', '${schema.spec.name}-igw', { vpc: '${vpc.status.vpcID}' }),
          },
          {
            id: 'subnet',
            template: ack('Subnet', '${schema.spec.name}-subnet', {
              vpcID: '${vpc.status.vpcID}',
              cidrBlock: '10.0.1.0/24',
            }),
          },
          {
            id: 'natgw',
            template: ack('NATGateway', '${schema.spec.name}-natgw', {
              subnetID: '${subnet.status.subnetID}',
            }),
          },
        ],
      ),
    );
    const r = await waitRgd(client, 'kro-pending-data', 'Ready', 'True');
    const st = r.status as { state?: string; topologicalOrder?: string[] };
    assert.equal(st.state, 'Active');
    assert.equal(st.topologicalOrder?.length, 4);
    assert.equal(st.topologicalOrder?.[0], 'vpc');

    await applyInstance(client, instance(h, 'TestDataPending', name, { name }));
    await present(client, ref('VPC', `${name}-vpc`));
    await waitState(client, h, 'TestDataPending', name, 'IN_PROGRESS', (o) => {
      const c = conditionOf(o, 'ResourcesReady');
      return c?.status === 'False' && (c.message ?? '').includes('unresolved');
    });
    await staysAbsent(client, ref('InternetGateway', `${name}-igw`));

    await writeStatus('VPC', `${name}-vpc`, { vpcID: 'vpc-12345' });
    await present(client, ref('InternetGateway', `${name}-igw`), (o) => specField(o, 'vpc') === 'vpc-12345');
    await present(client, ref('Subnet', `${name}-subnet`), (o) => specField(o, 'vpcID') === 'vpc-12345');
    await staysAbsent(client, ref('NATGateway', `${name}-natgw`));

    await writeStatus('Subnet', `${name}-subnet`, { subnetID: 'subnet-67890' });
    await present(
      client,
      ref('NATGateway', `${name}-natgw`),
      (o) => specField(o, 'subnetID') === 'subnet-67890',
    );
    await waitState(client, h, 'TestDataPending', name, 'ACTIVE', (o) => {
      const s = o.status as Record<string, unknown>;
      return s.vpcID === 'vpc-12345' && s.subnetID === 'subnet-67890';
    });
  });

  it('creates the independent resources while another waits for data', async () => {
    const name = 'test-parallel';
    const vpc = (id: string, cidr: string) => ({
      id,
      template: ack('VPC', `\${schema.spec.name}-vpc-${id.slice(-1).toLowerCase()}`, { cidrBlocks: [cidr] }),
    });
    const subnet = (id: string, from: string, cidr: string) => ({
      id,
      template: ack('Subnet', `\${schema.spec.name}-subnet-${id.slice(-1).toLowerCase()}`, {
        vpcID: `\${${from}.status.vpcID}`,
        cidrBlock: cidr,
      }),
    });
    await applyRgd(
      client,
      rgd(h, 'kro-pending-parallel', { kind: 'TestParallelPending', spec: { name: 'string' } }, [
        vpc('vpcA', '10.0.0.0/16'),
        vpc('vpcB', '10.1.0.0/16'),
        subnet('subnetA', 'vpcA', '10.0.1.0/24'),
        subnet('subnetB', 'vpcB', '10.1.1.0/24'),
      ]),
    );
    const r = await waitRgd(client, 'kro-pending-parallel', 'Ready', 'True');
    assert.equal((r.status as { state?: string }).state, 'Active');
    await applyInstance(client, instance(h, 'TestParallelPending', name, { name }));
    await present(client, ref('VPC', `${name}-vpc-a`));
    await present(client, ref('VPC', `${name}-vpc-b`));
    await staysAbsent(client, ref('Subnet', `${name}-subnet-a`));
    await staysAbsent(client, ref('Subnet', `${name}-subnet-b`), 0);
    await writeStatus('VPC', `${name}-vpc-a`, { vpcID: 'vpc-aaaa' });
    await present(client, ref('Subnet', `${name}-subnet-a`), (o) => specField(o, 'vpcID') === 'vpc-aaaa');
    await staysAbsent(client, ref('Subnet', `${name}-subnet-b`));
    await writeStatus('VPC', `${name}-vpc-b`, { vpcID: 'vpc-bbbb' });
    await present(client, ref('Subnet', `${name}-subnet-b`), (o) => specField(o, 'vpcID') === 'vpc-bbbb');
    await waitState(client, h, 'TestParallelPending', name, 'ACTIVE');
  });
});
