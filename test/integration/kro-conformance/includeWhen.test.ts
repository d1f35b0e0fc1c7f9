// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * kro's includeWhen scenarios (kro include_when_test.go), ported: a resource whose includeWhen is false is
 * not created, and neither is anything that reads it (exclusion is contagious), whether the condition
 * reads the spec, another resource's data, or another resource's status (then the dependents wait).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RestClient } from '../../../src/kube/index.ts';
import {
  applyInstance,
  applyRgd,
  cm,
  eventually,
  getRgd,
  gone,
  instance,
  type RgdFixture,
  rgd,
  rgdFixture,
  stopRgdController,
  waitRgd,
  waitState,
} from '../rgd/support.ts';
import {
  cmRef,
  dataOf,
  deployRef,
  handStatusFixture,
  markDeploymentAvailable,
  present,
  staysAbsent,
} from './support.ts';

const deployment = (name: string, app: string, podSpec: Record<string, unknown> = {}) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app } },
    template: {
      metadata: { labels: { app } },
      spec: { ...podSpec, containers: [{ name: 'main', image: 'nginx', ports: [{ containerPort: 8080 }] }] },
    },
  },
});
const service = (name: string) => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name },
  spec: { selector: { app: 'deployment' }, ports: [{ port: 8080, targetPort: 8080 }] },
});
const sa = (name: string) => ({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name } });

describe('kro conformance: includeWhen', () => {
  let f: RgdFixture;
  let client: RestClient;

  before(async () => {
    f = await rgdFixture('kro-incl');
    client = f.client;
  });
  after(() => stopRgdController(f.controller));

  it('creates neither an excluded Deployment nor the Services and ServiceAccount that read it', async () => {
    const name = 'test-conditions';
    const template = (id: string, t: Record<string, unknown>, flag?: string) => ({
      id,
      template: t,
      ...(flag ? { includeWhen: [`\${schema.spec.${flag}}`] } : {}),
    });
    const dep = (n: string, podSpec?: Record<string, unknown>) => {
      const d = deployment(n, 'deployment', podSpec);
      const c = (d.spec.template.spec.containers as { name: string }[])[0];
      if (c) c.name = '${schema.spec.name}-deployment';
      return d;
    };
    await applyRgd(
      client,
      rgd(
        f,
        'kro-incl-conditions',
        {
          kind: 'TestConditions',
          spec: {
            name: 'string',
            deploymentA: { name: 'string', enabled: 'boolean' },
            deploymentBenabled: 'boolean',
            serviceAccountAenabled: 'boolean',
            serviceAccountBenabled: 'boolean',
            serviceBenabled: 'boolean',
          },
        },
        [
          template('deploymentA', dep('${schema.spec.deploymentA.name}'), 'deploymentA.enabled'),
          template(
            'deploymentB',
            dep('${schema.spec.name}-b', {
              serviceAccountName: '${serviceAccountA.metadata.name + schema.spec.name}',
            }),
            'deploymentBenabled',
          ),
          template('serviceAccountA', sa('${schema.spec.name}-a'), 'serviceAccountAenabled'),
          template('serviceAccountB', sa('${serviceA.metadata.name}'), 'serviceAccountBenabled'),
          template('serviceA', service('${deploymentA.metadata.name}')),
          template(
            'serviceB',
            service('${deploymentB.metadata.name + deploymentA.metadata.name}'),
            'serviceBenabled',
          ),
        ],
      ),
    );
    await waitRgd(client, 'kro-incl-conditions', 'Ready', 'True');
    const r = await getRgd(client, 'kro-incl-conditions');
    const st = r?.status as { state?: string; topologicalOrder?: string[] };
    assert.equal(st.state, 'Active');
    assert.deepEqual(st.topologicalOrder, [
      'deploymentA',
      'serviceAccountA',
      'deploymentB',
      'serviceA',
      'serviceAccountB',
      'serviceB',
    ]);

    await applyInstance(
      client,
      instance(f, 'TestConditions', name, {
        name,
        deploymentA: { enabled: false },
        deploymentBenabled: true,
        serviceAccountAenabled: true,
        serviceBenabled: true,
        serviceAccountBenabled: true,
      }),
    );
    await waitState(client, f, 'TestConditions', name, 'ACTIVE');
    await present(client, { apiVersion: 'v1', kind: 'ServiceAccount', namespace: f.ns, name: `${name}-a` });
    const b = await present(client, deployRef(f.ns, `${name}-b`));
    const pod = (b.spec as { template: { spec: { containers: unknown[]; serviceAccountName?: string } } })
      .template.spec;
    assert.equal(pod.containers.length, 1);
    assert.equal(pod.serviceAccountName, `${name}-a${name}`);
    await staysAbsent(client, deployRef(f.ns, `${name}-a`), 0);
    await staysAbsent(client, { apiVersion: 'v1', kind: 'Service', namespace: f.ns, name: `${name}-a` }, 0);
    await staysAbsent(client, { apiVersion: 'v1', kind: 'Service', namespace: f.ns, name: `${name}-b` }, 0);
    await staysAbsent(client, { apiVersion: 'v1', kind: 'ServiceAccount', namespace: f.ns, name }, 0);

    await client.delete({ apiVersion: `${f.group}/v1alpha1`, kind: 'TestConditions', namespace: f.ns, name });
    await gone(client, f.ns, name, 'TestConditions', `${f.group}/v1alpha1`);
    await client.delete({
      apiVersion: 'kro.run/v1alpha1',
      kind: 'ResourceGraphDefinition',
      name: 'kro-incl-conditions',
    });
    await eventually('RGD deleted', async () =>
      (await getRgd(client, 'kro-incl-conditions')) ? undefined : true,
    );
  });

  it('skips the dependents of a resource excluded by the spec', async () => {
    const name = 'test-conditions-contagious';
    await applyRgd(
      client,
      rgd(
        f,
        'kro-incl-contagious',
        { kind: 'ContagiousConditions', spec: { name: 'string', enableParent: 'boolean' } },
        [
          {
            id: 'parent',
            template: cm('${schema.spec.name}-parent', { key: 'parent' }),
            includeWhen: ['${schema.spec.enableParent}'],
          },
          {
            id: 'child',
            template: cm('${parent.metadata.name}-child', { fromParent: '${parent.data.key}' }),
          },
          { id: 'always', template: cm('${schema.spec.name}-always', { key: 'always' }) },
        ],
      ),
    );
    await waitRgd(client, 'kro-incl-contagious', 'Ready', 'True');
    await applyInstance(client, instance(f, 'ContagiousConditions', name, { name, enableParent: false }));
    await waitState(client, f, 'ContagiousConditions', name, 'ACTIVE');
    await present(client, cmRef(f.ns, `${name}-always`), (o) => dataOf(o).key === 'always');
    await staysAbsent(client, cmRef(f.ns, `${name}-parent`));
    await staysAbsent(client, cmRef(f.ns, `${name}-parent-child`), 0);
  });

  it('skips the dependents of a resource excluded by another resource’s data', async () => {
    const name = 'test-resource-backed-contagious';
    await applyRgd(
      client,
      rgd(
        f,
        'kro-incl-resource-backed',
        { kind: 'ResourceBackedContagiousConditions', spec: { name: 'string', enableMiddle: 'boolean' } },
        [
          {
            id: 'source',
            template: cm('${schema.spec.name}-source', {
              enabled: "${schema.spec.enableMiddle ? 'true' : 'false'}",
            }),
          },
          {
            id: 'middle',
            template: cm('${schema.spec.name}-middle', { value: 'middle' }),
            includeWhen: ["${source.data.enabled == 'true'}"],
          },
          {
            id: 'child',
            template: cm('${middle.metadata.name}-child', { fromMiddle: '${middle.data.value}' }),
          },
          { id: 'always', template: cm('${schema.spec.name}-always', { key: 'always' }) },
        ],
      ),
    );
    await waitRgd(client, 'kro-incl-resource-backed', 'Ready', 'True');
    await applyInstance(
      client,
      instance(f, 'ResourceBackedContagiousConditions', name, { name, enableMiddle: false }),
    );
    await waitState(client, f, 'ResourceBackedContagiousConditions', name, 'ACTIVE');
    await present(client, cmRef(f.ns, `${name}-source`), (o) => dataOf(o).enabled === 'false');
    await present(client, cmRef(f.ns, `${name}-always`));
    await staysAbsent(client, cmRef(f.ns, `${name}-middle`));
    await staysAbsent(client, cmRef(f.ns, `${name}-middle-child`), 0);
  });

  it('waits on an includeWhen that reads a status before creating the gated resource and its dependents', async () => {
    const h = await handStatusFixture('kro-incl-status');
    try {
      const name = 'status-backed';
      const d = deployment('${schema.spec.name}-source', '${schema.spec.name}');
      await applyRgd(
        h.client,
        rgd(h, 'kro-incl-status-backed', { kind: 'StatusBackedConditions', spec: { name: 'string' } }, [
          { id: 'source', template: d },
          {
            id: 'gated',
            template: cm('${schema.spec.name}-gated', { fromSource: '${source.metadata.name}' }),
            includeWhen: ['${source.status.availableReplicas == source.spec.replicas}'],
          },
          {
            id: 'child',
            template: cm('${schema.spec.name}-child', { fromGated: '${gated.data.fromSource}' }),
          },
          { id: 'always', template: cm('${schema.spec.name}-always', { key: 'always' }) },
        ]),
      );
      await waitRgd(h.client, 'kro-incl-status-backed', 'Ready', 'True');
      await applyInstance(h.client, instance(h, 'StatusBackedConditions', name, { name }));
      await present(
        h.client,
        deployRef(h.ns, `${name}-source`),
        (o) => (o.spec as { replicas?: number }).replicas === 1,
      );
      await present(h.client, cmRef(h.ns, `${name}-always`), (o) => dataOf(o).key === 'always');
      await waitState(h.client, h, 'StatusBackedConditions', name, 'IN_PROGRESS');
      await staysAbsent(h.client, cmRef(h.ns, `${name}-gated`));
      await staysAbsent(h.client, cmRef(h.ns, `${name}-child`), 0);

      await markDeploymentAvailable(h.client, h.ns, `${name}-source`);
      await present(h.client, cmRef(h.ns, `${name}-gated`), (o) => dataOf(o).fromSource === `${name}-source`);
      await present(h.client, cmRef(h.ns, `${name}-child`), (o) => dataOf(o).fromGated === `${name}-source`);
    } finally {
      await h.stop();
    }
  });
});
