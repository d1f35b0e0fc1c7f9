// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * kro's nested-RGD scenarios (kro nested_test.go), ported: an RGD whose resource is another RGD, its
 * schema's field type and default taken from the instance; the nested RGD becomes Active and goes with
 * the instance. The nested RGD carries our test-suite label so that this file's controller serves it.
 */
import { after, before, describe, it } from 'node:test';
import type { KubeObject, RestClient } from '../../../src/kube/index.ts';
import { uniqueName } from '../../support/controlPlane.ts';
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
import { absent, present } from './support.ts';

describe('kro conformance: nested RGDs', () => {
  let f: RgdFixture;
  let client: RestClient;

  before(async () => {
    f = await rgdFixture('kro-nested');
    client = f.client;
  });
  after(() => stopRgdController(f.controller));

  const rgdRef = (name: string) => ({
    apiVersion: 'kro.run/v1alpha1',
    kind: 'ResourceGraphDefinition',
    name,
  });
  const isActive = (o: KubeObject) => (o.status as { state?: string } | undefined)?.state === 'Active';

  /** kro's nestedResourceGraphDefinition: a parent whose one resource is an RGD named by the spec's type. */
  const parent = (name: string, token: string) =>
    rgd(
      f,
      name,
      { kind: `NestedRGD${name.replace(/-/g, '')}`, spec: { type: 'string', default: 'string' }, status: {} },
      [
        {
          id: 'nested',
          template: {
            apiVersion: 'kro.run/v1alpha1',
            kind: 'ResourceGraphDefinition',
            metadata: {
              name: `rg-nested-\${schema.spec.type}-${token}`,
              labels: { 'kgraph.test/suite': f.suite },
            },
            spec: {
              schema: {
                apiVersion: 'v1alpha1',
                group: `nested${token}.${f.group}`,
                kind: 'NestedRGD${schema.spec.type}',
                spec: {
                  name: 'string',
                  somefield: { nested: '${schema.spec.type} | default=${schema.spec.default}' },
                },
              },
            },
          },
        },
      ],
    );

  it('creates a nested RGD that becomes Active and deletes it with the instance', async () => {
    const token = uniqueName('t').slice(-5);
    const r = parent('testnestedrg', token);
    const kind = (r.spec as { schema: { kind: string } }).schema.kind;
    await applyRgd(client, r);
    await waitRgd(client, 'testnestedrg', 'Ready', 'True');
    await applyInstance(client, instance(f, kind, 'test-string', { type: 'string', default: '10' }));
    await waitState(client, f, kind, 'test-string', 'ACTIVE');
    await present(client, rgdRef(`rg-nested-string-${token}`), isActive);
    await client.delete({ apiVersion: `${f.group}/v1alpha1`, kind, namespace: f.ns, name: 'test-string' });
    await absent(client, rgdRef(`rg-nested-string-${token}`));
    await client.delete(rgdRef('testnestedrg'));
  });

  it('creates nested RGDs whose schema fields have different types', async () => {
    const token = uniqueName('t').slice(-5);
    const r = parent('testmultirg', token);
    const kind = (r.spec as { schema: { kind: string } }).schema.kind;
    await applyRgd(client, r);
    await waitRgd(client, 'testmultirg', 'Ready', 'True');
    const cases = [
      { name: 'testinteger', type: 'integer', default: '10' },
      { name: 'teststring', type: 'string', default: 'default' },
    ];
    for (const c of cases) {
      await applyInstance(client, instance(f, kind, c.name, { type: c.type, default: c.default }));
    }
    for (const c of cases) {
      await present(client, rgdRef(`rg-nested-${c.type}-${token}`), isActive);
      await waitState(client, f, kind, c.name, 'ACTIVE');
    }
    for (const c of cases) {
      await client.delete({ apiVersion: `${f.group}/v1alpha1`, kind, namespace: f.ns, name: c.name });
    }
    for (const c of cases) await absent(client, rgdRef(`rg-nested-${c.type}-${token}`));
    await client.delete(rgdRef('testmultirg'));
    await absent(client, rgdRef('testmultirg'));
  });
});
