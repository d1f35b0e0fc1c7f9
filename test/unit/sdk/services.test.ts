import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  createSession,
  type DeploymentArgsSpec,
  k,
  kix,
  type Scope,
  SdkCode,
} from '../../../src/sdk/index.ts';
import { dependsOn, find, get, hashOf, podSpec, setup, throwsCode } from './helpers.ts';

const web = (
  scope: Scope,
  containers: unknown[] = [{ name: 'a', image: 'x', ports: [kix.port('http', 8080)] }],
) =>
  scope.mkDeployment({
    name: 'web',
    // Untyped containers on purpose: some tests pass what only a JavaScript caller could.
    spec: {
      selector: { matchLabels: { app: 'web' } },
      template: { spec: { containers } },
    } as DeploymentArgsSpec,
  });

describe('service.fromWorkload', () => {
  it('one named port: a Service with the workload selector, depending on the workload; out.port is set', () => {
    const { session, scope } = setup();
    const w = web(scope);
    const svc = scope.mkResource(
      kix.service.fromWorkload({ name: 'web', ports: [{ name: 'http', port: 80, targetPort: 'http' }] }, w),
    );
    assert.equal(svc.out.port?.value, '80');
    const r = session.finalize();
    const m = find(r, 'Service', 'web');
    assert.deepEqual(get(m, 'spec.selector'), { app: 'web' });
    assert.deepEqual(dependsOn(m), [hashOf(r, 'Deployment', 'web')]);
  });

  it('ports default to the single container port', () => {
    const { session, scope } = setup();
    scope.mkResource(kix.service.fromWorkload({ name: 'web' }, web(scope)));
    assert.deepEqual(get(find(session.finalize(), 'Service', 'web'), 'spec.ports'), [
      { name: 'http', port: 8080, targetPort: 'http' },
    ]);
  });

  it('no determinable port, several ports with one unnamed, or a targetPort naming no container port: error', () => {
    const { scope } = setup();
    const none = web(scope, [{ name: 'a', image: 'x' }]);
    throwsCode(() => kix.service.fromWorkload({ name: 's' }, none), SdkCode.fromWorkload, 'no port');
    throwsCode(
      () => kix.service.fromWorkload({ name: 's', ports: [{ name: 'a', port: 1 }, { port: 2 }] }, none),
      SdkCode.fromWorkload,
      'needs a name',
    );
    throwsCode(
      () =>
        kix.service.fromWorkload({ name: 's', ports: [{ name: 'h', port: 80, targetPort: 'grpc' }] }, none),
      SdkCode.fromWorkload,
      'grpc',
    );
  });
});

describe('kix helpers', () => {
  it('port rules: bad names and numbers fail; port("http", 8080) passes', () => {
    for (const [name, n] of [
      ['http-metrics-endpoint', 9090],
      ['HTTP', 80],
      ['web--x', 80],
      ['http', 0],
      ['-http', 80],
      ['1234', 80],
      ['http', 65536],
    ] as const) {
      throwsCode(() => kix.port(name, n), SdkCode.portRule);
    }
    assert.deepEqual(kix.port('http', 8080), { name: 'http', containerPort: 8080, protocol: 'TCP' });
  });

  it('mkEnvVars: sorted; a keyRef becomes valueFrom.secretKeyRef plus an edge; a KStr becomes value plus an edge', () => {
    const { session, scope } = setup();
    const secret = scope.mkSecret({ name: 'db', stringData: { password: 'x' } });
    const svc = scope.mkResource({
      apiVersion: 'v1',
      kind: 'Service',
      name: 'db',
      spec: { ports: [{ port: 5432 }] },
    });
    const env = kix.mkEnvVars({ B: '2', A: '1', PASS: secret.out.keyRef('password'), HOST: svc.out.fqdn });
    assert.deepEqual(
      env.map((e) => e.name),
      ['A', 'B', 'HOST', 'PASS'],
    );
    scope.mkDeployment({
      name: 'w',
      spec: {
        selector: { matchLabels: { a: 'w' } },
        template: { spec: { containers: [{ name: 'a', image: 'x', env }] } },
      },
    });
    const r = session.finalize();
    const m = find(r, 'Deployment', 'w');
    assert.deepEqual(get(m, 'spec.template.spec.containers.0.env'), [
      { name: 'A', value: '1' },
      { name: 'B', value: '2' },
      { name: 'HOST', value: 'db.shop.svc.cluster.local' },
      { name: 'PASS', valueFrom: { secretKeyRef: { key: 'password', name: 'db' } } },
    ]);
    assert.deepEqual(dependsOn(m), [hashOf(r, 'Secret', 'db'), hashOf(r, 'Service', 'db')].sort());
  });

  it('image.ref renders registry/repository:tag@digest; strict rejects latest and a missing tag', () => {
    assert.equal(
      kix.image.ref({ registry: 'ghcr.io', repository: 'acme/api', tag: '1.0' }),
      'ghcr.io/acme/api:1.0',
    );
    assert.equal(kix.image.ref({ repository: 'api', digest: 'sha256:ab' }), 'api@sha256:ab');
    throwsCode(() => kix.image.ref({ repository: 'api', tag: 'latest' }, { strict: true }), SdkCode.imageRef);
    throwsCode(() => kix.image.ref({ repository: 'api' }, { strict: true }), SdkCode.imageRef);
  });

  it('availability.pick chooses by level', () => {
    assert.equal(kix.availability.pick('node', { none: 1, pod: 2, node: 3, zone: 4 }), 3);
  });

  it('contentHash is stable and changes with its input', () => {
    assert.equal(kix.contentHash({ a: 1, b: 2 }), kix.contentHash({ b: 2, a: 1 }));
    assert.notEqual(kix.contentHash('v1'), kix.contentHash('v2'));
  });
});

describe('secrets', () => {
  it('mkSecret builds a v1 Secret with keys, type and consumption helpers', () => {
    const { session, scope } = setup();
    const s = scope.mkSecret({
      name: 'creds',
      type: 'kubernetes.io/basic-auth',
      stringData: { username: 'u', password: 'p' },
    });
    assert.deepEqual(s.out.keys, ['password', 'username']);
    assert.equal(s.out.type, 'kubernetes.io/basic-auth');
    throwsCode(() => s.out.keyRef('token'), SdkCode.secretKey);
    const vol = s.out.volume('creds');
    assert.equal(vol.secret.secretName.value, 'creds');
    assert.equal(s.out.envFrom().secretRef.name.value, 'creds');
    assert.deepEqual(
      s.out.mkEnv({ USER: 'username' }).map((e) => e.name),
      ['USER'],
    );
    const m = find(session.finalize(), 'Secret', 'creds');
    assert.equal(m.type, 'kubernetes.io/basic-auth');
  });

  it('mkSecretRef is an import marker with its required keys', () => {
    const { session, scope } = setup();
    scope.mkSecretRef({ name: 'external', keys: ['token', 'ca'] });
    const m = find(session.finalize(), 'Secret', 'external');
    assert.equal(m.metadata.annotations?.['kix.run/import'], 'true');
    assert.equal(m.metadata.annotations?.['kix.run/required-keys'], 'ca,token');
  });
});

describe('mkServiceRef', () => {
  it('empty selector or empty ports is rejected', () => {
    const { scope } = setup();
    throwsCode(
      () => scope.mkServiceRef({ name: 'x', selector: {}, ports: [{ port: 1 }] }),
      SdkCode.serviceRef,
    );
    throwsCode(() => scope.mkServiceRef({ name: 'x', selector: { a: 'b' }, ports: [] }), SdkCode.serviceRef);
  });

  it('exposes name, fqdn, port, ports, selector, labels; emits the service-ref marker; requires order the operator CR first', () => {
    const { session, scope } = setup();
    const pg = scope.mkResource({ apiVersion: 'postgresql.cnpg.io/v1', kind: 'Cluster', name: 'pg' });
    const rw = scope.mkServiceRef({
      name: k`${pg.out.name}-rw`,
      selector: { 'cnpg.io/cluster': pg.out.name, 'cnpg.io/instanceRole': 'primary' },
      ports: [{ name: 'postgres', port: 5432 }],
      labels: { team: 'db' },
      requires: [pg],
    });
    assert.equal(rw.out.name.value, 'pg-rw');
    assert.equal(rw.out.fqdn.value, 'pg-rw.shop.svc.cluster.local');
    assert.equal(rw.out.port?.value, '5432');
    assert.deepEqual(rw.out.ports, [{ name: 'postgres', port: 5432 }]);
    assert.equal(rw.out.selector['cnpg.io/instanceRole']?.value, 'primary');
    assert.deepEqual(rw.out.labels, { team: 'db' });
    scope.mkResource({ apiVersion: 'v1', kind: 'ConfigMap', name: 'app', data: { db: rw.out.fqdn } });
    const r = session.finalize();
    assert.deepEqual(
      r.imports.map((i) => i.name),
      ['service-ref-shop-pg-rw'],
    );
    const ref = find(r, 'Service', 'pg-rw');
    assert.equal(ref.metadata.annotations?.['kix.run/import'], 'true');
    assert.ok(dependsOn(ref).includes(hashOf(r, 'Cluster', 'pg')));
    const order = r.graph.nodes.map((n) => n.key);
    assert.ok(
      order.indexOf('postgresql.cnpg.io/namespaces/shop/Cluster/pg') <
        order.indexOf('/namespaces/shop/Service/pg-rw'),
    );
    assert.ok(
      order.indexOf('/namespaces/shop/Service/pg-rw') < order.indexOf('/namespaces/shop/ConfigMap/app'),
    );
  });
});

describe('mkWebhookService', () => {
  it('with only validating entries: service + validatingConfiguration, no mutatingConfiguration; clientConfig wired', () => {
    const { session, scope } = setup();
    const w = web(scope, [{ name: 'a', image: 'x', ports: [kix.port('https', 10250)] }]);
    const res = scope.mkWebhookService({
      name: 'cert-manager-webhook',
      selector: w.out.selector,
      port: 443,
      targetPort: 'https',
      validating: [
        {
          name: 'webhook.cert-manager.io',
          path: '/validate',
          rules: [
            {
              apiGroups: ['cert-manager.io'],
              apiVersions: ['v1'],
              operations: ['CREATE'],
              resources: ['*/*'],
            },
          ],
        },
      ],
    });
    assert.ok(res.service);
    assert.ok(res.validatingConfiguration);
    assert.equal('mutatingConfiguration' in res, false);
    const r = session.finalize();
    const vwc = find(r, 'ValidatingWebhookConfiguration', 'cert-manager-webhook');
    assert.equal(vwc.metadata.namespace, undefined);
    assert.deepEqual(get(vwc, 'webhooks.0.clientConfig.service'), {
      name: 'cert-manager-webhook',
      namespace: 'shop',
      path: '/validate',
      port: 443,
    });
    assert.deepEqual(dependsOn(vwc), [hashOf(r, 'Service', 'cert-manager-webhook')]);
  });
});

describe('CRDs and readiness', () => {
  const crdSpec = {
    group: 'example.dev',
    names: { kind: 'Widget', plural: 'widgets' },
    scope: 'Namespaced' as const,
    versions: [{ name: 'v1', served: true, storage: true }],
  };

  it('readiness predicates: a CRD with a Ready condition stamps kix.run/readiness on every CR built from it', () => {
    const { session, scope } = setup();
    const crd = scope.mkCRD({ spec: crdSpec, readiness: { condition: { type: 'Ready', status: 'True' } } });
    crd.out.cr({ name: 'a', spec: { size: 1 } });
    scope.mkCR(crd, { name: 'b' });
    const other = scope.forNamespace('other');
    crd.out.mkCR(other, { name: 'c' });
    const r = session.finalize();
    for (const name of ['a', 'b', 'c']) {
      const m = find(r, 'Widget', name);
      assert.equal(m.apiVersion, 'example.dev/v1');
      assert.deepEqual(JSON.parse(m.metadata.annotations?.['kix.run/readiness'] ?? '{}'), {
        condition: { type: 'Ready', status: 'True' },
      });
    }
    assert.equal(find(r, 'Widget', 'c').metadata.namespace, 'other');
  });

  it('a custom resource built with crd.out.mkCR depends on its CRD even when its spec reads nothing from the CRD', () => {
    const { session, scope } = setup();
    const crd = scope.mkCRD({ spec: crdSpec });
    crd.out.mkCR(scope, { name: 'w', spec: { size: 2 } });
    const r = session.finalize();
    assert.deepEqual(dependsOn(find(r, 'Widget', 'w')), [
      hashOf(r, 'CustomResourceDefinition', 'widgets.example.dev'),
    ]);
  });

  it('readiness forms equals / notEquals are stamped; invalid predicates are rejected', () => {
    const { session, scope } = setup();
    const ref = scope.mkCRDRef({
      group: 'cnpg.io',
      version: 'v1',
      kind: 'Pooler',
      readiness: { path: '/status/phase', equals: 'Running' },
    });
    const ref2 = scope.mkCRDRef({
      group: 'x.io',
      version: 'v1',
      kind: 'Rev',
      readiness: { path: '/status/currentRevision', notEquals: '' },
    });
    scope.mkCR(ref, { name: 'p' });
    scope.mkCR(ref2, { name: 'q' });
    throwsCode(
      () => scope.mkCRDRef({ group: 'a', version: 'v1', kind: 'A', readiness: { path: 'status' } as never }),
      SdkCode.invalidReadiness,
    );
    throwsCode(
      () =>
        scope.mkCRDRef({
          group: 'a',
          version: 'v1',
          kind: 'B',
          readiness: { condition: { type: 'Ready' } } as never,
        }),
      SdkCode.invalidReadiness,
    );
    const r = session.finalize();
    assert.equal(
      find(r, 'Pooler', 'p').metadata.annotations?.['kix.run/readiness'],
      '{"path":"/status/phase","equals":"Running"}',
    );
    assert.equal(
      find(r, 'Rev', 'q').metadata.annotations?.['kix.run/readiness'],
      '{"path":"/status/currentRevision","notEquals":""}',
    );
    assert.equal(
      find(r, 'CustomResourceDefinition', 'poolers.cnpg.io').metadata.annotations?.['kix.run/import'],
      'true',
    );
  });

  it('mkCR refuses something that is not a CRD', () => {
    const { scope } = setup();
    const cm = scope.mkResource({ apiVersion: 'v1', kind: 'ConfigMap', name: 'c' });
    throwsCode(() => scope.mkCR(cm as never, { name: 'x' }), SdkCode.notAResource);
  });
});

describe('cluster capability checks', () => {
  it('a LoadBalancer Service without a loadBalancer provider or providedLoadBalancerClass is rejected', () => {
    const { scope } = setup();
    throwsCode(
      () =>
        scope.mkResource({
          apiVersion: 'v1',
          kind: 'Service',
          name: 'lb',
          spec: { type: 'LoadBalancer', ports: [{ port: 80 }] },
        }),
      SdkCode.loadBalancerProvider,
    );
  });

  it('a LoadBalancer Service is accepted with a provider role, and with providedLoadBalancerClass', () => {
    const withRole = createSession({ providers: { loadBalancer: 'metallb' } });
    const s1 = withRole.scope({ instanceName: 'a', namespaceName: 'a' });
    s1.mkResource({
      apiVersion: 'v1',
      kind: 'Service',
      name: 'lb',
      spec: { type: 'LoadBalancer', ports: [{ port: 80 }] },
    });
    assert.equal(
      find(withRole.finalize(), 'Service', 'lb').metadata.annotations?.['kix.run/expects'],
      'role:loadBalancer',
    );

    const { session, scope } = setup();
    const provider = scope.mkResource({ apiVersion: 'apps/v1', kind: 'Thing', name: 'lb-controller' });
    const view = {
      _type: 'kix.packageView' as const,
      _meta: { namespaceName: 'shop' },
      out: {},
      root: provider,
    };
    scope.mkResource({
      apiVersion: 'v1',
      kind: 'Service',
      name: 'lb',
      spec: {
        type: 'LoadBalancer',
        loadBalancerClass: kix.providedLoadBalancerClass({ class: 'acme.io/lb', by: view }),
        ports: [{ port: 80 }],
      },
    });
    const r = session.finalize();
    const lb = find(r, 'Service', 'lb');
    assert.equal(get(lb, 'spec.loadBalancerClass'), 'acme.io/lb');
    assert.deepEqual(dependsOn(lb), [hashOf(r, 'Thing', 'lb-controller')]);
  });

  it('a PersistentVolumeClaim and a StatefulSet with volumeClaimTemplates are marked kix.run/holds-data', () => {
    const { session, scope } = setup();
    scope.mkResource({
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      name: 'data',
      spec: { resources: { requests: { storage: '1Gi' } } },
    });
    scope.mkStatefulSet({
      name: 'db',
      spec: {
        selector: { matchLabels: { a: 'db' } },
        template: { spec: podSpec() },
        volumeClaimTemplates: [{ metadata: { name: 'd' } }],
      },
    });
    const r = session.finalize();
    assert.equal(
      find(r, 'PersistentVolumeClaim', 'data').metadata.annotations?.['kix.run/holds-data'],
      'true',
    );
    assert.equal(find(r, 'StatefulSet', 'db').metadata.annotations?.['kix.run/holds-data'], 'true');
  });
});
