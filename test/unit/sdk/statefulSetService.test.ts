import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type AnyResource,
  definePackage,
  lazy,
  type Resource,
  SdkCode,
  type ServiceOut,
  synth,
  type Workload,
} from '../../../src/sdk/index.ts';
import { dependsOn, find, get, hashOf, podSpec, setup, throwsCode } from './helpers.ts';

interface DbParts extends Record<string, unknown> {
  statefulSet: Workload;
  headless: Resource<ServiceOut>;
  root: Workload;
}

/** The seed's shape: the StatefulSet names its headless Service by the shorthand, the Service selects the
 * StatefulSet's pods through `out.selector`. `serviceFirst` changes which part is forced first. */
function dbPackage(o: {
  serviceFirst: boolean;
  clusterIP?: string;
  readNameInSts?: boolean;
  lazySelector?: boolean;
}) {
  return definePackage<DbParts>({
    name: 'db',
    build: ({ scope, self }) => {
      const statefulSet = () =>
        scope.mkStatefulSet({
          name: 'db',
          spec: {
            headlessService: self.headless,
            selector: { matchLabels: scope.selectorLabels },
            template: {
              spec: podSpec(
                o.readNameInSts
                  ? { containers: [{ name: 'app', image: 'x:1', args: [self.headless.out.name] }] }
                  : {},
              ),
            },
          },
        });
      const headless = () =>
        scope.mkResource({
          apiVersion: 'v1',
          kind: 'Service',
          name: 'db-headless',
          spec: {
            clusterIP: o.clusterIP ?? 'None',
            selector: o.lazySelector
              ? lazy(() => self.statefulSet.out.selector)
              : self.statefulSet.out.selector,
            ports: [{ name: 'pg', port: 5432 }],
          },
        });
      return o.serviceFirst
        ? { headless, statefulSet, root: () => self.statefulSet }
        : { statefulSet, headless, root: () => self.statefulSet };
    },
  });
}

const run = (pkg: ReturnType<typeof dbPackage>) =>
  synth({ instances: { db: { package: pkg, namespace: 'data' } } });

describe('StatefulSet headlessService shorthand (design/sdk.md §A4.2, §A10.3)', () => {
  for (const [serviceFirst, lazySelector] of [
    [false, false],
    [true, false],
    [false, true],
    [true, true],
  ] as const) {
    it(`wires serviceName without a cycle while the Service keeps out.selector (${serviceFirst ? 'Service' : 'StatefulSet'} part first${lazySelector ? ', selector through lazy()' : ''})`, () => {
      const r = run(dbPackage({ serviceFirst, lazySelector }));
      const sts = find(r, 'StatefulSet', 'db');
      const svc = find(r, 'Service', 'db-headless');
      assert.equal(get(sts, 'spec.serviceName'), 'db-headless');
      assert.equal(get(sts, 'spec.headlessService'), undefined);
      assert.deepEqual(dependsOn(sts), [], 'the StatefulSet does not depend on its Service');
      assert.deepEqual(
        dependsOn(svc),
        [hashOf(r, 'StatefulSet', 'db')],
        'the Service depends on the StatefulSet',
      );
      assert.deepEqual(get(svc, 'spec.selector'), get(sts, 'spec.selector.matchLabels'));
      assert.equal(r.manifests.filter((m) => m.kind === 'Service').length, 1, 'the Service is built once');
    });
  }

  it('reading the Service’s out inside the StatefulSet is still the cycle error with the part path', () => {
    throwsCode(
      () => run(dbPackage({ serviceFirst: false, readNameInSts: true })),
      SdkCode.cycle,
      'self.statefulSet -> self.headless -> self.statefulSet',
    );
  });

  it('a shorthand Service that turns out not headless is refused at synth', () => {
    throwsCode(
      () => run(dbPackage({ serviceFirst: false, clusterIP: '10.0.0.9' })),
      SdkCode.headlessService,
      'not headless',
    );
  });
});

describe('StatefulSet spec.serviceName set by hand (design/sdk.md §A4.2: cluster validation)', () => {
  const sts = (scope: ReturnType<typeof setup>['scope'], serviceName: string) =>
    scope.mkStatefulSet({
      name: 'db',
      spec: { serviceName, selector: { matchLabels: { app: 'db' } }, template: { spec: podSpec() } },
    });
  const service = (scope: ReturnType<typeof setup>['scope'], name: string, clusterIP?: string): AnyResource =>
    scope.mkResource({
      apiVersion: 'v1',
      kind: 'Service',
      name,
      spec: { ...(clusterIP ? { clusterIP } : {}), ports: [{ port: 5432 }] },
    });

  it('accepts a headless Service in the same namespace', () => {
    const { session, scope } = setup();
    service(scope, 'db-hl', 'None');
    sts(scope, 'db-hl');
    assert.equal(get(find(session.finalize(), 'StatefulSet', 'db'), 'spec.serviceName'), 'db-hl');
  });

  it('refuses a Service that is not headless', () => {
    const { session, scope } = setup();
    service(scope, 'db');
    sts(scope, 'db');
    throwsCode(() => session.finalize(), SdkCode.headlessService, 'not headless');
  });

  it('refuses a name with no Service in the namespace, even when another namespace has one', () => {
    const { session, scope } = setup();
    service(scope.forNamespace('other'), 'db-hl', 'None');
    sts(scope, 'db-hl');
    throwsCode(() => session.finalize(), SdkCode.headlessService, 'names no Service in namespace shop');
  });

  it('accepts a Service an operator creates (mkServiceRef): its clusterIP is not known at build time', () => {
    const { session, scope } = setup();
    scope.mkServiceRef({ name: 'db-hl', selector: { app: 'db' }, ports: [{ port: 5432 }] });
    sts(scope, 'db-hl');
    assert.equal(get(find(session.finalize(), 'StatefulSet', 'db'), 'spec.serviceName'), 'db-hl');
  });
});

describe('requires on a service ref (design/sdk.md §A5.2)', () => {
  it('the seed’s mkServiceRef example (name and selector from the CR, requires the CR) gives no KG7010', () => {
    const { session, scope } = setup();
    const crd = scope.mkCRDRef({ group: 'postgresql.cnpg.io', version: 'v1', kind: 'Cluster' });
    const pg = scope.mkCR(crd, { name: 'pg', spec: { instances: 3 } });
    scope.mkServiceRef({
      name: `${pg.out.name}-rw`,
      selector: { 'cnpg.io/cluster': pg.out.name, 'cnpg.io/instanceRole': 'primary' },
      ports: [{ name: 'postgres', port: 5432 }],
      requires: [pg],
    });
    const r = session.finalize();
    assert.deepEqual(
      r.diagnostics.filter((d) => d.code === SdkCode.redundantRequires),
      [],
    );
    const ref = find(r, 'Service', 'pg-rw');
    assert.ok(
      dependsOn(ref).some((e) => e.endsWith(hashOf(r, 'Cluster', 'pg'))),
      'the ref waits for the CR',
    );
  });

  it('a managed resource that requires what it already references still warns', () => {
    const { session, scope } = setup();
    const cm = scope.mkResource({ apiVersion: 'v1', kind: 'ConfigMap', name: 'c' });
    scope.mkResource({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      name: 'd',
      data: { other: cm.out.name },
      requires: [cm],
    });
    const r = session.finalize();
    assert.equal(r.diagnostics.filter((d) => d.code === SdkCode.redundantRequires).length, 1);
  });
});

describe('an object built twice', () => {
  it('two refs of one namespaced Secret in one instance: says so, not "cluster-scoped" or the instance twice', () => {
    const { scope } = setup();
    scope.mkSecretRef({ name: 'creds' });
    const e = throwsCode(() => scope.mkSecretRef({ name: 'creds' }), SdkCode.invalidArgument);
    assert.match(e.message, /^secret\/creds -n shop is referenced \(as a ref\) twice by instance shop;/);
    assert.doesNotMatch(e.message, /cluster-scoped/);
    assert.doesNotMatch(e.message, /instance shop and instance shop/);
    assert.match(e.message, /within namespace shop/);
  });

  it('a cluster-scoped object built by two instances names both and says it belongs to one', () => {
    const mk = (name: string) =>
      definePackage({
        name,
        build: ({ scope }) => ({
          root: scope.mkClusterResource({
            apiVersion: 'rbac.authorization.k8s.io/v1',
            kind: 'ClusterRole',
            name: 'shared',
          }),
        }),
      });
    throwsCode(
      () =>
        synth({
          instances: { a: { package: mk('a'), namespace: 'a' }, b: { package: mk('b'), namespace: 'b' } },
        }),
      SdkCode.invalidArgument,
      'clusterrole.rbac.authorization.k8s.io/shared is built by both instance a and instance b; a cluster-scoped object belongs to one instance',
    );
  });
});
