import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type AnyResource,
  type ClusterDef,
  definePackage,
  kix,
  type Manifest,
  type Resource,
  SdkCode,
  type ServiceOut,
  type SynthResult,
  synth,
  type Workload,
} from '../../../src/sdk/index.ts';
import { dependsOn, find, hashOf, throwsCode } from './helpers.ts';
import { container, dns, shop } from './networkPackages.ts';

const cluster = (
  o: { apiUsesDb?: boolean; kind?: 'CiliumNetworkPolicy' | 'NetworkPolicy' } = {},
): ClusterDef => ({
  networkPolicy: { enable: true, ...(o.kind ? { kind: o.kind } : {}) },
  instances: {
    shop: { package: shop({ apiUsesDb: o.apiUsesDb ?? true }), namespace: 'shop' },
    dns: { package: dns, namespace: 'kube-system' },
  },
});

const policies = (r: SynthResult, kind = 'CiliumNetworkPolicy'): Record<string, unknown> =>
  Object.fromEntries(
    r.manifests
      .filter((m) => m.kind === kind)
      .map((m) => [`${m.metadata.namespace}/${m.metadata.name}`, m.spec]),
  );

const pods = (ns: string, labels: Record<string, string>) => ({
  matchLabels: { ...labels, 'k8s:io.kubernetes.pod.namespace': ns },
});
const tcp = (port: number) => ({ port: String(port), protocol: 'TCP' });
const dnsEgress = {
  toEndpoints: [pods('kube-system', { 'k8s-app': 'kube-dns' })],
  toPorts: [
    {
      ports: [
        { port: '53', protocol: 'TCP' },
        { port: '53', protocol: 'UDP' },
      ],
      rules: { dns: [{ matchPattern: '*' }] },
    },
  ],
};

describe('network policies from .out references and intents (design/sdk.md §A4.2, item 5)', () => {
  it('a three-tier package gives exactly the hand-written least-privilege CiliumNetworkPolicy set', () => {
    const r = synth(cluster());
    assert.deepEqual(policies(r), {
      'shop/web': {
        endpointSelector: { matchLabels: { app: 'web' } },
        ingress: [{ fromEntities: ['world'], toPorts: [{ ports: [tcp(8080)] }] }],
        egress: [
          dnsEgress,
          { toEndpoints: [pods('shop', { app: 'api' })], toPorts: [{ ports: [tcp(8080)] }] },
        ],
      },
      'shop/api': {
        endpointSelector: { matchLabels: { app: 'api' } },
        ingress: [{ fromEndpoints: [pods('shop', { app: 'web' })], toPorts: [{ ports: [tcp(8080)] }] }],
        egress: [
          dnsEgress,
          { toEndpoints: [pods('shop', { app: 'db' })], toPorts: [{ ports: [tcp(5432)] }] },
        ],
      },
      'shop/db': {
        endpointSelector: { matchLabels: { app: 'db' } },
        ingress: [{ fromEndpoints: [pods('shop', { app: 'api' })], toPorts: [{ ports: [tcp(5432)] }] }],
        egress: [dnsEgress],
      },
      'kube-system/coredns': {
        endpointSelector: { matchLabels: { 'k8s-app': 'kube-dns' } },
        ingress: [
          {
            fromEndpoints: [pods('shop', { app: 'api' })],
            toPorts: [
              {
                ports: [
                  { port: '53', protocol: 'TCP' },
                  { port: '53', protocol: 'UDP' },
                ],
              },
            ],
          },
          {
            fromEndpoints: [pods('shop', { app: 'db' })],
            toPorts: [
              {
                ports: [
                  { port: '53', protocol: 'TCP' },
                  { port: '53', protocol: 'UDP' },
                ],
              },
            ],
          },
          {
            fromEndpoints: [pods('shop', { app: 'web' })],
            toPorts: [
              {
                ports: [
                  { port: '53', protocol: 'TCP' },
                  { port: '53', protocol: 'UDP' },
                ],
              },
            ],
          },
        ],
        egress: [
          {
            toEntities: ['world'],
            toPorts: [
              {
                ports: [
                  { port: '53', protocol: 'TCP' },
                  { port: '53', protocol: 'UDP' },
                ],
              },
            ],
          },
        ],
      },
    });
    const web = find(r, 'CiliumNetworkPolicy', 'web');
    assert.equal(web.apiVersion, 'cilium.io/v2');
    assert.equal(web.metadata.labels?.['app.kubernetes.io/instance'], 'shop');
    // The pods start under their policy: each workload waits for its policy.
    assert.ok(dependsOn(find(r, 'Deployment', 'web')).includes(hashOf(r, 'CiliumNetworkPolicy', 'web')));
  });

  it('removing a reference removes its rule, on both ends', () => {
    const p = policies(synth(cluster({ apiUsesDb: false }))) as Record<
      string,
      { ingress: unknown; egress: unknown }
    >;
    assert.deepEqual(p['shop/api']!.egress, [dnsEgress]);
    assert.deepEqual(p['shop/db']!.ingress, [{}], 'nothing may reach the database any more: default deny');
  });

  it('no policies without cluster.networkPolicy.enable', () => {
    const def = cluster();
    const r = synth({ ...def, networkPolicy: { enable: false } });
    assert.equal(r.manifests.filter((m) => m.kind.endsWith('NetworkPolicy')).length, 0);
  });

  it('plain networking.k8s.io/v1 NetworkPolicy as the cluster definition’s choice', () => {
    const r = synth(cluster({ kind: 'NetworkPolicy' }));
    assert.equal(r.manifests.filter((m) => m.kind === 'CiliumNetworkPolicy').length, 0);
    const api = find(r, 'NetworkPolicy', 'api');
    assert.equal(api.apiVersion, 'networking.k8s.io/v1');
    const ns = (n: string) => ({ matchLabels: { 'kubernetes.io/metadata.name': n } });
    assert.deepEqual(api.spec, {
      podSelector: { matchLabels: { app: 'api' } },
      policyTypes: ['Ingress', 'Egress'],
      ingress: [
        {
          from: [{ podSelector: { matchLabels: { app: 'web' } }, namespaceSelector: ns('shop') }],
          ports: [{ port: 8080, protocol: 'TCP' }],
        },
      ],
      egress: [
        {
          to: [
            { podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } }, namespaceSelector: ns('kube-system') },
          ],
          ports: [
            { port: 53, protocol: 'TCP' },
            { port: 53, protocol: 'UDP' },
          ],
        },
        {
          to: [{ podSelector: { matchLabels: { app: 'db' } }, namespaceSelector: ns('shop') }],
          ports: [{ port: 5432, protocol: 'TCP' }],
        },
      ],
    });
    const db = find(r, 'NetworkPolicy', 'db');
    assert.deepEqual((db.spec as { ingress: unknown[] }).ingress.length, 1);
    assert.deepEqual((find(r, 'NetworkPolicy', 'web').spec as { ingress: unknown }).ingress, [
      { from: [{ ipBlock: { cidr: '0.0.0.0/0' } }], ports: [{ port: 8080, protocol: 'TCP' }] },
    ]);
  });
});

/** A worker that reaches a backend only through a custom resource whose spec names the backend's Service. */
const throughCr = (behavior: 'conduct' | 'terminate' | undefined) =>
  definePackage({
    name: 'jobs',
    build: ({ scope, self }) => ({
      backend: () =>
        scope.mkDeployment({
          name: 'backend',
          spec: {
            selector: { matchLabels: { app: 'backend' } },
            template: { spec: { containers: [container()] } },
          },
        }),
      backendService: () =>
        scope.mkResource({
          apiVersion: 'v1',
          kind: 'Service',
          name: 'backend',
          spec: { selector: (self.backend as Workload).out.selector, ports: [{ port: 9000 }] },
        }),
      queueCrd: () => scope.mkCRDRef({ group: 'queues.acme.io', version: 'v1', kind: 'Queue' }),
      queue: () =>
        scope.mkCR(self.queueCrd as never, {
          name: 'work',
          ...(behavior ? { factBehavior: { endpoint: behavior } } : {}),
          spec: { backend: (self.backendService as Resource<ServiceOut>).out.fqdn },
        }),
      worker: () =>
        scope.mkDeployment({
          name: 'worker',
          spec: {
            selector: { matchLabels: { app: 'worker' } },
            template: { spec: { containers: [container({ args: [(self.queue as AnyResource).out.fqdn] })] } },
          },
        }),
      root: () => self.backendService,
    }),
  });

const egressOf = (r: SynthResult, name: string) =>
  (find(r, 'CiliumNetworkPolicy', name).spec as { egress: unknown[] }).egress;

describe('factBehavior: endpoint facts through custom resources (design/sdk.md §A2.5)', () => {
  const run = (b: 'conduct' | 'terminate' | undefined) =>
    synth({
      networkPolicy: { enable: true },
      instances: { jobs: { package: throughCr(b), namespace: 'jobs' } },
    });

  it('conduct forwards: the worker may reach the pods behind the resource, which admit it', () => {
    const r = run('conduct');
    assert.deepEqual(egressOf(r, 'worker'), [
      { toEndpoints: [pods('jobs', { app: 'backend' })], toPorts: [{ ports: [tcp(9000)] }] },
    ]);
    assert.deepEqual((find(r, 'CiliumNetworkPolicy', 'backend').spec as { ingress: unknown }).ingress, [
      { fromEndpoints: [pods('jobs', { app: 'worker' })], toPorts: [{ ports: [tcp(9000)] }] },
    ]);
  });

  it('terminate stops propagation (and a custom resource terminates by default)', () => {
    for (const b of ['terminate', undefined] as const) {
      const r = run(b);
      assert.deepEqual(egressOf(r, 'worker'), [{}], String(b));
      assert.deepEqual((find(r, 'CiliumNetworkPolicy', 'backend').spec as { ingress: unknown }).ingress, [
        {},
      ]);
    }
  });

  it('the cluster without a dns provider: a warning, and no DNS egress', () => {
    const r = run('terminate');
    assert.ok(
      r.diagnostics.some((d) => d.code === SdkCode.networkPolicy && /no "dns" role provider/.test(d.message)),
    );
  });
});

describe('service refs, intents and refusals', () => {
  const pkg = (intents: unknown[]) =>
    definePackage({
      name: 'app',
      build: ({ scope, self }) => ({
        pg: () =>
          scope.mkServiceRef({
            name: 'pg-rw',
            selector: { 'cnpg.io/cluster': 'pg', 'cnpg.io/instanceRole': 'primary' },
            ports: [{ name: 'postgres', port: 5432 }],
          }),
        app: () =>
          scope.mkDeployment({
            name: 'app',
            meta: { network: { intents: intents as never } },
            spec: {
              selector: { matchLabels: { app: 'app' } },
              template: {
                spec: {
                  containers: [
                    container({ env: kix.mkEnvVars({ PGHOST: (self.pg as Resource<ServiceOut>).out.fqdn }) }),
                  ],
                },
              },
            },
          }),
        root: () => self.app,
      }),
    });
  const run = (intents: unknown[], kind?: 'NetworkPolicy') =>
    synth({
      networkPolicy: { enable: true, ...(kind ? { kind } : {}) },
      instances: { app: { package: pkg(intents), namespace: 'app' } },
    });

  it('mkServiceRef registers endpoint facts: egress to the operator’s pods on the ref’s ports', () => {
    const r = run([]);
    assert.deepEqual(egressOf(r, 'app'), [
      {
        toEndpoints: [pods('app', { 'cnpg.io/cluster': 'pg', 'cnpg.io/instanceRole': 'primary' })],
        toPorts: [{ ports: [tcp(5432)] }],
      },
    ]);
    assert.equal(
      r.manifests.filter((m: Manifest) => m.kind === 'CiliumNetworkPolicy').length,
      1,
      'no policy for pods kgraph does not own',
    );
  });

  it('egress intents to an fqdn, a CIDR and the API server', () => {
    const r = run([
      { direction: 'egress', to: { fqdn: 'api.stripe.com' }, ports: [{ port: 443 }] },
      { direction: 'egress', to: { cidr: '10.20.0.0/16' } },
      { direction: 'egress', to: { entity: 'kube-apiserver' }, ports: [{ port: 6443 }] },
    ]);
    const egress = egressOf(r, 'app');
    assert.deepEqual(egress.slice(0, 3), [
      { toCIDR: ['10.20.0.0/16'] },
      { toEntities: ['kube-apiserver'], toPorts: [{ ports: [tcp(6443)] }] },
      { toFQDNs: [{ matchName: 'api.stripe.com' }], toPorts: [{ ports: [tcp(443)] }] },
    ]);
  });

  it('an fqdn intent cannot be a plain NetworkPolicy: KG7071 names the workload', () => {
    throwsCode(
      () => run([{ direction: 'egress', to: { fqdn: 'api.stripe.com' } }], 'NetworkPolicy'),
      SdkCode.networkPolicyKind,
      'deployment.apps/app -n app: the fqdn peer "api.stripe.com" cannot be expressed',
    );
  });

  it('a malformed intent is KG7070 with its field path', () => {
    const e = throwsCode(
      () => run([{ direction: 'sideways' }]),
      SdkCode.networkIntent,
      'meta.network.intents[0]',
    );
    assert.equal(e.diagnostics[0]?.path, 'meta.network.intents[0]');
    throwsCode(() => run([{ direction: 'egress', to: { cidr: 'nope' } }]), SdkCode.networkIntent, 'cidr');
  });
});

describe('DNS wiring (design/sdk.md §A4.2, item 5)', () => {
  it('a ClusterFirst workload depends on the DNS service and may reach it on UDP and TCP 53; dnsPolicy Default does not', () => {
    const r = synth(cluster());
    const kubeDns = hashOf(r, 'Service', 'kube-dns');
    for (const w of ['web', 'api']) assert.ok(dependsOn(find(r, 'Deployment', w)).includes(kubeDns), w);
    assert.ok(dependsOn(find(r, 'StatefulSet', 'db')).includes(kubeDns));
    assert.equal(find(r, 'Deployment', 'web').metadata.annotations?.['kix.run/expects'], 'role:dns');
    assert.ok(
      !dependsOn(find(r, 'Deployment', 'coredns')).includes(kubeDns),
      'coredns uses dnsPolicy Default',
    );
    assert.deepEqual(egressOf(r, 'db'), [dnsEgress]);
  });
});
