import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type ClusterDef,
  createSession,
  type DeploymentArgsSpec,
  kix,
  type Scope,
  SdkCode,
} from '../../../src/sdk/index.ts';
import { dependsOn, find, get, hashOf, multiNodeCluster, podSpec, setup, throwsCode } from './helpers.ts';

const deployment = (scope: Scope, spec: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  // Untyped on purpose: the tests also check the run-time errors an untyped (JavaScript) caller gets.
  scope.mkDeployment({
    name: 'w',
    spec: { selector: { matchLabels: { app: 'w' } }, ...spec } as unknown as DeploymentArgsSpec,
    ...extra,
  });

describe('selector propagation', () => {
  it('Deployment, StatefulSet and DaemonSet require spec.selector.matchLabels', () => {
    const { scope } = setup();
    throwsCode(
      () => scope.mkDeployment({ name: 'a', spec: { template: { spec: podSpec() } } }),
      SdkCode.selectorRequired,
    );
    throwsCode(
      () => scope.mkStatefulSet({ name: 'a', spec: { template: { spec: podSpec() } } }),
      SdkCode.selectorRequired,
    );
    throwsCode(
      () => scope.mkDaemonSet({ name: 'a', spec: { template: { spec: podSpec() } } }),
      SdkCode.selectorRequired,
    );
  });

  it('omitted template labels are filled from the selector', () => {
    const { session, scope } = setup();
    deployment(scope, { template: { spec: podSpec() } });
    assert.deepEqual(get(find(session.finalize(), 'Deployment', 'w'), 'spec.template.metadata.labels'), {
      app: 'w',
    });
  });

  it('Job: template labels default to the selector; neither selector nor labels throws', () => {
    const { session, scope } = setup();
    throwsCode(
      () => scope.mkJob({ name: 'j0', spec: { template: { spec: podSpec() } } }),
      SdkCode.podLabelsRequired,
    );
    scope.mkJob({
      name: 'j1',
      spec: { selector: { matchLabels: { job: 'j1' } }, template: { spec: podSpec() } },
    });
    scope.mkJob({ name: 'j2', spec: { template: { metadata: { labels: { job: 'j2' } }, spec: podSpec() } } });
    const r = session.finalize();
    assert.deepEqual(get(find(r, 'Job', 'j1'), 'spec.template.metadata.labels'), { job: 'j1' });
    assert.deepEqual(get(find(r, 'Job', 'j2'), 'spec.template.metadata.labels'), { job: 'j2' });
  });

  it('CronJob requires spec.jobTemplate.spec.template.metadata.labels', () => {
    const { scope } = setup();
    throwsCode(
      () =>
        scope.mkCronJob({
          name: 'c',
          spec: { schedule: '* * * * *', jobTemplate: { spec: { template: { spec: podSpec() } } } },
        }),
      SdkCode.podLabelsRequired,
    );
    scope.mkCronJob({
      name: 'c2',
      spec: {
        schedule: '* * * * *',
        jobTemplate: { spec: { template: { metadata: { labels: { c: '2' } }, spec: podSpec() } } },
      },
    });
  });
});

describe('checkSelectorSubset', () => {
  it('explicit template labels missing a selector key fail, naming it', () => {
    const { scope } = setup();
    throwsCode(
      () =>
        scope.mkDeployment({
          name: 'a',
          spec: {
            selector: { matchLabels: { app: 'api', tier: 'web' } },
            template: { metadata: { labels: { app: 'api' } }, spec: podSpec() },
          },
        }),
      SdkCode.checkSelectorSubset,
      'tier',
    );
  });

  it('a value mismatch fails', () => {
    const { scope } = setup();
    throwsCode(
      () =>
        scope.mkStatefulSet({
          name: 'a',
          spec: {
            selector: { matchLabels: { app: 'api' } },
            template: { metadata: { labels: { app: 'web' } }, spec: podSpec() },
          },
        }),
      SdkCode.checkSelectorSubset,
      'app',
    );
  });

  it('a subset passes', () => {
    const { scope } = setup();
    scope.mkDaemonSet({
      name: 'a',
      spec: {
        selector: { matchLabels: { app: 'api' } },
        template: { metadata: { labels: { app: 'api', extra: 'x' } }, spec: podSpec() },
      },
    });
  });
});

describe('Jobs', () => {
  it('Job TTL refused: mkJob with spec.ttlSecondsAfterFinished fails the build', () => {
    const { scope } = setup();
    throwsCode(
      () =>
        scope.mkJob({
          name: 'j',
          spec: {
            ttlSecondsAfterFinished: 60,
            template: { metadata: { labels: { j: 'j' } }, spec: podSpec() },
          },
        }),
      SdkCode.jobTtlRefused,
    );
  });

  it("a CronJob's jobTemplate may set ttlSecondsAfterFinished", () => {
    const { session, scope } = setup();
    scope.mkCronJob({
      name: 'c',
      spec: {
        schedule: '0 * * * *',
        jobTemplate: {
          spec: {
            ttlSecondsAfterFinished: 60,
            template: { metadata: { labels: { c: 'c' } }, spec: podSpec() },
          },
        },
      },
    });
    assert.equal(
      get(find(session.finalize(), 'CronJob', 'c'), 'spec.jobTemplate.spec.ttlSecondsAfterFinished'),
      60,
    );
  });

  it('the rerun annotation kix.run/rerun: on-change is kept on Jobs; other values and other kinds are refused', () => {
    const { session, scope } = setup();
    const tmpl = { template: { metadata: { labels: { j: 'j' } }, spec: podSpec() } };
    scope.mkJob({ name: 'j', annotations: { 'kix.run/rerun': 'on-change' }, spec: tmpl });
    throwsCode(
      () => scope.mkJob({ name: 'j2', annotations: { 'kix.run/rerun': 'always' }, spec: tmpl }),
      SdkCode.rerunAnnotation,
    );
    throwsCode(
      () =>
        deployment(
          scope,
          { template: { spec: podSpec() } },
          { annotations: { 'kix.run/rerun': 'on-change' } },
        ),
      SdkCode.rerunAnnotation,
    );
    assert.equal(find(session.finalize(), 'Job', 'j').metadata.annotations?.['kix.run/rerun'], 'on-change');
  });
});

describe('shorthands', () => {
  it('serviceAccount: <SA resource> becomes serviceAccountName with an edge', () => {
    const { session, scope } = setup();
    const sa = scope.mkResource({ apiVersion: 'v1', kind: 'ServiceAccount', name: 'api' });
    deployment(scope, { template: { spec: podSpec({ serviceAccount: sa }) } });
    const r = session.finalize();
    const m = find(r, 'Deployment', 'w');
    assert.equal(get(m, 'spec.template.spec.serviceAccountName'), 'api');
    assert.equal(get(m, 'spec.template.spec.serviceAccount'), undefined);
    assert.deepEqual(dependsOn(m), [hashOf(r, 'ServiceAccount', 'api')]);
  });

  it('serviceAccount shorthand rejects a resource that is not a ServiceAccount', () => {
    const { scope } = setup();
    const cm = scope.mkResource({ apiVersion: 'v1', kind: 'ConfigMap', name: 'c' });
    throwsCode(
      () => deployment(scope, { template: { spec: podSpec({ serviceAccount: cm }) } }),
      SdkCode.serviceAccountShorthand,
    );
  });

  it('headlessService on a StatefulSet sets serviceName without an edge; the Service may keep out.selector', () => {
    const { session, scope } = setup();
    const svc = scope.mkResource({
      apiVersion: 'v1',
      kind: 'Service',
      name: 'db-headless',
      spec: { clusterIP: 'None', ports: [{ port: 5432 }] },
    });
    scope.mkStatefulSet({
      name: 'db',
      spec: { headlessService: svc, selector: { matchLabels: { app: 'db' } }, template: { spec: podSpec() } },
    });
    const m = find(session.finalize(), 'StatefulSet', 'db');
    assert.equal(get(m, 'spec.serviceName'), 'db-headless');
    assert.equal(get(m, 'spec.headlessService'), undefined);
    assert.equal(m.metadata.annotations?.['kix.run/depends-on'], undefined);
  });

  it('headlessService rejects a Service in another namespace or one that is not headless', () => {
    const { scope } = setup();
    const notHeadless = scope.mkResource({
      apiVersion: 'v1',
      kind: 'Service',
      name: 's1',
      spec: { ports: [{ port: 1 }] },
    });
    const other = scope
      .forNamespace('other')
      .mkResource({ apiVersion: 'v1', kind: 'Service', name: 's2', spec: { clusterIP: 'None' } });
    const sts = (svc: unknown) =>
      scope.mkStatefulSet({
        name: 'db',
        spec: {
          headlessService: svc as never,
          selector: { matchLabels: { a: 'b' } },
          template: { spec: podSpec() },
        },
      });
    throwsCode(() => sts(notHeadless), SdkCode.headlessService, 'not headless');
    throwsCode(() => sts(other), SdkCode.headlessService, 'namespace other');
  });

  it('rawSelector holds the selector labels as plain strings', () => {
    const { scope } = setup();
    const w = deployment(scope, { template: { spec: podSpec() } });
    assert.deepEqual(w.rawSelector, { app: 'w' });
    assert.equal(typeof w.rawSelector.app, 'string');
  });
});

const zonal: ClusterDef = { ...multiNodeCluster, availability: 'zone' };

describe('availability spread and PDB', () => {
  const tsc = (
    r: ReturnType<ReturnType<typeof setup>['session']['finalize']>,
    kind = 'Deployment',
    name = 'w',
  ) =>
    get(find(r, kind, name), 'spec.template.spec.topologySpreadConstraints') as
      | Record<string, unknown>[]
      | undefined;

  it('spread derivation at level node: host key DoNotSchedule, others ScheduleAnyway; maxSkew 1, selector, matchLabelKeys', () => {
    const { session, scope } = setup();
    deployment(scope, { replicas: 3, template: { spec: podSpec() } });
    const c = tsc(session.finalize())!;
    assert.deepEqual(
      c.map((x) => [x.topologyKey, x.whenUnsatisfiable]),
      [
        ['topology.kubernetes.io/zone', 'ScheduleAnyway'],
        ['kubernetes.io/hostname', 'DoNotSchedule'],
      ],
    );
    for (const x of c) {
      assert.equal(x.maxSkew, 1);
      assert.deepEqual(x.labelSelector, { matchLabels: { app: 'w' } });
      assert.deepEqual(x.matchLabelKeys, ['pod-template-hash']);
    }
  });

  it('spread derivation at level zone: zone key DoNotSchedule, others ScheduleAnyway; no matchLabelKeys on StatefulSets', () => {
    const { session, scope } = setup(zonal);
    scope.mkStatefulSet({
      name: 's',
      spec: { replicas: 3, selector: { matchLabels: { app: 's' } }, template: { spec: podSpec() } },
    });
    const c = tsc(session.finalize(), 'StatefulSet', 's')!;
    assert.deepEqual(
      c.map((x) => [x.topologyKey, x.whenUnsatisfiable]),
      [
        ['topology.kubernetes.io/zone', 'DoNotSchedule'],
        ['kubernetes.io/hostname', 'ScheduleAnyway'],
      ],
    );
    assert.equal(c[0]!.matchLabelKeys, undefined);
  });

  it('nothing at level none', () => {
    const { session, scope } = setup({ ...multiNodeCluster, availability: 'none' });
    deployment(scope, { replicas: 3, template: { spec: podSpec() } });
    const r = session.finalize();
    assert.equal(tsc(r), undefined);
    assert.equal(
      r.manifests.some((m) => m.kind === 'PodDisruptionBudget'),
      false,
    );
  });

  it('availability.max cap: cluster zone, workload max node gives node-level constraints', () => {
    const { session, scope } = setup(zonal);
    deployment(scope, { replicas: 3, template: { spec: podSpec() } }, { availability: { max: 'node' } });
    const c = tsc(session.finalize())!;
    assert.equal(
      c.find((x) => x.topologyKey === 'kubernetes.io/hostname')?.whenUnsatisfiable,
      'DoNotSchedule',
    );
    assert.equal(
      c.find((x) => x.topologyKey === 'topology.kubernetes.io/zone')?.whenUnsatisfiable,
      'ScheduleAnyway',
    );
  });

  it('availability.max rejects zone and is refused on DaemonSets', () => {
    const { scope } = setup();
    throwsCode(
      () => deployment(scope, { template: { spec: podSpec() } }, { availability: { max: 'zone' } }),
      SdkCode.availabilityMax,
    );
    throwsCode(
      () =>
        scope.mkDaemonSet({
          name: 'd',
          availability: { max: 'node' },
          spec: { selector: { matchLabels: { a: 'b' } }, template: { spec: podSpec() } },
        } as never),
      SdkCode.availabilityMax,
    );
  });

  it('PDB derivation: 3 replicas give a PDB with maxUnavailable 1 selecting the pods', () => {
    const { session, scope } = setup();
    deployment(scope, { replicas: 3, template: { spec: podSpec() } });
    const r = session.finalize();
    const pdb = find(r, 'PodDisruptionBudget', 'w');
    assert.equal(get(pdb, 'spec.maxUnavailable'), 1);
    assert.deepEqual(get(pdb, 'spec.selector.matchLabels'), { app: 'w' });
    assert.deepEqual(dependsOn(pdb), [hashOf(r, 'Deployment', 'w')]);
  });

  it('PDB derivation: 1 replica gives no PDB and no spread', () => {
    const { session, scope } = setup();
    deployment(scope, { replicas: 1, template: { spec: podSpec() } });
    const r = session.finalize();
    assert.equal(
      r.manifests.some((m) => m.kind === 'PodDisruptionBudget'),
      false,
    );
    assert.equal(tsc(r), undefined);
  });

  it('PDB derivation: multiNode false gives no PDB; no failure-domain keys gives none either', () => {
    for (const cluster of [
      { ...multiNodeCluster, capabilities: { multiNode: false } },
      { ...multiNodeCluster, topology: { failureDomainKeys: [] } },
    ] as ClusterDef[]) {
      const { session, scope } = setup(cluster);
      deployment(scope, { replicas: 3, template: { spec: podSpec() } });
      const r = session.finalize();
      assert.equal(
        r.manifests.some((m) => m.kind === 'PodDisruptionBudget'),
        false,
      );
      assert.equal(tsc(r), undefined);
    }
  });

  it('PDB derivation: an existing PDB in the instance selecting the pods prevents a second one', () => {
    const { session, scope } = setup();
    const w = deployment(scope, { replicas: 3, template: { spec: podSpec() } });
    scope.mkResource({
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      name: 'mine',
      spec: { minAvailable: 2, selector: { matchLabels: w.out.selector } },
    });
    const r = session.finalize();
    assert.deepEqual(
      r.manifests.filter((m) => m.kind === 'PodDisruptionBudget').map((m) => m.metadata.name),
      ['mine'],
    );
  });

  it('PDB derivation: custom topologySpreadConstraints mean nothing is injected', () => {
    const { session, scope } = setup();
    const own = [
      {
        maxSkew: 2,
        topologyKey: 'x',
        whenUnsatisfiable: 'ScheduleAnyway',
        labelSelector: { matchLabels: { app: 'w' } },
      },
    ];
    deployment(scope, { replicas: 3, template: { spec: podSpec({ topologySpreadConstraints: own }) } });
    const r = session.finalize();
    assert.deepEqual(tsc(r), own);
    assert.equal(
      r.manifests.some((m) => m.kind === 'PodDisruptionBudget'),
      false,
    );
  });
});

describe('build-time validators', () => {
  it('checkContainerResources: requests.cpu 500m with limits.cpu 250m fails', () => {
    const { scope } = setup();
    throwsCode(
      () =>
        deployment(scope, {
          template: {
            spec: {
              containers: [
                {
                  name: 'a',
                  image: 'x:1',
                  resources: { requests: { cpu: '500m' }, limits: { cpu: '250m' } },
                },
              ],
            },
          },
        }),
      SdkCode.checkContainerResources,
      'below',
    );
  });

  it('checkContainerResources: 1Gi request with 1024Mi limit passes (compared as quantities); a limit without a request passes', () => {
    const { scope } = setup();
    deployment(scope, {
      template: {
        spec: {
          containers: [
            {
              name: 'a',
              image: 'x:1',
              resources: { requests: { memory: '1Gi' }, limits: { memory: '1024Mi' } },
            },
            { name: 'b', image: 'x:1', resources: { limits: { cpu: '1' } } },
          ],
        },
      },
    });
  });

  it('checkContainerResources: a quantity overflowing 64 bits fails; an unparseable quantity fails', () => {
    const { scope } = setup();
    const mk = (req: string, lim: string) =>
      scope.mkJob({
        name: `j${Math.random().toString(36).slice(2, 7)}`,
        spec: {
          template: {
            metadata: { labels: { j: 'x' } },
            spec: {
              containers: [
                {
                  name: 'a',
                  image: 'x:1',
                  resources: { requests: { memory: req }, limits: { memory: lim } },
                },
              ],
            },
          },
        },
      });
    throwsCode(() => mk('1', '100E'), SdkCode.checkContainerResources, '64-bit');
    throwsCode(() => mk('1', '9223372036854775808'), SdkCode.checkContainerResources, '64-bit');
    // Parsing caps a binary quantity at the int64 maximum, as Kubernetes does; the check reads what was
    // written, so 2^63 bytes fails whatever the suffix.
    throwsCode(() => mk('1', '8Ei'), SdkCode.checkContainerResources, '64-bit');
    throwsCode(() => mk('1', '100000000000Ei'), SdkCode.checkContainerResources, '64-bit');
    mk('1', '7Ei');
    mk('1', '9223372036854775807');
    throwsCode(() => mk('1', 'lots'), SdkCode.checkContainerResources, 'not a quantity');
  });

  it('checkNamedPorts: a probe port naming an undeclared container port fails', () => {
    const { scope } = setup();
    throwsCode(
      () =>
        deployment(scope, {
          template: {
            spec: {
              containers: [
                {
                  name: 'a',
                  image: 'x:1',
                  ports: [kix.port('http', 8080)],
                  livenessProbe: { httpGet: { path: '/', port: 'metrics' } },
                },
              ],
            },
          },
        }),
      SdkCode.checkNamedPorts,
      'metrics',
    );
    deployment(scope, {
      template: {
        spec: {
          containers: [
            {
              name: 'a',
              image: 'x:1',
              ports: [kix.port('http', 8080)],
              readinessProbe: { tcpSocket: { port: 'http' } },
            },
          ],
        },
      },
    });
  });

  it('checkDuplicateNames: duplicate container, volume, port or env names fail', () => {
    const { scope } = setup();
    const cases = [
      { containers: [{ name: 'a', image: 'x' }], initContainers: [{ name: 'a', image: 'x' }] },
      {
        containers: [{ name: 'a', image: 'x' }],
        volumes: [
          { name: 'v', emptyDir: {} },
          { name: 'v', emptyDir: {} },
        ],
      },
      {
        containers: [
          {
            name: 'a',
            image: 'x',
            ports: [
              { name: 'p', containerPort: 1 },
              { name: 'p', containerPort: 2 },
            ],
          },
        ],
      },
      {
        containers: [
          {
            name: 'a',
            image: 'x',
            env: [
              { name: 'E', value: '1' },
              { name: 'E', value: '2' },
            ],
          },
        ],
      },
    ];
    for (const spec of cases)
      throwsCode(() => deployment(scope, { template: { spec } }), SdkCode.checkDuplicateNames);
  });

  it('checkFieldRefs: an unsupported fieldRef.fieldPath fails; supported ones pass', () => {
    const { scope } = setup();
    const env = (fieldPath: string) => ({
      template: {
        spec: {
          containers: [
            { name: 'a', image: 'x', env: [{ name: 'E', valueFrom: { fieldRef: { fieldPath } } }] },
          ],
        },
      },
    });
    throwsCode(() => deployment(scope, env('spec.hostname')), SdkCode.checkFieldRefs, 'spec.hostname');
    throwsCode(() => deployment(scope, env('metadata.labels[app]')), SdkCode.checkFieldRefs);
    for (const ok of [
      'metadata.name',
      "metadata.labels['app']",
      "metadata.annotations['a/b']",
      'status.podIPs',
      'spec.nodeName',
    ]) {
      const { scope: s2 } = setup();
      deployment(s2, env(ok));
    }
  });

  it('checkPrivileged: rejected when privilegedContainers is false, warned when null', () => {
    const priv = [
      { hostNetwork: true, containers: [{ name: 'a', image: 'x' }] },
      { hostPID: true, containers: [{ name: 'a', image: 'x' }] },
      { containers: [{ name: 'a', image: 'x' }], volumes: [{ name: 'h', hostPath: { path: '/' } }] },
      { containers: [{ name: 'a', image: 'x', securityContext: { privileged: true } }] },
    ];
    for (const spec of priv) {
      const no = setup({ capabilities: { privilegedContainers: false } });
      throwsCode(() => deployment(no.scope, { template: { spec } }), SdkCode.checkPrivileged);
      const unknown = setup({ capabilities: { privilegedContainers: null } });
      deployment(unknown.scope, { template: { spec } });
      const r = unknown.session.finalize();
      assert.equal(
        r.diagnostics.filter((d) => d.code === SdkCode.checkPrivileged && d.severity === 'warning').length,
        1,
      );
    }
  });

  it('checkDaemonSet: rejected when daemonSets is false, warned when null', () => {
    const ds = (s: Scope) =>
      s.mkDaemonSet({
        name: 'd',
        spec: { selector: { matchLabels: { a: 'd' } }, template: { spec: podSpec() } },
      });
    throwsCode(() => ds(setup({ capabilities: { daemonSets: false } }).scope), SdkCode.checkDaemonSet);
    const unknown = setup({ capabilities: { daemonSets: null } });
    ds(unknown.scope);
    assert.equal(
      unknown.session.finalize().diagnostics.filter((d) => d.code === SdkCode.checkDaemonSet).length,
      1,
    );
    const yes = setup({ capabilities: { daemonSets: true } });
    ds(yes.scope);
    assert.equal(yes.session.finalize().diagnostics.length, 0);
  });

  it('checkSpreadFeasible: multi-replica required anti-affinity is rejected when multiNode is false and warned when null', () => {
    const spec = {
      replicas: 2,
      template: {
        spec: podSpec({
          affinity: {
            podAntiAffinity: {
              requiredDuringSchedulingIgnoredDuringExecution: [
                { topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { app: 'w' } } },
              ],
            },
          },
        }),
      },
    };
    throwsCode(
      () => deployment(setup({ capabilities: { multiNode: false } }).scope, spec),
      SdkCode.checkSpreadFeasible,
    );
    const unknown = setup({ capabilities: { multiNode: null } });
    deployment(unknown.scope, spec);
    assert.equal(
      unknown.session.finalize().diagnostics.filter((d) => d.code === SdkCode.checkSpreadFeasible).length,
      1,
    );
    const single = setup({ capabilities: { multiNode: false } });
    deployment(single.scope, { ...spec, replicas: 1 });
  });

  it('checkSpreadFeasible: a DoNotSchedule constraint with multiNode false is rejected', () => {
    const tsc = [
      {
        maxSkew: 1,
        topologyKey: 'kubernetes.io/hostname',
        whenUnsatisfiable: 'DoNotSchedule',
        labelSelector: { matchLabels: { app: 'w' } },
      },
    ];
    throwsCode(
      () =>
        deployment(setup({ capabilities: { multiNode: false } }).scope, {
          replicas: 3,
          template: { spec: podSpec({ topologySpreadConstraints: tsc }) },
        }),
      SdkCode.checkSpreadFeasible,
    );
  });

  it('Jobs and CronJobs run only the five pod-template checks', () => {
    const { session, scope } = setup({ capabilities: { multiNode: false, privilegedContainers: true } });
    // checkNamedPorts and checkSpreadFeasible would reject these on a Deployment.
    const spec = podSpec({
      restartPolicy: 'Never',
      containers: [{ name: 'a', image: 'x', livenessProbe: { httpGet: { port: 'nope' } } }],
      affinity: {
        podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'h' }] },
      },
    });
    scope.mkJob({
      name: 'j',
      spec: { parallelism: 2, template: { metadata: { labels: { j: 'j' } }, spec } },
    });
    scope.mkCronJob({
      name: 'c',
      spec: {
        schedule: '* * * * *',
        jobTemplate: { spec: { template: { metadata: { labels: { c: 'c' } }, spec } } },
      },
    });
    session.finalize();
    throwsCode(
      () =>
        scope.mkJob({
          name: 'j3',
          spec: {
            template: {
              metadata: { labels: { j: 'j' } },
              spec: {
                containers: [
                  { name: 'a', image: 'x' },
                  { name: 'a', image: 'y' },
                ],
              },
            },
          },
        }),
      SdkCode.checkDuplicateNames,
    );
  });

  it('checkNamespacedRefs: a ConfigMap mounted by a plain string name is rejected', () => {
    const { scope } = setup();
    throwsCode(
      () =>
        deployment(scope, {
          template: { spec: podSpec({ volumes: [{ name: 'c', configMap: { name: 'plain' } }] }) },
        }),
      SdkCode.checkNamespacedRefs,
      'carries no context',
    );
  });

  it('checkNamespacedRefs: a ConfigMap from another namespace is rejected', () => {
    const { scope } = setup();
    const other = scope.forNamespace('other').mkResource({ apiVersion: 'v1', kind: 'ConfigMap', name: 'c' });
    throwsCode(
      () =>
        deployment(scope, {
          template: { spec: podSpec({ volumes: [{ name: 'c', configMap: { name: other.out.name } }] }) },
        }),
      SdkCode.checkNamespacedRefs,
      'namespace other',
    );
  });

  it('checkNamespacedRefs: a reflected Secret ref is accepted; a non-reflected one from another namespace is not', () => {
    const { session, scope } = setup();
    const reflected = scope.mkSecretRef({ name: 'wildcard-tls', namespace: 'certs', reflect: true });
    const foreign = scope.mkSecretRef({ name: 'other', namespace: 'certs' });
    deployment(scope, {
      template: { spec: podSpec({ volumes: [{ name: 't', secret: { secretName: reflected.out.name } }] }) },
    });
    throwsCode(
      () =>
        scope.mkDeployment({
          name: 'w2',
          spec: {
            selector: { matchLabels: { a: 'b' } },
            template: { spec: podSpec({ volumes: [foreign.out.volume('t')] }) },
          },
        }),
      SdkCode.checkNamespacedRefs,
    );
    const r = session.finalize();
    assert.deepEqual(dependsOn(find(r, 'Deployment', 'w')), [hashOf(r, 'Secret', 'wildcard-tls')]);
  });

  it('checkNamespacedRefs covers env secretKeyRef, envFrom and serviceAccountName', () => {
    const { scope } = setup();
    const cases = [
      podSpec({
        containers: [
          {
            name: 'a',
            image: 'x',
            env: [{ name: 'E', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }],
          },
        ],
      }),
      podSpec({ containers: [{ name: 'a', image: 'x', envFrom: [{ configMapRef: { name: 'c' } }] }] }),
      podSpec({ serviceAccountName: 'sa' }),
      podSpec({ volumes: [{ name: 'p', persistentVolumeClaim: { claimName: 'data' } }] }),
    ];
    for (const spec of cases)
      throwsCode(() => deployment(scope, { template: { spec } }), SdkCode.checkNamespacedRefs);
  });
});

describe('DNS edge', () => {
  it('on a cluster with a dns role provider a ClusterFirst workload expects role:dns', () => {
    const session = createSession({ ...multiNodeCluster, providers: { dns: 'external' } });
    const scope = session.scope({ instanceName: 'shop', namespaceName: 'shop' });
    deployment(scope, { template: { spec: podSpec() } });
    scope.mkDeployment({
      name: 'hostdns',
      spec: { selector: { matchLabels: { a: 'h' } }, template: { spec: podSpec({ dnsPolicy: 'Default' }) } },
    });
    const r = session.finalize();
    assert.equal(find(r, 'Deployment', 'w').metadata.annotations?.['kix.run/expects'], 'role:dns');
    assert.equal(find(r, 'Deployment', 'hostdns').metadata.annotations?.['kix.run/expects'], undefined);
  });
});

describe('additional selector checks', () => {
  it('a Service selector from a workload must be a subset of its pod-template labels', () => {
    const { session, scope } = setup();
    const w = scope.mkDeployment({
      name: 'w',
      spec: { selector: { matchLabels: { app: 'w' } }, template: { spec: podSpec() } },
    });
    scope.mkResource({
      apiVersion: 'v1',
      kind: 'Service',
      name: 's',
      spec: { selector: { ...w.out.selector, tier: w.out.name }, ports: [{ port: 80 }] },
    });
    throwsCode(() => session.finalize(), SdkCode.selectorSubsetOther, 'tier missing');
  });

  it('a PDB selecting a workload with matching labels passes', () => {
    const { session, scope } = setup();
    const w = scope.mkDeployment({
      name: 'w',
      spec: { selector: { matchLabels: { app: 'w' } }, template: { spec: podSpec() } },
    });
    scope.mkResource({
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      name: 'p',
      spec: { selector: { matchLabels: w.out.selector } },
    });
    session.finalize();
  });

  it("a workload's own topology spread selector must select its pods", () => {
    const { scope } = setup();
    const tsc = [
      {
        maxSkew: 1,
        topologyKey: 'h',
        whenUnsatisfiable: 'ScheduleAnyway',
        labelSelector: { matchLabels: { app: 'other' } },
      },
    ];
    throwsCode(
      () =>
        scope.mkDeployment({
          name: 'w',
          spec: {
            selector: { matchLabels: { app: 'w' } },
            template: { spec: podSpec({ topologySpreadConstraints: tsc }) },
          },
        }),
      SdkCode.selectorSubsetOther,
    );
  });
});
