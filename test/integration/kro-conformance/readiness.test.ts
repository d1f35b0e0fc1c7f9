// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * kro's readiness scenarios (kro readiness_test.go and dependency_readiness_test.go), ported: a resource
 * whose readyWhen does not hold keeps its dependents uncreated and the instance IN_PROGRESS, up to the
 * last node of the graph. kro opens the gates by writing Deployment and Job status by hand, so these run
 * on a plane without workload controllers (support.ts), where a status stays as written.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RestClient } from '../../../src/kube/index.ts';
import {
  applyInstance,
  applyRgd,
  cm,
  getInstance,
  instance,
  rgd,
  waitRgd,
  waitState,
} from '../rgd/support.ts';
import {
  cmRef,
  dataOf,
  deleteInstanceThenRgd,
  deployRef,
  handStatusFixture,
  holdsFor,
  markDeploymentAvailable,
  markJobComplete,
  present,
  staysAbsent,
} from './support.ts';

type Hand = Awaited<ReturnType<typeof handStatusFixture>>;
const jobRef = (namespace: string, name: string) => ({
  apiVersion: 'batch/v1',
  kind: 'Job',
  namespace,
  name,
});
const job = (name: string, container: Record<string, unknown>, annotations?: Record<string, string>) => ({
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: { name, ...(annotations ? { annotations } : {}) },
  spec: { template: { spec: { containers: [{ image: 'busybox', ...container }], restartPolicy: 'Never' } } },
});

describe('kro conformance: readiness', () => {
  let h: Hand;
  let client: RestClient;

  before(async () => {
    h = await handStatusFixture('kro-ready');
    client = h.client;
  });
  after(() => h.stop());

  const stateOf = async (kind: string, name: string) =>
    ((await getInstance(client, h, kind, name))?.status as { state?: string } | undefined)?.state;
  const define = async (name: string, schema: Record<string, unknown>, resources: unknown[]) => {
    await applyRgd(client, rgd(h, name, schema, resources));
    const r = await waitRgd(client, name, 'Ready', 'True');
    assert.equal((r.status as { state?: string }).state, 'Active');
    return r.status as { topologicalOrder?: string[] };
  };

  it('creates the Service only once the Deployment has all replicas available', async () => {
    const name = 'test-readiness';
    const st = await define(
      'kro-ready-deployment',
      {
        kind: 'TestReadiness',
        spec: {
          name: 'string',
          replicas: 'integer',
          deployment: { includeAnnotations: 'boolean | default=false', annotations: 'map[string]string' },
          service: { includeAnnotations: 'boolean | default=true', annotations: 'map[string]string' },
        },
      },
      [
        {
          id: 'deployment',
          template: {
            apiVersion: 'apps/v1',
            kind: 'Deployment',
            metadata: {
              name: '${schema.spec.name}',
              annotations:
                '${schema.spec.deployment.includeAnnotations ? schema.spec.deployment.annotations : {}}',
            },
            spec: {
              replicas: '${schema.spec.replicas}',
              selector: { matchLabels: { app: 'deployment' } },
              template: {
                metadata: { labels: { app: 'deployment' } },
                spec: {
                  containers: [
                    {
                      name: '${schema.spec.name}-deployment',
                      image: 'nginx',
                      ports: [{ containerPort: 8080 }],
                    },
                  ],
                },
              },
            },
          },
          readyWhen: ['${deployment.spec.replicas == deployment.status.availableReplicas}'],
        },
        {
          id: 'service',
          template: {
            apiVersion: 'v1',
            kind: 'Service',
            metadata: {
              name: '${deployment.metadata.name}',
              annotations: '${schema.spec.service.includeAnnotations ? schema.spec.service.annotations : {}}',
            },
            spec: { selector: { app: 'deployment' }, ports: [{ port: 8080, targetPort: 8080 }] },
          },
        },
      ],
    );
    assert.deepEqual(st.topologicalOrder, ['deployment', 'service']);
    await applyInstance(
      client,
      instance(h, 'TestReadiness', name, {
        name,
        replicas: 5,
        deployment: { includeAnnotations: false, annotations: {} },
        service: { includeAnnotations: true, annotations: { app: 'service' } },
      }),
    );
    const d = await present(client, deployRef(h.ns, name));
    assert.equal((d.spec as { replicas: number }).replicas, 5);
    assert.equal(
      (d.spec as { template: { spec: { containers: unknown[] } } }).template.spec.containers.length,
      1,
    );
    const annotations = d.metadata.annotations ?? {};
    assert.equal(annotations.app, undefined);
    assert.equal(annotations['internal.kro.run/apply-order'], '1');
    const svc = { apiVersion: 'v1', kind: 'Service', namespace: h.ns, name };
    await staysAbsent(client, svc, 0);
    await waitState(client, h, 'TestReadiness', name, 'IN_PROGRESS');
    await staysAbsent(client, svc, 0);
    await markDeploymentAvailable(client, h.ns, name);
    await present(
      client,
      svc,
      (o) =>
        o.metadata.annotations?.app === 'service' &&
        o.metadata.annotations?.['internal.kro.run/apply-order'] === '2',
    );
    await deleteInstanceThenRgd(client, h, 'TestReadiness', name, 'kro-ready-deployment');
  });

  it('keeps the instance IN_PROGRESS until the last node of the graph is ready', async () => {
    const name = 'test-readiness-tail';
    await define('kro-ready-tail', { kind: 'TestReadinessTail', spec: { name: 'string' } }, [
      {
        id: 'job',
        template: job('${schema.spec.name}', { name: 'sleep', args: ['sleep', '3'] }),
        readyWhen: ['${job.status.completionTime != null}'],
      },
    ]);
    await applyInstance(client, instance(h, 'TestReadinessTail', name, { name }));
    await present(client, jobRef(h.ns, name));
    await waitState(client, h, 'TestReadinessTail', name, 'IN_PROGRESS');
    await holdsFor(
      'instance IN_PROGRESS',
      async () => (await stateOf('TestReadinessTail', name)) === 'IN_PROGRESS',
    );
    await markJobComplete(client, h.ns, name);
    await waitState(client, h, 'TestReadinessTail', name, 'ACTIVE');
    await deleteInstanceThenRgd(client, h, 'TestReadinessTail', name, 'kro-ready-tail');
  });

  it('waits for every dependency to be ready before creating the resource that reads them', async () => {
    const name = 'test-dep-readiness';
    const config = (suffix: string, key: string) => ({
      id: `configmap${suffix}`,
      template: cm(`\${schema.spec.name}-config-${suffix.toLowerCase()}`, {
        value: `\${schema.spec.${key}.data}`,
        ready: `\${string(schema.spec.${key}.ready)}`,
      }),
      readyWhen: [`\${configmap${suffix}.data.?ready.orValue("false") == "true"}`],
    });
    const st = await define(
      'kro-ready-dependencies',
      {
        kind: 'TestDependencyReadiness',
        spec: {
          name: 'string',
          configA: { data: 'string', ready: 'boolean | default=false' },
          configB: { data: 'string', ready: 'boolean | default=false' },
          replicas: 'integer | default=1',
        },
      },
      [
        config('A', 'configA'),
        config('B', 'configB'),
        {
          id: 'deployment',
          template: {
            apiVersion: 'apps/v1',
            kind: 'Deployment',
            metadata: { name: '${schema.spec.name}' },
            spec: {
              replicas: '${schema.spec.replicas}',
              selector: { matchLabels: { app: 'test' } },
              template: {
                metadata: { labels: { app: 'test' } },
                spec: {
                  containers: [
                    {
                      name: 'nginx',
                      image: 'nginx',
                      env: [
                        { name: 'CONFIG_A', value: '${configmapA.data.?value.orValue("")}' },
                        { name: 'CONFIG_B', value: '${configmapB.data.?value.orValue("")}' },
                      ],
                    },
                  ],
                },
              },
            },
          },
        },
      ],
    );
    assert.equal(st.topologicalOrder?.length, 3);
    assert.equal(st.topologicalOrder?.[2], 'deployment');
    const spec = (aReady: boolean, bReady: boolean) => ({
      name,
      configA: { data: 'valueA', ready: aReady },
      configB: { data: 'valueB', ready: bReady },
      replicas: 1,
    });
    await applyInstance(client, instance(h, 'TestDependencyReadiness', name, spec(false, false)));
    await present(
      client,
      cmRef(h.ns, `${name}-config-a`),
      (o) => dataOf(o).value === 'valueA' && dataOf(o).ready === 'false',
    );
    await present(
      client,
      cmRef(h.ns, `${name}-config-b`),
      (o) => dataOf(o).value === 'valueB' && dataOf(o).ready === 'false',
    );
    await staysAbsent(client, deployRef(h.ns, name));
    await waitState(client, h, 'TestDependencyReadiness', name, 'IN_PROGRESS');
    await applyInstance(client, instance(h, 'TestDependencyReadiness', name, spec(true, false)));
    await staysAbsent(client, deployRef(h.ns, name));
    await applyInstance(client, instance(h, 'TestDependencyReadiness', name, spec(true, true)));
    const d = await present(client, deployRef(h.ns, name));
    const pod = d.spec as { replicas: number; template: { spec: { containers: { env: unknown[] }[] } } };
    assert.equal(pod.replicas, 1);
    assert.equal(pod.template.spec.containers.length, 1);
    assert.deepEqual(pod.template.spec.containers[0]?.env, [
      { name: 'CONFIG_A', value: 'valueA' },
      { name: 'CONFIG_B', value: 'valueB' },
    ]);
    await waitState(client, h, 'TestDependencyReadiness', name, 'ACTIVE');
    await deleteInstanceThenRgd(client, h, 'TestDependencyReadiness', name, 'kro-ready-dependencies');
  });

  it('blocks a dependent Job until the first Job is complete (readyWhen with orValue(null))', async () => {
    const name = 'test-jobs';
    const sleeper = (text: string, seconds: number) => ({
      name: 'sleeper',
      command: ['sh', '-c', `echo 'Job ${text} starting' && sleep ${seconds} && echo 'Job ${text} complete'`],
    });
    await define('kro-ready-jobs', { kind: 'TestJobs', spec: { name: 'string' } }, [
      {
        id: 'job1',
        template: job('${schema.spec.name}-job1', sleeper('1', 5)),
        readyWhen: ['${job1.status.?completionTime.orValue(null) != null}'],
      },
      {
        id: 'job2',
        template: job('${schema.spec.name}-job2', sleeper('2', 1), { 'depends-on': '${job1.metadata.name}' }),
        readyWhen: ['${job2.status.?completionTime.orValue(null) != null}'],
      },
    ]);
    await applyInstance(client, instance(h, 'TestJobs', 'test-jobs-instance', { name }));
    await present(client, jobRef(h.ns, `${name}-job1`));
    await staysAbsent(client, jobRef(h.ns, `${name}-job2`), 5_000);
    await markJobComplete(client, h.ns, `${name}-job1`);
    await present(client, jobRef(h.ns, `${name}-job2`));
    await markJobComplete(client, h.ns, `${name}-job2`);
    await waitState(client, h, 'TestJobs', 'test-jobs-instance', 'ACTIVE');
    await deleteInstanceThenRgd(client, h, 'TestJobs', 'test-jobs-instance', 'kro-ready-jobs');
  });
});
