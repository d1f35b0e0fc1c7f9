import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createSession, k, parseCedePath, SdkCode } from '../../../src/sdk/index.ts';
import { dependsOn, find, hashOf, setup, throwsCode } from './helpers.ts';

describe('mkResource and mkClusterResource', () => {
  for (const [kind, builder] of [
    ['Deployment', 'mkDeployment'],
    ['StatefulSet', 'mkStatefulSet'],
    ['DaemonSet', 'mkDaemonSet'],
    ['Job', 'mkJob'],
    ['CronJob', 'mkCronJob'],
  ] as const) {
    it(`mkResource refuses ${kind}, naming scope.${builder}`, () => {
      const { scope } = setup();
      throwsCode(
        () => scope.mkResource({ apiVersion: 'apps/v1', kind, name: 'x' }),
        SdkCode.workloadKindInMkResource,
        `scope.${builder}`,
      );
      throwsCode(
        () => scope.mkClusterResource({ apiVersion: 'apps/v1', kind, name: 'x' }),
        SdkCode.workloadKindInMkResource,
        `scope.${builder}`,
      );
    });
  }

  it('mkResource accepts a ConfigMap', () => {
    const { scope } = setup();
    assert.equal(scope.mkResource({ apiVersion: 'v1', kind: 'ConfigMap', name: 'ok' }).kind, 'ConfigMap');
  });

  it('mkResource refuses v1/Secret naming mkSecret, and a CRD naming mkCRD', () => {
    const { scope } = setup();
    throwsCode(
      () => scope.mkResource({ apiVersion: 'v1', kind: 'Secret', name: 's' }),
      SdkCode.secretInMkResource,
      'mkSecret',
    );
    throwsCode(
      () =>
        scope.mkClusterResource({
          apiVersion: 'apiextensions.k8s.io/v1',
          kind: 'CustomResourceDefinition',
          name: 'a.b',
        }),
      SdkCode.crdInMkResource,
      'mkCRD',
    );
  });

  it('namespaces: mkResource always sets metadata.namespace, even for a cluster-scoped kind; mkClusterResource never does', () => {
    const { session, scope } = setup();
    scope.mkResource({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', name: 'cr' });
    scope.mkClusterResource({ apiVersion: 'v1', kind: 'ConfigMap', name: 'global' });
    const r = session.finalize();
    assert.equal(find(r, 'ClusterRole', 'cr').metadata.namespace, 'shop');
    assert.equal(find(r, 'ConfigMap', 'global').metadata.namespace, undefined);
  });

  it('names: a non-RFC-1123 name is rejected; a colon-separated name only for Role and ClusterRole', () => {
    const { scope } = setup();
    throwsCode(
      () => scope.mkResource({ apiVersion: 'v1', kind: 'ConfigMap', name: 'Bad_Name' }),
      SdkCode.invalidName,
    );
    throwsCode(
      () => scope.mkResource({ apiVersion: 'v1', kind: 'ConfigMap', name: 'a:b' }),
      SdkCode.invalidName,
    );
    throwsCode(
      () =>
        scope.mkResource({
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'RoleBinding',
          name: 'system:x',
        }),
      SdkCode.invalidName,
    );
    scope.mkResource({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', name: 'system:leader' });
    scope.mkClusterResource({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      name: 'system:controller:x',
    });
  });

  it('spec, data and stringData are omitted when empty', () => {
    const { session, scope } = setup();
    scope.mkResource({ apiVersion: 'v1', kind: 'ConfigMap', name: 'e', spec: {}, data: {} });
    const m = find(session.finalize(), 'ConfigMap', 'e');
    assert.equal('spec' in m, false);
    assert.equal('data' in m, false);
  });
});

describe('extra rules', () => {
  it('extra cannot set apiVersion or kind', () => {
    const { scope } = setup();
    throwsCode(
      () => scope.mkResource({ apiVersion: 'v1', kind: 'ConfigMap', name: 'a', extra: { apiVersion: 'v2' } }),
      SdkCode.extraIdentity,
    );
    throwsCode(
      () => scope.mkResource({ apiVersion: 'v1', kind: 'ConfigMap', name: 'a', extra: { kind: 'X' } }),
      SdkCode.extraIdentity,
    );
  });

  it('extra.metadata cannot set name or namespace', () => {
    const { scope } = setup();
    throwsCode(
      () =>
        scope.mkResource({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          name: 'a',
          extra: { metadata: { name: 'b' } },
        }),
      SdkCode.extraMetadataIdentity,
    );
    throwsCode(
      () =>
        scope.mkResource({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          name: 'a',
          extra: { metadata: { namespace: 'b' } },
        }),
      SdkCode.extraMetadataIdentity,
    );
  });

  it('extra.spec with a non-empty spec argument fails; with an empty one it is used', () => {
    const { session, scope } = setup();
    throwsCode(
      () =>
        scope.mkResource({
          apiVersion: 'x/v1',
          kind: 'Thing',
          name: 'a',
          spec: { a: 1 },
          extra: { spec: { b: 2 } },
        }),
      SdkCode.extraShadowsArgument,
    );
    throwsCode(
      () =>
        scope.mkResource({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          name: 'a',
          data: { a: '1' },
          extra: { data: { b: '2' } },
        }),
      SdkCode.extraShadowsArgument,
    );
    scope.mkResource({ apiVersion: 'x/v1', kind: 'Thing', name: 'b', extra: { spec: { b: 2 } } });
    assert.deepEqual(find(session.finalize(), 'Thing', 'b').spec, { b: 2 });
  });

  it('labels and annotations in extra.metadata merge with the labels and annotations arguments; other top-level fields land on the manifest', () => {
    const { session, scope } = setup();
    scope.mkResource({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      name: 'r',
      labels: { a: '1' },
      annotations: { x: '1' },
      extra: {
        metadata: { labels: { b: '2' }, annotations: { y: '2' } },
        rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }],
      },
    });
    const m = find(session.finalize(), 'Role', 'r');
    assert.equal(m.metadata.labels?.a, '1');
    assert.equal(m.metadata.labels?.b, '2');
    assert.deepEqual(m.metadata.annotations, { x: '1', y: '2' });
    assert.ok(Array.isArray(m.rules));
  });
});

describe('labels', () => {
  it('label merging: clusterLabels // instanceLabels // labels, style kix', () => {
    const session = createSession({ labels: { 'kgraph.dev/cluster': 'c1', team: 'cluster' } });
    const scope = session.scope({ instanceName: 'web', namespaceName: 'web' });
    scope.mkResource({ apiVersion: 'v1', kind: 'ConfigMap', name: 'c', labels: { team: 'mine' } });
    const m = find(session.finalize(), 'ConfigMap', 'c');
    assert.deepEqual(m.metadata.labels, {
      'app.kubernetes.io/instance': 'web',
      'app.kubernetes.io/managed-by': 'kix',
      'kgraph.dev/cluster': 'c1',
      team: 'mine',
    });
  });

  it('label style helm uses release and app', () => {
    const session = createSession({});
    const scope = session.scope({ instanceName: 'web', namespaceName: 'web', labelStyle: 'helm' });
    scope.mkResource({ apiVersion: 'v1', kind: 'ConfigMap', name: 'c' });
    assert.deepEqual(find(session.finalize(), 'ConfigMap', 'c').metadata.labels, {
      release: 'web',
      'app.kubernetes.io/managed-by': 'kix',
    });
    assert.deepEqual(scope.selectorLabels, { app: 'web', release: 'web' });
  });

  it('workloads add the selector labels and app.kubernetes.io/name', () => {
    const { session, scope } = setup();
    scope.mkDeployment({
      name: 'w',
      spec: {
        selector: { matchLabels: { tier: 'web' } },
        template: { spec: { containers: [{ name: 'a', image: 'x:1' }] } },
      },
    });
    const m = find(session.finalize(), 'Deployment', 'w');
    assert.equal(m.metadata.labels?.tier, 'web');
    assert.equal(m.metadata.labels?.['app.kubernetes.io/name'], 'shop');
  });

  it('scope.labels.common equals selector ∪ instance labels; clusterScoped is name + managed-by; selector is the alias', () => {
    const { scope } = setup();
    assert.deepEqual(scope.labels.common, {
      'app.kubernetes.io/name': 'shop',
      'app.kubernetes.io/instance': 'shop',
      'app.kubernetes.io/managed-by': 'kix',
    });
    assert.deepEqual(scope.labels.clusterScoped, {
      'app.kubernetes.io/name': 'shop',
      'app.kubernetes.io/managed-by': 'kix',
    });
    assert.equal(scope.labels.selector, scope.selectorLabels);
  });

  it('instance selectorLabels override scope.selectorLabels', () => {
    const session = createSession({});
    const scope = session.scope({
      instanceName: 'web',
      namespaceName: 'web',
      selectorLabels: { app: 'legacy' },
    });
    assert.deepEqual(scope.selectorLabels, { app: 'legacy' });
  });
});

describe('out fields', () => {
  it('out.fqdn is <name>.<ns>.svc.<clusterDomain> for namespaced and <name> for cluster-scoped resources', () => {
    const session = createSession({ clusterDomain: 'example.internal' });
    const scope = session.scope({ instanceName: 'i', namespaceName: 'ns1' });
    assert.equal(
      scope.mkResource({ apiVersion: 'v1', kind: 'ConfigMap', name: 'a' }).out.fqdn.value,
      'a.ns1.svc.example.internal',
    );
    assert.equal(
      scope.mkClusterResource({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', name: 'cr' })
        .out.fqdn.value,
      'cr',
    );
  });

  it('out.selector comes from spec.selector.matchLabels, else metadata.labels', () => {
    const { scope } = setup();
    const d = scope.mkDeployment({
      name: 'w',
      spec: {
        selector: { matchLabels: { app: 'w' } },
        template: { spec: { containers: [{ name: 'a', image: 'x:1' }] } },
      },
    });
    assert.deepEqual(Object.fromEntries(Object.entries(d.out.selector).map(([key, v]) => [key, v.value])), {
      app: 'w',
    });
    const cm = scope.mkResource({ apiVersion: 'v1', kind: 'ConfigMap', name: 'c', labels: { x: 'y' } });
    assert.equal(cm.out.selector.x?.value, 'y');
    assert.equal(cm.out.selector['app.kubernetes.io/instance']?.value, 'shop');
  });

  it('out.url() defaults to http and the first port', () => {
    const { scope } = setup();
    const svc = scope.mkResource({
      apiVersion: 'v1',
      kind: 'Service',
      name: 'api',
      spec: { ports: [{ port: 8080 }, { port: 9090 }] },
    });
    assert.equal(svc.out.url().value, 'http://api.shop.svc.cluster.local:8080');
    assert.equal(svc.out.url({ scheme: 'grpc', port: 9090 }).value, 'grpc://api.shop.svc.cluster.local:9090');
    assert.deepEqual(svc.out.ports, [{ port: 8080 }, { port: 9090 }]);
    assert.equal(svc.out.port, undefined, 'out.port is only set by fromWorkload / mkServiceRef');
  });

  it('outputs: {fqdn: null} removes out.fqdn; strings in outputs carry the resource context', () => {
    const { session, scope } = setup();
    const svc = scope.mkResource({
      apiVersion: 'v1',
      kind: 'Service',
      name: 'h',
      spec: { clusterIP: 'None' },
      outputs: { fqdn: null, grpcEndpoint: 'h.shop.svc.cluster.local:9090' },
    });
    assert.equal('fqdn' in svc.out, false);
    scope.mkResource({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      name: 'c',
      data: { e: svc.out.grpcEndpoint as string },
    });
    const r = session.finalize();
    assert.deepEqual(dependsOn(find(r, 'ConfigMap', 'c')), [hashOf(r, 'Service', 'h')]);
  });

  it('identityHash rollout: changing a ConfigMap data changes its identityHash and the workload pod-template annotation', () => {
    const render = (value: string) => {
      const { session, scope } = setup();
      const cm = scope.mkResource({ apiVersion: 'v1', kind: 'ConfigMap', name: 'cfg', data: { v: value } });
      scope.mkDeployment({
        name: 'w',
        spec: {
          selector: { matchLabels: { app: 'w' } },
          template: {
            metadata: { annotations: { 'checksum/config': cm.out.identityHash } },
            spec: { containers: [{ name: 'a', image: 'x:1' }] },
          },
        },
      });
      const r = session.finalize();
      const ann = (
        find(r, 'Deployment', 'w').spec as { template: { metadata: { annotations: Record<string, string> } } }
      ).template.metadata.annotations['checksum/config'];
      return { hash: hashOf(r, 'ConfigMap', 'cfg'), ann, deps: dependsOn(find(r, 'Deployment', 'w')) };
    };
    const a = render('1');
    const b = render('2');
    assert.equal(a.ann, a.hash);
    assert.equal(a.hash.length, 32);
    assert.notEqual(a.hash, b.hash);
    assert.notEqual(a.ann, b.ann);
    assert.deepEqual(a.deps, [a.hash]);
  });
});

describe('requires and extraDeps', () => {
  it('redundant requires: requires [svc] plus svc.out.fqdn use warns once', () => {
    const { session, scope } = setup();
    const svc = scope.mkResource({
      apiVersion: 'v1',
      kind: 'Service',
      name: 'api',
      spec: { ports: [{ port: 80 }] },
    });
    scope.mkResource({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      name: 'c',
      data: { h: svc.out.fqdn },
      requires: [svc],
    });
    const r = session.finalize();
    const warnings = r.diagnostics.filter((d) => d.code === SdkCode.redundantRequires);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!.message, /redundant requires/);
    assert.deepEqual(dependsOn(find(r, 'ConfigMap', 'c')), [hashOf(r, 'Service', 'api')]);
  });

  it('requires [job] with no data flow records requires:<hash> and no warning', () => {
    const { session, scope } = setup();
    const job = scope.mkJob({
      name: 'migrate',
      spec: {
        template: {
          metadata: { labels: { job: 'm' } },
          spec: { restartPolicy: 'Never', containers: [{ name: 'm', image: 'x:1' }] },
        },
      },
    });
    scope.mkResource({ apiVersion: 'v1', kind: 'ConfigMap', name: 'c', requires: [job] });
    const r = session.finalize();
    assert.deepEqual(dependsOn(find(r, 'ConfigMap', 'c')), [`requires:${hashOf(r, 'Job', 'migrate')}`]);
    assert.equal(r.diagnostics.filter((d) => d.code === SdkCode.redundantRequires).length, 0);
  });

  it('extraDeps [x] records extra:<hash>', () => {
    const { session, scope } = setup();
    const x = scope.mkResource({ apiVersion: 'v1', kind: 'ConfigMap', name: 'x' });
    scope.mkResource({ apiVersion: 'v1', kind: 'ConfigMap', name: 'c', extraDeps: [x] });
    const r = session.finalize();
    assert.deepEqual(dependsOn(find(r, 'ConfigMap', 'c')), [`extra:${hashOf(r, 'ConfigMap', 'x')}`]);
  });

  it('requires must hold resources', () => {
    const { scope } = setup();
    throwsCode(
      () => scope.mkResource({ apiVersion: 'v1', kind: 'ConfigMap', name: 'c', requires: [{} as never] }),
      SdkCode.notAResource,
    );
  });
});

describe('ownership.cede', () => {
  it('cede-fields: ownership.cede records the paths in kix.run/cede-fields', () => {
    const { session, scope } = setup();
    scope.mkResource({
      apiVersion: 'autoscaling/v2',
      kind: 'Thing',
      name: 't',
      ownership: { cede: ['spec.replicas', 'webhooks[*].clientConfig.caBundle'] },
    });
    const m = find(session.finalize(), 'Thing', 't');
    assert.deepEqual(JSON.parse(m.metadata.annotations?.['kix.run/cede-fields'] ?? '[]'), [
      'spec.replicas',
      'webhooks[*].clientConfig.caBundle',
    ]);
  });

  it('cede path selectors [*], [0], [name="x"] parse; .* is a literal field', () => {
    assert.deepEqual(parseCedePath('webhooks[*].clientConfig.caBundle'), [
      { field: 'webhooks', selectors: [{ all: true }] },
      { field: 'clientConfig', selectors: [] },
      { field: 'caBundle', selectors: [] },
    ]);
    assert.deepEqual(parseCedePath('containers[0].image')[0], {
      field: 'containers',
      selectors: [{ index: 0 }],
    });
    assert.deepEqual(parseCedePath('.webhooks[name="x"].rules'), [
      { field: 'webhooks', selectors: [{ key: 'name', value: 'x' }] },
      { field: 'rules', selectors: [] },
    ]);
    assert.deepEqual(parseCedePath('metadata.*'), [
      { field: 'metadata', selectors: [] },
      { field: '*', selectors: [] },
    ]);
  });

  it('an invalid cede path is rejected', () => {
    const { scope } = setup();
    for (const bad of ['', 'a..b', 'a[', 'a[x]', 'a.']) {
      throwsCode(
        () =>
          scope.mkResource({
            apiVersion: 'v1',
            kind: 'ConfigMap',
            name: `c${Math.random().toString(36).slice(2, 6)}`,
            ownership: { cede: [bad] },
          }),
        SdkCode.invalidCedePath,
      );
    }
  });
});

describe('namespaces and child scopes', () => {
  it('forNamespace edge: a resource built through scope.forNamespace("kube-system") depends on that Namespace', () => {
    const { session, scope } = setup();
    const ks = scope.forNamespace('kube-system');
    ks.mkResource({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      name: k`${scope.instanceName}-leader-election`,
    });
    const r = session.finalize();
    const rb = find(r, 'RoleBinding', 'shop-leader-election');
    assert.equal(rb.metadata.namespace, 'kube-system');
    assert.deepEqual(dependsOn(rb), [hashOf(r, 'Namespace', 'kube-system')]);
    assert.equal(find(r, 'Namespace', 'kube-system').metadata.annotations?.['kix.run/import'], 'true');
  });

  it('forService: a child scope from a dependency without namespace metadata throws', () => {
    const { scope } = setup();
    throwsCode(() => scope.forService({} as never), SdkCode.forService);
    const other = scope.forService({
      _type: 'kix.packageView',
      _meta: { namespaceName: 'cert-manager' },
      out: {},
      root: undefined,
    });
    assert.equal(other.namespaceName, 'cert-manager');
  });

  it('scope.namespace is the auto-generated Namespace; namespaces lists the cluster namespaces', () => {
    const session = createSession({ namespaces: ['shop', 'other'] });
    const scope = session.scope({ instanceName: 'shop', namespaceName: 'shop' });
    assert.equal(scope.namespace.kind, 'Namespace');
    assert.deepEqual(Object.keys(scope.namespaces).sort(), ['other', 'shop']);
    const r = session.finalize();
    assert.equal(find(r, 'Namespace', 'shop').metadata.annotations, undefined);
  });

  it('requireMetricsApi: absent throws, unknown warns; an HPA runs it automatically', () => {
    const absent = setup({ capabilities: { metricsApi: 'absent' } });
    throwsCode(
      () =>
        absent.scope.mkResource({ apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', name: 'h' }),
      SdkCode.metricsApi,
    );
    const unknown = setup({ capabilities: { metricsApi: 'unknown' } });
    unknown.scope.mkResource({ apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', name: 'h' });
    const r = unknown.session.finalize();
    assert.equal(
      r.diagnostics.filter((d) => d.code === SdkCode.metricsApi && d.severity === 'warning').length,
      1,
    );
    assert.equal(
      find(r, 'HorizontalPodAutoscaler', 'h').metadata.annotations?.['kix.run/expects'],
      'api:metrics.k8s.io',
    );
    const ok = setup({ capabilities: { metricsApi: 'provided' } });
    assert.equal(ok.scope.requireMetricsApi('x'), null);
  });

  it('augmentEdge attaches passenger context to a string', () => {
    const { session, scope } = setup();
    const a = scope.mkResource({ apiVersion: 'v1', kind: 'ConfigMap', name: 'a' });
    const s = scope.augmentEdge([a], 'plain');
    const all = scope.augmentAllEdges([a], { x: 'y', n: 1 });
    assert.equal(all.n, 1);
    scope.mkResource({ apiVersion: 'v1', kind: 'ConfigMap', name: 'b', data: { s, x: all.x } });
    const r = session.finalize();
    assert.deepEqual(dependsOn(find(r, 'ConfigMap', 'b')), [hashOf(r, 'ConfigMap', 'a')]);
  });
});

describe('resource objects', () => {
  it('interpolating a resource object yields its identity path with context, not its name', () => {
    const { session, scope } = setup();
    const cm = scope.mkResource({ apiVersion: 'v1', kind: 'ConfigMap', name: 'cfg' });
    assert.equal(cm.outPath, 'k8s-ConfigMap-shop-cfg');
    scope.mkResource({ apiVersion: 'v1', kind: 'ConfigMap', name: 'user', data: { p: `${cm}` } });
    const r = session.finalize();
    const m = find(r, 'ConfigMap', 'user');
    assert.deepEqual(m.data, { p: 'k8s-ConfigMap-shop-cfg' });
    assert.deepEqual(dependsOn(m), [hashOf(r, 'ConfigMap', 'cfg')]);
  });

  it('manifest and rawManifest are the stamped manifest after synth; identity names the object', () => {
    const { session, scope } = setup();
    const cm = scope.mkResource({ apiVersion: 'v1', kind: 'ConfigMap', name: 'cfg', data: { a: '1' } });
    session.finalize();
    assert.equal(cm.manifest.metadata.name, 'cfg');
    assert.equal(cm.rawManifest, cm.manifest);
    assert.deepEqual(cm.identity, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace: 'shop',
      name: 'cfg',
      key: '/namespaces/shop/ConfigMap/cfg',
    });
    assert.equal(cm._meta.namespaceName, 'shop');
  });

  it('a resource built twice in one build is an error', () => {
    const { scope } = setup();
    scope.mkResource({ apiVersion: 'v1', kind: 'ConfigMap', name: 'dup' });
    throwsCode(
      () => scope.mkResource({ apiVersion: 'v1', kind: 'ConfigMap', name: 'dup' }),
      SdkCode.invalidArgument,
      'twice',
    );
  });
});

describe('helm.importChart', () => {
  it('dispatches between cluster-scoped and namespaced builders using the built-in cluster-scoped kind list', () => {
    const { session, scope } = setup();
    const imported = scope.helm.importChart({
      manifests: [
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRole',
          metadata: { name: 'chart-reader' },
          rules: [],
        },
        {
          apiVersion: 'storage.k8s.io/v1',
          kind: 'StorageClass',
          metadata: { name: 'fast' },
          provisioner: 'x',
        },
        {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'chart-cm', namespace: 'elsewhere' },
          data: { a: '1' },
        },
        { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'chart-app' }, spec: { replicas: 1 } },
      ],
    });
    assert.equal(imported.length, 4);
    const r = session.finalize();
    assert.equal(find(r, 'ClusterRole', 'chart-reader').metadata.namespace, undefined);
    assert.equal(find(r, 'StorageClass', 'fast').metadata.namespace, undefined);
    assert.equal(find(r, 'StorageClass', 'fast').provisioner, 'x');
    assert.equal(find(r, 'ConfigMap', 'chart-cm').metadata.namespace, 'shop');
    assert.equal(find(r, 'Deployment', 'chart-app').metadata.namespace, 'shop');
  });
});
