// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * kro's resource-shape scenarios (kro resource_shape_compatibility_test.go), ported: templates and
 * externalRefs of kinds whose version is outside the `vN` convention (`v1api20200601`, `v1p1beta1`), a
 * CustomResourceDefinition as a template, and a cluster-scoped instance whose child namespace expression
 * yields "" — the failure names `metadata.namespace`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KubeObject, RestClient } from '../../../src/kube/index.ts';
import { uniqueName } from '../../support/controlPlane.ts';
import { type Cond, eventually, waitCrdEstablished } from '../../support/kube.ts';
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

describe('kro conformance: resource shape compatibility', () => {
  let f: RgdFixture;
  let client: RestClient;
  const crds: string[] = [];

  before(async () => {
    f = await rgdFixture('kro-shape');
    client = f.client;
  });
  after(async () => {
    for (const name of crds) {
      await client
        .delete({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name })
        .catch(() => undefined);
    }
    await stopRgdController(f.controller);
  });

  /** kro's installTestCRD: a Widget with `spec.size` and a schemaless status, in its own group. */
  const installWidget = async (group: string, version: string) => {
    const name = `widgets.${group}`;
    crds.push(name);
    await client.create({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name },
      spec: {
        group,
        scope: 'Namespaced',
        names: { kind: 'Widget', listKind: 'WidgetList', plural: 'widgets', singular: 'widget' },
        versions: [
          {
            name: version,
            served: true,
            storage: true,
            subresources: { status: {} },
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: {
                  spec: { type: 'object', properties: { size: { type: 'string' } } },
                  status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
                },
              },
            },
          },
        ],
      },
    } as unknown as KubeObject);
    await waitCrdEstablished(client, name);
    await eventually('Widget in discovery', async () => {
      client.discovery.invalidate(`${group}/${version}`);
      return (
        (await client.discovery.resources(`${group}/${version}`))?.some((r) => r.kind === 'Widget') ||
        undefined
      );
    });
  };
  const active = async (name: string) => {
    const r = await waitRgd(client, name, 'Ready', 'True');
    assert.equal((r.status as { state?: string }).state, 'Active');
  };

  for (const [line, version, kind] of [
    ['date-stamped version', 'v1api20200601', 'TestShapeDateVersion'],
    ['patch-qualified version', 'v1p1beta1', 'TestShapePatchVersion'],
  ] as const) {
    it(`templates a resource whose apiVersion is outside the vN convention: ${line}`, async () => {
      const group = `${uniqueName('shape')}.example.com`;
      await installWidget(group, version);
      const rgdName = `test-shape-${version}`;
      await applyRgd(
        client,
        rgd(f, rgdName, { kind, spec: { name: 'string' } }, [
          {
            id: 'widget',
            template: {
              apiVersion: `${group}/${version}`,
              kind: 'Widget',
              metadata: { name: '${schema.spec.name}-widget' },
              spec: { size: 'large' },
            },
          },
        ]),
      );
      await active(rgdName);
      await applyInstance(client, instance(f, kind, 'shape-version', { name: 'shape-version' }));
      await waitState(client, f, kind, 'shape-version', 'ACTIVE');
      await client.get({
        apiVersion: `${group}/${version}`,
        kind: 'Widget',
        namespace: f.ns,
        name: 'shape-version-widget',
      });
    });
  }

  it('resolves an external reference whose apiVersion is outside the vN convention', async () => {
    const group = `${uniqueName('shaperef')}.example.com`;
    const version = 'v1api20200601';
    await installWidget(group, version);
    await client.create({
      apiVersion: `${group}/${version}`,
      kind: 'Widget',
      metadata: { name: 'existing-widget', namespace: f.ns },
      spec: { size: 'small' },
    } as KubeObject);
    await applyRgd(
      client,
      rgd(f, 'test-shape-ref', { kind: 'TestShapeRefVersion', spec: { name: 'string' } }, [
        {
          id: 'widget',
          externalRef: {
            apiVersion: `${group}/${version}`,
            kind: 'Widget',
            metadata: { name: 'existing-widget', namespace: f.ns },
          },
        },
        {
          id: 'cm',
          template: {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: '${schema.spec.name}-cm' },
            data: { size: '${widget.spec.size}' },
          },
        },
      ]),
    );
    await active('test-shape-ref');
    await applyInstance(client, instance(f, 'TestShapeRefVersion', 'shape-ref', { name: 'shape-ref' }));
    await waitState(client, f, 'TestShapeRefVersion', 'shape-ref', 'ACTIVE');
    await present(client, cmRef(f.ns, 'shape-ref-cm'), (o) => dataOf(o).size === 'small');
  });

  it('creates a CustomResourceDefinition declared by a definition', async () => {
    const group = `${uniqueName('crdtpl')}.example.com`;
    const crdName = `gadgets.${group}`;
    crds.push(crdName);
    await applyRgd(
      client,
      rgd(f, 'test-crd-template', { kind: 'TestCRDTemplate', spec: { name: 'string' } }, [
        {
          id: 'gadgetCRD',
          template: {
            apiVersion: 'apiextensions.k8s.io/v1',
            kind: 'CustomResourceDefinition',
            metadata: { name: crdName },
            spec: {
              group,
              scope: 'Namespaced',
              names: { kind: 'Gadget', listKind: 'GadgetList', plural: 'gadgets', singular: 'gadget' },
              versions: [
                {
                  name: 'v1alpha1',
                  served: true,
                  storage: true,
                  schema: {
                    openAPIV3Schema: {
                      description: 'Gadget is a test resource.',
                      type: 'object',
                      properties: {
                        apiVersion: {
                          description: 'APIVersion defines the versioned schema of this representation.',
                          type: 'string',
                        },
                        kind: {
                          description: 'Kind is a string value representing the REST resource.',
                          type: 'string',
                        },
                        metadata: { type: 'object' },
                        spec: {
                          description: 'GadgetSpec defines the desired state.',
                          type: 'object',
                          properties: { size: { description: 'Size of the gadget.', type: 'string' } },
                        },
                        status: {
                          description: 'GadgetStatus defines the observed state.',
                          type: 'object',
                          properties: { ready: { type: 'boolean' } },
                        },
                      },
                    },
                  },
                },
              ],
            },
          },
        },
      ]),
    );
    await active('test-crd-template');
    await applyInstance(client, instance(f, 'TestCRDTemplate', 'crd-template', { name: 'crd-template' }));
    await waitState(client, f, 'TestCRDTemplate', 'crd-template', 'ACTIVE');
    const crd = await client.get({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      name: crdName,
    });
    assert.equal((crd.spec as { names: { kind: string } }).names.kind, 'Gadget');
  });

  it("names the unresolved field when a cluster-scoped instance's child namespace is empty", async () => {
    await applyRgd(
      client,
      rgd(
        f,
        'test-unresolved-namespace',
        {
          kind: 'TestUnresolvedNamespace',
          scope: 'Cluster',
          spec: { name: 'string', targetNamespace: 'string' },
        },
        [
          {
            id: 'cm',
            template: {
              apiVersion: 'v1',
              kind: 'ConfigMap',
              metadata: { name: '${schema.spec.name}-cm', namespace: '${schema.spec.targetNamespace}' },
              data: { managed: 'yes' },
            },
          },
        ],
      ),
    );
    await active('test-unresolved-namespace');
    const name = uniqueName('unresolved-ns');
    const ref = { apiVersion: `${f.group}/v1alpha1`, kind: 'TestUnresolvedNamespace', name };
    await applyInstance(client, {
      apiVersion: ref.apiVersion,
      kind: ref.kind,
      metadata: { name },
      spec: { name, targetNamespace: '' },
    } as unknown as KubeObject);
    let last = '';
    try {
      await eventually(
        'a condition names metadata.namespace',
        async () => {
          const o = await client.getOrUndefined(ref);
          const conds = ((o?.status as { conditions?: Cond[] } | undefined)?.conditions ?? []) as Cond[];
          last = JSON.stringify(conds);
          return conds.some((c) => (c.message ?? '').includes('metadata.namespace')) || undefined;
        },
        60_000,
      );
    } catch (e) {
      throw new Error(`${(e as Error).message}; last conditions: ${last}`);
    } finally {
      await client.delete(ref).catch(() => undefined);
    }
    assert.ok(last.includes('metadata.namespace'));
  });
});
