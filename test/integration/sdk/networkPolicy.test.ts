/**
 * The synthesised network policies are accepted by a real API server and stored as sent: plain
 * networking.k8s.io/v1 NetworkPolicies (validated by the server itself) and CiliumNetworkPolicies against a
 * CRD fixture written from Cilium's documented API (`fixtures/cilium-network-policy-crd.yaml`).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import YAML from 'yaml';
import type { RestClient } from '../../../src/kube/rest.ts';
import type { KubeObject } from '../../../src/kube/types.ts';
import { definePackage, type Manifest, synth } from '../../../src/sdk/index.ts';
import { writeYaml } from '../../../src/yaml/writeYaml.ts';
import { eventually, testClient, testNamespace, waitCrdEstablished } from '../../support/kube.ts';
import { container, shop } from '../../unit/sdk/networkPackages.ts';

/** The three-tier package of the unit tests, plus a package exercising every intent peer. */
const policiesFor = (ns: string, kind: 'CiliumNetworkPolicy' | 'NetworkPolicy'): Manifest[] => {
  const r = synth({
    networkPolicy: { enable: true, kind },
    providers: { dns: 'kube-dns' },
    instances: {
      tiers: { package: shop({ apiUsesDb: true }), namespace: ns },
      ...(kind === 'CiliumNetworkPolicy' ? { peers: { package: intentPeers, namespace: ns } } : {}),
    },
  });
  const out = r.manifests.filter((m) => m.kind === kind);
  assert.equal(out.length, kind === 'CiliumNetworkPolicy' ? 4 : 3);
  return out;
};

const intentPeers = definePackage({
  name: 'peers',
  build: ({ scope }) => ({
    root: scope.mkDeployment({
      name: 'peers',
      meta: {
        network: {
          intents: [
            { direction: 'egress', to: { fqdn: 'api.stripe.com' }, ports: [{ port: 443 }] },
            { direction: 'egress', to: { fqdn: '*.acme.io' } },
            { direction: 'egress', to: { cidr: '10.20.0.0/16' } },
            { direction: 'egress', to: { entity: 'kube-apiserver' }, ports: [{ port: 6443 }] },
            { direction: 'ingress', from: { cidr: '192.168.0.0/24' }, ports: [{ port: 'http' }] },
          ],
        },
      },
      spec: {
        selector: { matchLabels: { app: 'peers' } },
        template: { spec: { containers: [container()] } },
      },
    }),
  }),
});

async function apply(client: RestClient, m: Manifest): Promise<KubeObject> {
  // As kgraph writes it: YAML text through the API server's own YAML reader.
  return client.apply(YAML.parse(writeYaml(m)) as KubeObject, { fieldManager: 'kgraph-np-test' });
}

describe('synthesised network policies on the API server', () => {
  let client: RestClient;
  before(async () => {
    client = await testClient();
    const crd = YAML.parse(
      readFileSync(join(import.meta.dirname, 'fixtures', 'cilium-network-policy-crd.yaml'), 'utf8'),
    ) as KubeObject;
    await client.apply(crd, { fieldManager: 'kgraph-np-test', force: true });
    await waitCrdEstablished(client, 'ciliumnetworkpolicies.cilium.io', 60_000);
  });
  after(() => client.close());

  it('CiliumNetworkPolicies are accepted and stored exactly as synthesised (nothing pruned)', async () => {
    const ns = await testNamespace('cnp');
    for (const m of policiesFor(ns, 'CiliumNetworkPolicy')) {
      const stored = await eventually(
        `CiliumNetworkPolicy ${m.metadata.name}`,
        () => apply(client, m).then((o) => o),
        60_000,
      );
      assert.deepEqual(stored.spec, m.spec, m.metadata.name);
    }
  });

  it('plain NetworkPolicies are accepted by the server’s own validation and stored as synthesised', async () => {
    const ns = await testNamespace('np');
    for (const m of policiesFor(ns, 'NetworkPolicy')) {
      const stored = await apply(client, m);
      const spec = stored.spec as Record<string, unknown>;
      assert.deepEqual(spec, m.spec, m.metadata.name);
    }
  });
});
