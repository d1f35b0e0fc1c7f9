// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * kro's unknown-fields scenarios (kro unknown_fields_test.go), ported: expressions read and write fields
 * under `x-kubernetes-preserve-unknown-fields` and schemaless maps (optional access included, a missing
 * optional key renders empty), and an RGD that templates another RGD's kind and projects its whole status
 * compiles. kro's CRD lives in `kro.run`; ours in a group of its own (one per test run).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KubeObject, RestClient } from '../../../src/kube/index.ts';
import { uniqueName } from '../../support/controlPlane.ts';
import { eventually, waitCrdEstablished } from '../../support/kube.ts';
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
import { cmRef, dataOf, present } from './support.ts';

const preserve = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };

describe('kro conformance: unknown fields', () => {
  let f: RgdFixture;
  let client: RestClient;

  before(async () => {
    f = await rgdFixture('kro-unknown');
    client = f.client;
  });
  after(() => stopRgdController(f.controller));

  it('allows instances with arbitrary unknown nested fields and resolves references', async () => {
    const group = `${uniqueName('unk')}.kgraph.test`;
    const apiVersion = `${group}/v1alpha1`;
    await client.create({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `allowunknowns.${group}` },
      spec: {
        group,
        scope: 'Namespaced',
        names: {
          plural: 'allowunknowns',
          singular: 'allowunknown',
          kind: 'AllowUnknown',
          shortNames: ['alu'],
        },
        versions: [
          {
            name: 'v1alpha1',
            served: true,
            storage: true,
            subresources: { status: {} },
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: {
                  spec: {
                    type: 'object',
                    properties: {
                      static: {
                        type: 'object',
                        properties: {
                          key: { type: 'string' },
                          key2: { type: 'string' },
                          key3: { type: 'string' },
                          key4: { type: 'string' },
                          key5: preserve,
                          key6: preserve,
                        },
                      },
                      config: preserve,
                      anyMap: {
                        type: 'object',
                        additionalProperties: { 'x-kubernetes-preserve-unknown-fields': true },
                      },
                    },
                  },
                  status: {
                    type: 'object',
                    properties: {
                      additional: {
                        type: 'object',
                        additionalProperties: { 'x-kubernetes-preserve-unknown-fields': true },
                      },
                    },
                  },
                },
              },
            },
          },
        ],
      },
    } as unknown as KubeObject);
    await waitCrdEstablished(client, `allowunknowns.${group}`);
    const existing = await eventually('the AllowUnknown object created', async () => {
      try {
        client.discovery.invalidate(apiVersion);
        return await client.create({
          apiVersion,
          kind: 'AllowUnknown',
          metadata: { name: 'existing-allow-unknown', namespace: f.ns },
          spec: { config: { foo: 'bar' } },
        } as KubeObject);
      } catch {
        return undefined;
      }
    });
    await client.update({ ...existing, status: { additional: { key: 'value' } } }, { subresource: 'status' });

    await applyRgd(
      client,
      rgd(
        f,
        'check-unknown-fields',
        { kind: 'AllowUnknownInstance', spec: { name: 'string', nested: 'object' } },
        [
          {
            id: 'example',
            template: {
              apiVersion,
              kind: 'AllowUnknown',
              metadata: { name: '${schema.spec.name}' },
              spec: {
                config: { foo: 'bar' },
                static: {
                  key: '${external.status.additional.key}',
                  key2: '${external.status.additional.?key}',
                  key3: '${external.spec.config.foo}',
                  key4: '${external.spec.config.?foo}',
                  key5: '${external.spec.config}',
                  key6: '${external.status.additional}',
                },
                anyMap: { key: '${external.status.additional.?key}' },
              },
            },
          },
          {
            id: 'configmap',
            template: {
              apiVersion: 'v1',
              kind: 'ConfigMap',
              metadata: {
                name: 'check-unknown-fields',
                annotations: {
                  optionalAnnotationFromMap: '${example.spec.anyMap.?key}',
                  optionalAnnotationFromNestedField: '${schema.spec.nested.?field}',
                },
              },
              data: {
                foo: '${example.spec.config.foo}',
                name: '${schema.spec.name}',
                nested: '${schema.spec.nested.field}',
                optionalNested: '${schema.spec.nested.?field}',
                valueFromMap: '${example.spec.anyMap.key}',
                nonExisting: '${example.spec.anyMap.?abc}',
                optionalStatusField: '${external.status.additional.?key}',
                statusField: '${external.status.additional.key}',
              },
            },
          },
          {
            id: 'external',
            externalRef: {
              apiVersion,
              kind: 'AllowUnknown',
              metadata: { name: 'existing-allow-unknown', namespace: f.ns },
            },
          },
        ],
      ),
    );
    const r = await waitRgd(client, 'check-unknown-fields', 'Ready', 'True');
    assert.equal((r.status as { state?: string }).state, 'Active');
    await applyInstance(
      client,
      instance(f, 'AllowUnknownInstance', 'check-unknown-fields', {
        name: 'name',
        nested: { field: 'value' },
      }),
    );
    await waitState(client, f, 'AllowUnknownInstance', 'check-unknown-fields', 'ACTIVE');
    const cm = await present(client, cmRef(f.ns, 'check-unknown-fields'));
    const data = dataOf(cm);
    assert.equal(data.foo, 'bar');
    assert.equal(data.name, 'name');
    assert.equal(data.nested, 'value');
    assert.equal(data.valueFromMap, 'value');
    assert.equal(data.nonExisting, '');
  });

  it('does not fail when a second RGD embeds the first and projects its status', async () => {
    await applyRgd(
      client,
      rgd(
        f,
        'basic-app',
        {
          kind: 'BasicApp',
          spec: { name: 'string', image: 'string | default="nginx"', replicas: 'integer | default=3' },
          status: {
            deploymentConditions: '${deployment.status.conditions}',
            availableReplicas: '${deployment.status.availableReplicas}',
          },
        },
        [
          {
            id: 'deployment',
            template: {
              apiVersion: 'apps/v1',
              kind: 'Deployment',
              metadata: { name: '${schema.spec.name}' },
              spec: {
                replicas: '${schema.spec.replicas}',
                selector: { matchLabels: { app: '${schema.spec.name}' } },
                template: {
                  metadata: { labels: { app: '${schema.spec.name}' } },
                  spec: {
                    containers: [
                      {
                        name: '${schema.spec.name}',
                        image: '${schema.spec.image}',
                        ports: [{ containerPort: 80 }],
                      },
                    ],
                  },
                },
              },
            },
          },
        ],
      ),
    );
    assert.equal(
      ((await waitRgd(client, 'basic-app', 'Ready', 'True')).status as { state?: string }).state,
      'Active',
    );
    await applyRgd(
      client,
      rgd(
        f,
        'advanced-app',
        {
          kind: 'AdvancedApp',
          spec: { name: 'string', replicas: 'integer | default=3', image: 'string | default="nginx"' },
          status: { deploymentInfo: '${rgddep.status}' },
        },
        [
          {
            id: 'rgddep',
            template: {
              apiVersion: `${f.group}/v1alpha1`,
              kind: 'BasicApp',
              metadata: { name: 'my-advanced-app-${schema.spec.name}' },
              spec: {
                name: '${schema.spec.name}',
                replicas: '${schema.spec.replicas}',
                image: '${schema.spec.image}',
              },
            },
          },
        ],
      ),
    );
    const adv = await waitRgd(client, 'advanced-app', 'Ready', 'True');
    assert.equal((adv.status as { state?: string }).state, 'Active');
  });
});
