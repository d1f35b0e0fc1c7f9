import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type AnyResource,
  definePackage,
  k,
  kix,
  lazy,
  type PackageView,
  type Resource,
  resolveCluster,
  SdkCode,
  type ServiceOut,
  synth,
  toKroGraph,
  type Workload,
} from '../../../src/sdk/index.ts';
import { dependsOn, find, get, hashOf, multiNodeCluster, podSpec, throwsCode } from './helpers.ts';

interface WebParts extends Record<string, unknown> {
  deployment: Workload;
  service: Resource<ServiceOut>;
  root: Resource<ServiceOut>;
}

/** Deployment reads the Service's fqdn; the Service selects the Deployment (raw or with context). */
const cyclic = (raw: boolean) =>
  definePackage<WebParts>({
    name: 'web',
    build: ({ scope, self }) => ({
      deployment: () =>
        scope.mkDeployment({
          name: 'web',
          spec: {
            selector: { matchLabels: scope.selectorLabels },
            template: {
              spec: {
                containers: [{ name: 'a', image: 'x', env: kix.mkEnvVars({ PEER: self.service.out.fqdn }) }],
              },
            },
          },
        }),
      service: () =>
        scope.mkResource({
          apiVersion: 'v1',
          kind: 'Service',
          name: 'web',
          spec: {
            clusterIP: 'None',
            selector: raw
              ? lazy(() => self.deployment.rawSelector)
              : lazy(() => self.deployment.out.selector),
          },
        }),
      root: () => self.service,
    }),
  });

/** A kro expression `${p}`. */
const ex = (p: string): string => ['$', '{', p, '}'].join('');

describe('synth: cycles', () => {
  it('cycle detection: A uses B.out and B uses A.out: the full path in deterministic order with escape-hatch hints, no output', () => {
    const e = throwsCode(
      () => synth({ instances: { shop: { package: cyclic(false), namespace: 'shop' } } }),
      SdkCode.cycle,
    );
    assert.equal(
      e.message,
      'cycle: /namespaces/shop/Service/web -> apps/namespaces/shop/Deployment/web -> /namespaces/shop/Service/web (hint: use deployment.rawSelector, lazy() or unsafeDiscardContext)',
    );
  });

  it('a re-entrant self reference is a cycle naming the parts', () => {
    const pkg = definePackage<{ a: AnyResource; b: AnyResource }>({
      name: 'p',
      build: ({ scope, self }) => ({
        a: () =>
          scope.mkResource({ apiVersion: 'v1', kind: 'ConfigMap', name: 'a', data: { b: self.b.out.name } }),
        b: () =>
          scope.mkResource({ apiVersion: 'v1', kind: 'ConfigMap', name: 'b', data: { a: self.a.out.name } }),
      }),
    });
    throwsCode(
      () => synth({ instances: { p: { package: pkg, namespace: 'p' } } }),
      SdkCode.cycle,
      'self.a -> self.b -> self.a',
    );
  });

  it('rawSelector breaks the cycle: identical selector labels, no Service -> Deployment edge, synth succeeds', () => {
    const r = synth({ instances: { shop: { package: cyclic(true), namespace: 'shop' } } });
    const svc = find(r, 'Service', 'web');
    const dep = find(r, 'Deployment', 'web');
    assert.deepEqual(get(svc, 'spec.selector'), get(dep, 'spec.selector.matchLabels'));
    assert.deepEqual(dependsOn(svc), []);
    assert.deepEqual(dependsOn(dep), [hashOf(r, 'Service', 'web')]);
    assert.ok(r.manifests.indexOf(svc) < r.manifests.indexOf(dep));
  });
});

describe('synth: packages and the cluster definition', () => {
  const provider = definePackage<{
    service: Resource<ServiceOut>;
    crds: { Widget: AnyResource };
    root: unknown;
  }>({
    name: 'provider',
    build: ({ scope, self }) => ({
      service: () =>
        scope.mkResource({
          apiVersion: 'v1',
          kind: 'Service',
          name: 'api',
          spec: { ports: [{ port: 8080 }] },
        }),
      crds: {
        Widget: () =>
          scope.mkCRD({
            spec: {
              group: 'w.dev',
              names: { kind: 'Widget', plural: 'widgets' },
              scope: 'Namespaced',
              versions: [{ name: 'v1', served: true, storage: true }],
            },
          }),
      },
      root: () => ({
        resource: self.service,
        out: {
          internalUrl: `http://${self.service.out.fqdn}:8080`,
          plain: 'no-context',
          fqdn: 'override.example',
        },
      }),
    }),
  });

  it('package view: packageA.fqdn equals packageA.out.fqdn; root.out overrides; plain root.out strings gain no context; CRDs under crds.<Kind>', () => {
    let seen: PackageView | undefined;
    const consumer = definePackage<{ cm: AnyResource }, { api: PackageView }>({
      name: 'consumer',
      build: ({ scope, deps }) => {
        seen = deps.api;
        return {
          cm: () =>
            scope.mkResource({
              apiVersion: 'v1',
              kind: 'ConfigMap',
              name: 'c',
              data: {
                url: deps.api.internalUrl as string,
                plain: deps.api.plain as string,
                name: deps.api.out.name,
              },
            }),
        };
      },
    });
    const r = synth({
      instances: {
        api: { package: provider, namespace: 'api' },
        web: { package: consumer, namespace: 'web', deps: { api: 'api' } },
      },
    });
    assert.ok(seen);
    assert.equal(seen.fqdn, seen.out.fqdn);
    assert.equal(seen.out.fqdn, 'override.example');
    assert.equal(seen._meta.namespaceName, 'api');
    assert.equal((seen.crds.Widget as AnyResource).kind, 'CustomResourceDefinition');
    const cm = find(r, 'ConfigMap', 'c');
    assert.deepEqual(cm.data, {
      url: 'http://api.api.svc.cluster.local:8080',
      plain: 'no-context',
      name: 'api',
    });
    assert.deepEqual(dependsOn(cm), [hashOf(r, 'Service', 'api')]);
  });

  it('instances: each gets its Namespace, label style and config; labelStyle helm switches selector labels', () => {
    let cfgSeen: unknown;
    const pkg = definePackage<{ w: Workload }>({
      name: 'w',
      build: ({ scope, config }) => {
        cfgSeen = config;
        return {
          w: () =>
            scope.mkDeployment({
              name: 'w',
              spec: { selector: { matchLabels: scope.selectorLabels }, template: { spec: podSpec() } },
            }),
        };
      },
    });
    const r = synth({
      ...multiNodeCluster,
      instances: { legacy: { package: pkg, namespace: 'legacy', labelStyle: 'helm', config: { x: 1 } } },
    });
    assert.deepEqual(cfgSeen, { x: 1 });
    assert.ok(find(r, 'Namespace', 'legacy'));
    const w = find(r, 'Deployment', 'w');
    assert.deepEqual(get(w, 'spec.selector.matchLabels'), { app: 'legacy', release: 'legacy' });
    assert.equal(w.metadata.labels?.release, 'legacy');
  });

  it('cluster definition: defaults, and invalid instance names or namespaces are rejected', () => {
    const c = resolveCluster({});
    assert.equal(c.clusterDomain, 'cluster.local');
    assert.equal(c.availability, 'node');
    assert.equal(c.capabilities.multiNode, null);
    assert.equal(c.topology.hostKey, 'kubernetes.io/hostname');
    const pkg = definePackage({ name: 'x', build: () => ({}) });
    throwsCode(
      () => resolveCluster({ instances: { Bad: { package: pkg, namespace: 'x' } } }),
      SdkCode.clusterDefinition,
    );
    throwsCode(
      () => resolveCluster({ instances: { ok: { package: pkg, namespace: 'Not_Valid' } } }),
      SdkCode.clusterDefinition,
    );
    throwsCode(
      () => synth({ instances: { a: { package: pkg, namespace: 'a', deps: { b: 'missing' } } } }),
      SdkCode.clusterDefinition,
    );
  });

  it('DNS edge: on a cluster with a dns role provider, a ClusterFirst workload depends on the DNS service', () => {
    const dns = definePackage<{ svc: AnyResource; root: unknown }>({
      name: 'coredns',
      provides: ['dns'],
      build: ({ scope, self }) => ({
        svc: () =>
          scope.mkResource({
            apiVersion: 'v1',
            kind: 'Service',
            name: 'kube-dns',
            spec: { ports: [{ port: 53, protocol: 'UDP' }] },
          }),
        root: () => self.svc,
      }),
    });
    const app = definePackage<{ w: Workload }>({
      name: 'app',
      build: ({ scope }) => ({
        w: () =>
          scope.mkDeployment({
            name: 'w',
            spec: { selector: { matchLabels: { a: 'w' } }, template: { spec: podSpec() } },
          }),
      }),
    });
    const r = synth({
      instances: { app: { package: app, namespace: 'app' }, dns: { package: dns, namespace: 'kube-system' } },
    });
    const w = find(r, 'Deployment', 'w');
    assert.deepEqual(dependsOn(w), [hashOf(r, 'Service', 'kube-dns')]);
    assert.equal(w.metadata.annotations?.['kix.run/expects'], 'role:dns');
  });

  it('mkOptional includes a resource only when the condition holds', () => {
    const pkg = definePackage<{ a: AnyResource | null; b: AnyResource | null }>({
      name: 'o',
      build: ({ scope }) => ({
        a: () =>
          scope.mkOptional(true, () => scope.mkResource({ apiVersion: 'v1', kind: 'ConfigMap', name: 'a' })),
        b: () =>
          scope.mkOptional(false, () => scope.mkResource({ apiVersion: 'v1', kind: 'ConfigMap', name: 'b' })),
      }),
    });
    const r = synth({ instances: { o: { package: pkg, namespace: 'o' } } });
    assert.deepEqual(
      r.manifests.filter((m) => m.kind === 'ConfigMap').map((m) => m.metadata.name),
      ['a'],
    );
  });

  it('output is deterministic: the same definition synthesizes to identical manifests', () => {
    const def = { instances: { shop: { package: cyclic(true), namespace: 'shop' } } };
    assert.deepEqual(JSON.stringify(synth(def).manifests), JSON.stringify(synth(def).manifests));
  });

  it('a resource object used as a manifest value is a build error naming the field', () => {
    const pkg = definePackage<{ a: AnyResource; b: AnyResource }>({
      name: 'p',
      build: ({ scope, self }) => ({
        a: () => scope.mkResource({ apiVersion: 'v1', kind: 'ConfigMap', name: 'a' }),
        b: () =>
          scope.mkResource({
            apiVersion: 'x/v1',
            kind: 'Thing',
            name: 'b',
            spec: { target: self.a as never },
          }),
      }),
    });
    throwsCode(
      () => synth({ instances: { p: { package: pkg, namespace: 'p' } } }),
      SdkCode.resourceInManifest,
      'spec.target',
    );
  });
});

describe('synth --as graph', () => {
  it('emits a kro Graph whose .out references become id.metadata.name expressions', () => {
    const r = synth({ instances: { shop: { package: cyclic(true), namespace: 'shop' } } });
    const g = toKroGraph(r.build, 'shop', 'shop');
    assert.equal(g.apiVersion, 'kro.run/v1alpha1');
    assert.equal(g.kind, 'Graph');
    const ids = g.spec.nodes.map((n) => n.id);
    assert.deepEqual(ids, ['namespaceShop', 'service', 'deployment']);
    const dep = g.spec.nodes.find((n) => n.id === 'deployment')!;
    assert.equal(
      get(dep, 'template.spec.template.spec.containers.0.env.0.value'),
      `${ex('service.metadata.name')}.${ex('service.metadata.namespace')}.svc.cluster.local`,
    );
    assert.equal(get(dep, 'template.metadata.annotations'), undefined);
  });

  it('edges without an expression are kept in kix.run/after; imports become ref nodes', () => {
    const pkg = definePackage<{ job: Workload; cm: AnyResource; ext: AnyResource }>({
      name: 'p',
      build: ({ scope, self }) => ({
        job: () =>
          scope.mkJob({
            name: 'm',
            spec: {
              template: { metadata: { labels: { j: 'm' } }, spec: podSpec({ restartPolicy: 'Never' }) },
            },
          }),
        cm: () => scope.mkResource({ apiVersion: 'v1', kind: 'ConfigMap', name: 'c', requires: [self.job] }),
        ext: () => scope.mkSecretRef({ name: 'external' }),
      }),
    });
    const g = toKroGraph(synth({ instances: { p: { package: pkg, namespace: 'p' } } }).build, 'p');
    const cm = g.spec.nodes.find((n) => n.id === 'cm')!;
    assert.equal(get(cm, 'template.metadata.annotations.kix\u002erun/after'), undefined);
    assert.equal(
      (get(cm, 'template.metadata.annotations') as Record<string, string>)['kix.run/after'],
      ex('job.metadata.name'),
    );
    const ext = g.spec.nodes.find((n) => n.id === 'ext')!;
    assert.deepEqual(ext.ref, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'external', namespace: 'p' },
    });
  });

  it('k`` strings render as one template with several expressions', () => {
    const pkg = definePackage<{ svc: Resource<ServiceOut>; cm: AnyResource }>({
      name: 'p',
      build: ({ scope, self }) => ({
        svc: () =>
          scope.mkResource({
            apiVersion: 'v1',
            kind: 'Service',
            name: 'api',
            spec: { ports: [{ port: 80 }] },
          }),
        cm: () =>
          scope.mkResource({
            apiVersion: 'v1',
            kind: 'ConfigMap',
            name: 'c',
            data: { url: k`${self.svc.out.url()}/x` },
          }),
      }),
    });
    const g = toKroGraph(synth({ instances: { p: { package: pkg, namespace: 'p' } } }).build, 'p');
    assert.equal(
      get(
        g.spec.nodes.find((n) => n.id === 'cm'),
        'template.data.url',
      ),
      `http://${ex('svc.metadata.name')}.${ex('svc.metadata.namespace')}.svc.cluster.local:80/x`,
    );
  });
});

describe('synth: root.out exports', () => {
  it('root.out may export functions (workload transformers, scoped builders) that consumers call', () => {
    const lib = definePackage<{ svc: AnyResource; root: unknown }>({
      name: 'lib',
      build: ({ scope, self }) => ({
        svc: () =>
          scope.mkResource({
            apiVersion: 'v1',
            kind: 'Service',
            name: 'lib',
            spec: { ports: [{ port: 1 }] },
          }),
        root: () => ({
          resource: self.svc,
          out: {
            withReloadOn: (spec: Record<string, unknown>) =>
              kix.recursiveUpdate(spec, { metadata: { annotations: { reload: 'true' } } }),
          },
        }),
      }),
    });
    const app = definePackage<
      { cm: AnyResource },
      { lib: PackageView<{ withReloadOn: (s: Record<string, unknown>) => Record<string, unknown> }> }
    >({
      name: 'app',
      build: ({ scope, deps }) => ({
        cm: () =>
          scope.mkResource({
            apiVersion: 'x/v1',
            kind: 'Thing',
            name: 't',
            spec: deps.lib.out.withReloadOn({ a: 1 }),
          }),
      }),
    });
    const r = synth({
      instances: {
        lib: { package: lib, namespace: 'lib' },
        app: { package: app, namespace: 'app', deps: { lib: 'lib' } },
      },
    });
    assert.deepEqual(find(r, 'Thing', 't').spec, { a: 1, metadata: { annotations: { reload: 'true' } } });
  });
});
