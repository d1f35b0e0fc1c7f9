// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * kro's cascading deletion (kro cascading_deletion_test.go), ported: three RGDs nested by kind (level 1
 * templates a Level2Resource, which templates a Level3Resource); deleting the level-1 instance deletes the
 * nested instances and every object of every level.
 */
import { after, before, describe, it } from 'node:test';
import type { RestClient } from '../../../src/kube/index.ts';
import {
  applyInstance,
  applyRgd,
  instance,
  type RgdFixture,
  rgd,
  rgdFixture,
  stopRgdController,
  waitRgd,
  waitState,
} from '../rgd/support.ts';
import { absent, present, type Ref } from './support.ts';

const meta = (suffix: string) => ({
  name: `\${schema.metadata.name}${suffix}`,
  namespace: '${schema.metadata.namespace}',
});

describe('kro conformance: cascading deletion', () => {
  let f: RgdFixture;
  let client: RestClient;

  before(async () => {
    f = await rgdFixture('kro-cascade');
    client = f.client;
  });
  after(() => stopRgdController(f.controller));

  it('cascades the deletion to every nested RGD instance and its resources', async () => {
    const apiVersion = `${f.group}/v1alpha1`;
    const cm = (data: Record<string, string>) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: meta('-config'),
      data,
    });
    const level3 = rgd(
      f,
      'level3-resource-rgd',
      { kind: 'Level3Resource', spec: { name: 'string', message: 'string' }, status: {} },
      [
        {
          id: 'configMap',
          template: cm({ name: '${schema.spec.name}', message: '${schema.spec.message}', level: '3' }),
        },
        {
          id: 'secret',
          template: {
            apiVersion: 'v1',
            kind: 'Secret',
            metadata: meta('-secret'),
            type: 'Opaque',
            stringData: { level: '3', resource: '${schema.spec.name}' },
          },
        },
      ],
    );
    const level2 = rgd(
      f,
      'level2-resource-rgd',
      { kind: 'Level2Resource', spec: { name: 'string', description: 'string' }, status: {} },
      [
        {
          id: 'configMap',
          template: cm({
            name: '${schema.spec.name}',
            description: '${schema.spec.description}',
            level: '2',
          }),
        },
        {
          id: 'level3Resource',
          template: {
            apiVersion,
            kind: 'Level3Resource',
            metadata: meta('-level3'),
            spec: {
              name: '${schema.spec.name}-level3',
              message: 'Created by Level2Resource: ${schema.spec.name}',
            },
          },
        },
        {
          id: 'service',
          template: {
            apiVersion: 'v1',
            kind: 'Service',
            metadata: meta('-svc'),
            spec: {
              type: 'ClusterIP',
              ports: [{ port: 80, targetPort: 8080 }],
              selector: { app: '${schema.spec.name}' },
            },
          },
        },
      ],
    );
    const level1 = rgd(
      f,
      'level1-resource-rgd',
      { kind: 'Level1Resource', spec: { applicationName: 'string', environment: 'string' }, status: {} },
      [
        {
          id: 'configMap',
          template: cm({
            applicationName: '${schema.spec.applicationName}',
            environment: '${schema.spec.environment}',
            level: '1',
          }),
        },
        {
          id: 'level2Resource',
          template: {
            apiVersion,
            kind: 'Level2Resource',
            metadata: meta('-level2'),
            spec: {
              name: '${schema.spec.applicationName}-level2',
              description: 'Created by Level1Resource in ${schema.spec.environment}',
            },
          },
        },
        {
          id: 'deployment',
          template: {
            apiVersion: 'apps/v1',
            kind: 'Deployment',
            metadata: meta('-deployment'),
            spec: {
              replicas: 1,
              selector: { matchLabels: { app: '${schema.spec.applicationName}' } },
              template: {
                metadata: { labels: { app: '${schema.spec.applicationName}' } },
                spec: {
                  containers: [{ name: 'app', image: 'nginx:latest', ports: [{ containerPort: 8080 }] }],
                },
              },
            },
          },
        },
      ],
    );
    for (const r of [level3, level2, level1]) {
      await applyRgd(client, r);
      await waitRgd(client, r.metadata.name ?? '', 'Ready', 'True');
    }
    await applyInstance(
      client,
      instance(f, 'Level1Resource', 'test-app', {
        applicationName: 'my-test-app',
        environment: 'production',
      }),
    );
    await waitState(client, f, 'Level1Resource', 'test-app', 'ACTIVE');
    await waitState(client, f, 'Level2Resource', 'test-app-level2', 'ACTIVE');
    await waitState(client, f, 'Level3Resource', 'test-app-level2-level3', 'ACTIVE');
    const inNs = (apiV: string, kind: string, name: string): Ref => ({
      apiVersion: apiV,
      kind,
      namespace: f.ns,
      name,
    });
    const objects = [
      inNs('v1', 'ConfigMap', 'test-app-config'),
      inNs('v1', 'ConfigMap', 'test-app-level2-config'),
      inNs('v1', 'ConfigMap', 'test-app-level2-level3-config'),
      inNs('v1', 'Secret', 'test-app-level2-level3-secret'),
      inNs('v1', 'Service', 'test-app-level2-svc'),
      inNs('apps/v1', 'Deployment', 'test-app-deployment'),
    ];
    for (const o of objects) await present(client, o);
    const level1Ref = inNs(apiVersion, 'Level1Resource', 'test-app');
    await client.delete(level1Ref);
    await absent(client, level1Ref);
    await absent(client, inNs(apiVersion, 'Level2Resource', 'test-app-level2'));
    await absent(client, inNs(apiVersion, 'Level3Resource', 'test-app-level2-level3'));
    for (const o of objects) await absent(client, o);
    for (const name of ['level1-resource-rgd', 'level2-resource-rgd', 'level3-resource-rgd']) {
      await client.delete({ apiVersion: 'kro.run/v1alpha1', kind: 'ResourceGraphDefinition', name });
    }
  });
});
