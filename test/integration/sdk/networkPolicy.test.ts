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
import {
  definePackage,
  k,
  kix,
  type Manifest,
  type Resource,
  type ServiceOut,
  synth,
  type Workload,
} from '../../../src/sdk/index.ts';
import { writeYaml } from '../../../src/yaml/writeYaml.ts';
import { eventually, testClient, testNamespace } from '../../support/kube.ts';

const container = (extra: Record<string, unknown> = {}) => ({
  name: 'app',
  image: 'ghcr.io/acme/app:1.0.0',
  ...extra,
});

/** web → api (Service URL) → db (address in a ConfigMap), plus an external API by intent. */
const threeTier = definePackage<{
  web: Workload;
  api: Workload;
  apiSvc: Resource<ServiceOut>;
  db: Workload;
  dbSvc: Resource<ServiceOut>;
  cfg: unknown;
  root: unknown;
}>({
  name: 'tiers',
  build: ({ scope, self }) => ({
    web: () =>
      scope.mkDeployment({
        name: 'web',
        meta: {
          network: {
            intents: [{ direction: 'ingress', from: { entity: 'world' }, ports: [{ port: 8080 }] }],
          },
        },
        spec: {
          selector: { matchLabels: { app: 'web' } },
          template: {
            spec: { containers: [container({ env: kix.mkEnvVars({ API: self.apiSvc.out.url() }) })] },
          },
        },
      }),
    apiSvc: () =>
      scope.mkResource({
        apiVersion: 'v1',
        kind: 'Service',
        name: 'api',
        spec: { selector: self.api.out.selector, ports: [{ port: 80, targetPort: 8080 }] },
      }),
    cfg: () =>
      scope.mkResource({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        name: 'api',
        data: { DB: k`${self.dbSvc.out.fqdn}:5432` },
      }),
    api: () =>
      scope.mkDeployment({
        name: 'api',
        spec: {
          selector: { matchLabels: { app: 'api' } },
          template: {
            spec: {
              containers: [
                container({ envFrom: [{ configMapRef: { name: (self.cfg as Resource).out.name } }] }),
              ],
            },
          },
        },
      }),
    dbSvc: () =>
      scope.mkResource({
        apiVersion: 'v1',
        kind: 'Service',
        name: 'db',
        spec: { clusterIP: 'None', selector: self.db.out.selector, ports: [{ port: 5432 }] },
      }),
    db: () =>
      scope.mkStatefulSet({
        name: 'db',
        meta: {
          network: {
            intents: [{ direction: 'egress', to: { cidr: '10.96.0.0/12' }, ports: [{ port: 443 }] }],
          },
        },
        spec: {
          headlessService: self.dbSvc,
          selector: { matchLabels: { app: 'db' } },
          template: { spec: { containers: [container()] } },
        },
      }),
    root: () => self.apiSvc,
  }),
});

const policiesFor = (
  ns: string,
  kind: 'CiliumNetworkPolicy' | 'NetworkPolicy',
  dnsRules: boolean,
): Manifest[] => {
  const r = synth({
    networkPolicy: { enable: true, kind },
    providers: { dns: 'kube-dns' },
    instances: { tiers: { package: threeTier, namespace: ns } },
  });
  const out = r.manifests.filter((m) => m.kind === kind);
  assert.equal(out.length, 3);
  if (dnsRules) assert.ok(JSON.stringify(out).includes('rules'));
  return out;
};

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
    await eventually(
      'the CiliumNetworkPolicy CRD to be established',
      async () => {
        const got = await client.get({
          apiVersion: 'apiextensions.k8s.io/v1',
          kind: 'CustomResourceDefinition',
          name: 'ciliumnetworkpolicies.cilium.io',
        });
        const conds =
          (got.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? [];
        return conds.some((c) => c.type === 'Established' && c.status === 'True') ? true : undefined;
      },
      60_000,
    );
  });
  after(() => client.close());

  it('CiliumNetworkPolicies are accepted and stored exactly as synthesised (nothing pruned)', async () => {
    const ns = await testNamespace('cnp');
    for (const m of policiesFor(ns, 'CiliumNetworkPolicy', true)) {
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
    for (const m of policiesFor(ns, 'NetworkPolicy', false)) {
      const stored = await apply(client, m);
      const spec = stored.spec as Record<string, unknown>;
      assert.deepEqual(spec, m.spec, m.metadata.name);
    }
  });
});
