import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type AnyResource,
  k,
  kix,
  lazy,
  SdkCode,
  synth,
  unsafeDiscardContext,
  withStrictContext,
} from '../../../src/sdk/index.ts';
import { definePackage } from '../../../src/sdk/package.ts';
import { dependsOn, find, hashOf, setup, throwsCode } from './helpers.ts';

describe('dependency context', () => {
  it('context creates the edge: an env value from svc.out.fqdn puts the Service hash into kix.run/depends-on', () => {
    const { session, scope } = setup();
    const svc = scope.mkResource({
      apiVersion: 'v1',
      kind: 'Service',
      name: 'db',
      spec: { ports: [{ port: 5432 }] },
    });
    scope.mkResource({ apiVersion: 'v1', kind: 'ConfigMap', name: 'app', data: { host: svc.out.fqdn } });
    const r = session.finalize();
    assert.deepEqual(dependsOn(find(r, 'ConfigMap', 'app')), [hashOf(r, 'Service', 'db')]);
    assert.equal(
      find(r, 'ConfigMap', 'app').data && (find(r, 'ConfigMap', 'app').data as Record<string, string>).host,
      'db.shop.svc.cluster.local',
    );
  });

  it('without any dependency no kix.run/depends-on annotation is written', () => {
    const { session, scope } = setup();
    scope.mkResource({ apiVersion: 'v1', kind: 'ConfigMap', name: 'alone', data: { a: '1' } });
    const m = find(session.finalize(), 'ConfigMap', 'alone');
    assert.equal(m.metadata.annotations, undefined);
  });

  it('context union: a k`` string over a.out.fqdn and b.out.name records edges to both, and nesting keeps inner edges', () => {
    const { session, scope } = setup();
    const a = scope.mkResource({
      apiVersion: 'v1',
      kind: 'Service',
      name: 'a',
      spec: { ports: [{ port: 1 }] },
    });
    const b = scope.mkResource({ apiVersion: 'v1', kind: 'ConfigMap', name: 'b' });
    const c = scope.mkResource({ apiVersion: 'v1', kind: 'ConfigMap', name: 'c' });
    const inner = k`${a.out.fqdn}:${b.out.name}`;
    const outer = k`x-${inner}-${c.out.name}`;
    assert.equal(outer.value, 'x-a.shop.svc.cluster.local:b-c');
    scope.mkResource({ apiVersion: 'v1', kind: 'ConfigMap', name: 'user', data: { v: outer } });
    const r = session.finalize();
    assert.deepEqual(
      dependsOn(find(r, 'ConfigMap', 'user')),
      [hashOf(r, 'Service', 'a'), hashOf(r, 'ConfigMap', 'b'), hashOf(r, 'ConfigMap', 'c')].sort(),
    );
  });

  it('marker round-trip: a plain template literal gives the same value and edge as k``', () => {
    const { session, scope } = setup();
    const svc = scope.mkResource({
      apiVersion: 'v1',
      kind: 'Service',
      name: 'api',
      spec: { ports: [{ port: 80 }] },
    });
    const plain = `http://${svc.out.fqdn}:80`;
    const tagged = k`http://${svc.out.fqdn}:80`;
    scope.mkResource({ apiVersion: 'v1', kind: 'ConfigMap', name: 'p', data: { url: plain } });
    scope.mkResource({ apiVersion: 'v1', kind: 'ConfigMap', name: 't', data: { url: tagged } });
    const r = session.finalize();
    const p = find(r, 'ConfigMap', 'p');
    const t = find(r, 'ConfigMap', 't');
    assert.deepEqual(p.data, t.data);
    assert.deepEqual(dependsOn(p), dependsOn(t));
    assert.deepEqual(dependsOn(p), [hashOf(r, 'Service', 'api')]);
    assert.ok(!/[\uEA00-\uEA1F]/.test(JSON.stringify(r.manifests)), 'no marker leaks into output');
  });

  it('markers survive concatenation and JSON.stringify', () => {
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
      name: 'cfg',
      data: { 'c.json': JSON.stringify({ host: svc.out.fqdn }), joined: 'h=' + svc.out.name },
    });
    const r = session.finalize();
    const m = find(r, 'ConfigMap', 'cfg');
    assert.deepEqual(m.data, { 'c.json': '{"host":"api.shop.svc.cluster.local"}', joined: 'h=api' });
    assert.deepEqual(dependsOn(m), [hashOf(r, 'Service', 'api')]);
  });

  it('a lossy use (.toUpperCase()) is a synth error naming the object and the field path', () => {
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
      name: 'bad',
      data: { host: `${svc.out.name}`.toUpperCase() },
    });
    const e = throwsCode(() => session.finalize(), SdkCode.markerCorrupted, 'configmap/bad -n shop');
    assert.ok(e.message.includes('data.host'), e.message);
  });

  it('a leftover marker (.slice(1)) is a synth error naming the object and the field path', () => {
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
      name: 'cut',
      data: { host: `${svc.out.name}`.slice(1) },
    });
    const e = throwsCode(() => session.finalize(), SdkCode.markerCorrupted, 'leftover');
    assert.ok(e.message.includes('configmap/cut -n shop') && e.message.includes('data.host'), e.message);
  });

  it('strict mode: coercion throws immediately', () => {
    const { scope } = setup();
    const svc = scope.mkResource({
      apiVersion: 'v1',
      kind: 'Service',
      name: 'api',
      spec: { ports: [{ port: 80 }] },
    });
    throwsCode(() => withStrictContext(true, () => `${svc.out.name}`), SdkCode.strictCoercion);
    assert.equal(
      withStrictContext(true, () => k`${svc.out.name}-x`.value),
      'api-x',
    );
  });

  it('strict synth option makes plain template literals throw', () => {
    const pkg = definePackage({
      name: 'p',
      build: ({ scope, self }) => ({
        a: () => scope.mkResource({ apiVersion: 'v1', kind: 'ConfigMap', name: 'a' }),
        b: () =>
          scope.mkResource({
            apiVersion: 'v1',
            kind: 'ConfigMap',
            name: 'b',
            data: { x: `${(self as { a: { out: { name: unknown } } }).a.out.name}` },
          }),
      }),
    });
    throwsCode(
      () => synth({ instances: { p: { package: pkg, namespace: 'p' } } }, { tokens: 'strict' }),
      SdkCode.strictCoercion,
    );
  });

  it('self reference dropped: a resource using its own out.name has no self-edge and no cycle', () => {
    const { session, scope } = setup();
    const cm: AnyResource = scope.mkResource({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      name: 'me',
      data: { self: lazy(() => cm.out.name) },
    });
    const r = session.finalize();
    const m = find(r, 'ConfigMap', 'me');
    assert.equal(m.metadata.annotations, undefined);
    assert.deepEqual(m.data, { self: 'me' });
  });

  it('unsafeDiscardContext: same value, empty context, no edge', () => {
    const { session, scope } = setup();
    const svc = scope.mkResource({
      apiVersion: 'v1',
      kind: 'Service',
      name: 'api',
      spec: { ports: [{ port: 80 }] },
    });
    const plain = unsafeDiscardContext(svc.out.fqdn);
    assert.equal(plain, svc.out.fqdn.value);
    scope.mkResource({ apiVersion: 'v1', kind: 'ConfigMap', name: 'c', data: { host: plain } });
    assert.equal(find(session.finalize(), 'ConfigMap', 'c').metadata.annotations, undefined);
  });

  it('an unknown marker id is reported as a build error', () => {
    const { session, scope } = setup();
    scope.mkResource({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      name: 'forged',
      data: { x: '\uEA00\uEA19\uEA19\uEA19\uEA19\uEA19\uEA19\uEA01x\uEA02' },
    });
    throwsCode(() => session.finalize(), SdkCode.markerUnknown, 'data.x');
  });

  it('identityHash is only known at synth', () => {
    const { scope } = setup();
    const cm = scope.mkResource({ apiVersion: 'v1', kind: 'ConfigMap', name: 'c' });
    throwsCode(() => cm.out.identityHash.value, SdkCode.deferredValue);
    throwsCode(() => cm.manifest, SdkCode.deferredValue);
  });

  it('kix.untrackedRef satisfies checkNamespacedRefs without an edge', () => {
    const { session, scope } = setup();
    scope.mkDeployment({
      name: 'w',
      spec: {
        selector: { matchLabels: scope.selectorLabels },
        template: {
          spec: {
            containers: [{ name: 'a', image: 'x:1' }],
            volumes: [{ name: 'v', configMap: { name: kix.untrackedRef('ConfigMap', 'external') } }],
          },
        },
      },
    });
    const m = find(session.finalize(), 'Deployment', 'w');
    assert.equal(m.metadata.annotations?.['kix.run/depends-on'], undefined);
  });
});

describe('dependency context: more cases', () => {
  it('a context string used as an object key keeps its edge and leaves no marker', () => {
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
      name: 'keys',
      data: { [`${svc.out.name}.url`]: 'x' },
    });
    const r = session.finalize();
    const m = find(r, 'ConfigMap', 'keys');
    assert.deepEqual(m.data, { 'api.url': 'x' });
    assert.deepEqual(dependsOn(m), [hashOf(r, 'Service', 'api')]);
  });

  it('kix.run/* annotations other than kix.run/rerun are written by kgraph, not by authors', () => {
    const { scope } = setup();
    throwsCode(
      () =>
        scope.mkResource({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          name: 'c',
          annotations: { 'kix.run/depends-on': 'x' },
        }),
      SdkCode.invalidArgument,
      'written by kgraph',
    );
  });

  it('a lazy value that forces itself is a cycle error', () => {
    const r = lazy((): unknown => r.force());
    throwsCode(() => r.force(), SdkCode.cycle);
  });
});
