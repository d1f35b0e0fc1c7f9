// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * kro's CRD lifecycle scenarios (kro crd_test.go), ported: the generated CRD follows the RGD's schema,
 * names and categories through updates, goes with the RGD, belongs to one RGD only (a second RGD of
 * the same kind stays Inactive without disturbing the first), refuses breaking changes unless allowed,
 * and is put back when edited or deleted by hand.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KubeObject, RestClient } from '../../../src/kube/index.ts';
import {
  applyInstance,
  applyRgd,
  cm,
  conditionOf,
  eventually,
  getRgd,
  instance,
  type RgdFixture,
  rgd,
  stopRgdController,
  waitRgd,
} from '../rgd/support.ts';
import { absent, cmRef, crdDeletingFixture, dataOf, present } from './support.ts';

/** The plurals of the kinds below, as the CRD names them (`TestNames` stays, `TestWatch` takes -es). */
function plural(kind: string): string {
  const k = kind.toLowerCase();
  if (k.endsWith('s')) return k;
  return /(ch|sh|x)$/.test(k) ? `${k}es` : `${k}s`;
}

interface Prop {
  type?: string;
  default?: unknown;
  minimum?: number;
  maximum?: number;
}
type Crd = KubeObject & {
  spec: {
    group: string;
    names: { kind: string; plural: string; shortNames?: string[]; categories?: string[] };
    versions: {
      schema: { openAPIV3Schema: { properties: { spec: { properties: Record<string, Prop> } } } };
    }[];
  };
};

describe('kro conformance: CRD lifecycle', () => {
  let f: RgdFixture;
  let client: RestClient;

  before(async () => {
    f = await crdDeletingFixture('kro-crd');
    client = f.client;
  });
  after(() => stopRgdController(f.controller));

  const crdRef = (kind: string) => ({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    name: `${plural(kind)}.${f.group}`,
  });
  const crdWhere = async (kind: string, check: (c: Crd) => boolean = () => true) =>
    (await present(client, crdRef(kind), (o) => check(o as Crd))) as Crd;
  const specProps = (c: Crd) => c.spec.versions[0]?.schema.openAPIV3Schema.properties.spec.properties ?? {};
  const stateOf = async (name: string) =>
    ((await getRgd(client, name))?.status as { state?: string } | undefined)?.state;
  const waitRgdState = (name: string, state: string) =>
    eventually(`RGD ${name} ${state}`, async () => ((await stateOf(name)) === state ? true : undefined));
  const deleteRgd = (name: string) =>
    client.delete({ apiVersion: 'kro.run/v1alpha1', kind: 'ResourceGraphDefinition', name });
  const owned = (c: Crd, rgdName: string) =>
    c.metadata.labels?.['kro.run/owned'] === 'true' &&
    c.metadata.labels?.['kro.run/resource-graph-definition-name'] === rgdName;

  it('creates the CRD of a new RGD', async () => {
    await applyRgd(
      client,
      rgd(
        f,
        'kro-crd-create',
        { kind: 'TestResource', spec: { field1: 'string', field2: 'integer | default=42' } },
        [
          {
            id: 'res1',
            template: cm('${schema.spec.field1}', { key: 'value', key2: '${string(schema.spec.field2)}' }),
          },
        ],
      ),
    );
    const c = await crdWhere('TestResource');
    assert.equal(c.spec.group, f.group);
    assert.equal(c.spec.names.kind, 'TestResource');
    assert.equal(c.spec.names.plural, 'testresources');
    assert.equal(specProps(c).field1?.type, 'string');
    assert.equal(specProps(c).field2?.type, 'integer');
    assert.equal(specProps(c).field2?.default, 42);
    await deleteRgd('kro-crd-create');
  });

  it('adds a field to the CRD when the RGD gains one', async () => {
    const schema = (spec: Record<string, string>) => ({ kind: 'TestUpdate', spec });
    await applyRgd(
      client,
      rgd(f, 'kro-crd-update', schema({ field1: 'string', field2: 'integer | default=42' }), []),
    );
    await crdWhere('TestUpdate');
    await applyRgd(
      client,
      rgd(
        f,
        'kro-crd-update',
        schema({ field1: 'string', field2: 'integer | default=42', field3: 'boolean' }),
        [],
      ),
    );
    await crdWhere(
      'TestUpdate',
      (c) => Object.keys(specProps(c)).length === 3 && specProps(c).field3?.type === 'boolean',
    );
    await deleteRgd('kro-crd-update');
  });

  it('follows the short names and categories of the RGD', async () => {
    const names = (shortNames?: string[], categories?: string[]) =>
      rgd(f, 'kro-crd-names', { kind: 'TestNames', spec: { field: 'string' }, shortNames, categories }, []);
    const same = (a: string[] | undefined, b: string[]) =>
      JSON.stringify([...(a ?? [])].sort()) === JSON.stringify(b);
    await applyRgd(client, names(['tn', 'tname'], ['kro', 'platform']));
    await crdWhere(
      'TestNames',
      (c) =>
        same(c.spec.names.shortNames, ['tn', 'tname']) && same(c.spec.names.categories, ['kro', 'platform']),
    );
    await applyRgd(client, names(['tn2'], ['platform']));
    await crdWhere(
      'TestNames',
      (c) => same(c.spec.names.shortNames, ['tn2']) && same(c.spec.names.categories, ['platform']),
    );
    await applyRgd(client, names());
    await crdWhere(
      'TestNames',
      (c) => same(c.spec.names.shortNames, []) && same(c.spec.names.categories, []),
    );
    await deleteRgd('kro-crd-names');
  });

  it('deletes the CRD with its RGD', async () => {
    await applyRgd(client, rgd(f, 'kro-crd-delete', { kind: 'TestDelete', spec: { field1: 'string' } }, []));
    await crdWhere('TestDelete');
    await deleteRgd('kro-crd-delete');
    await absent(client, {
      apiVersion: 'kro.run/v1alpha1',
      kind: 'ResourceGraphDefinition',
      name: 'kro-crd-delete',
    });
    await absent(client, crdRef('TestDelete'));
  });

  it('leaves a second RGD of the same kind Inactive', async () => {
    await applyRgd(
      client,
      rgd(f, 'kro-crd-owner-1', { kind: 'ConflictTest', spec: { field1: 'string' } }, []),
    );
    await crdWhere('ConflictTest', (c) => owned(c, 'kro-crd-owner-1'));
    await applyRgd(
      client,
      rgd(f, 'kro-crd-owner-2', { kind: 'ConflictTest', spec: { field1: 'string', field2: 'integer' } }, []),
    );
    await waitRgdState('kro-crd-owner-2', 'Inactive');
    await deleteRgd('kro-crd-owner-1');
    await deleteRgd('kro-crd-owner-2');
  });

  it('keeps serving the first RGD while a conflicting one is created and deleted', async () => {
    await applyRgd(
      client,
      rgd(f, 'kro-crd-preserve-1', { kind: 'PreserveTest', spec: { name: 'string' } }, [
        { id: 'cm', template: cm('${schema.metadata.name}-cm', { key: '${schema.spec.name}' }) },
      ]),
    );
    await waitRgdState('kro-crd-preserve-1', 'Active');
    await applyInstance(client, instance(f, 'PreserveTest', 'test-instance-1', { name: 'value1' }));
    await present(client, cmRef(f.ns, 'test-instance-1-cm'), (o) => dataOf(o).key === 'value1');
    await applyRgd(
      client,
      rgd(f, 'kro-crd-preserve-2', { kind: 'PreserveTest', spec: { name: 'string' } }, []),
    );
    await waitRgdState('kro-crd-preserve-2', 'Inactive');
    await deleteRgd('kro-crd-preserve-2');
    await absent(client, {
      apiVersion: 'kro.run/v1alpha1',
      kind: 'ResourceGraphDefinition',
      name: 'kro-crd-preserve-2',
    });
    assert.equal(await stateOf('kro-crd-preserve-1'), 'Active');
    await applyInstance(client, instance(f, 'PreserveTest', 'test-instance-2', { name: 'value2' }));
    await present(client, cmRef(f.ns, 'test-instance-2-cm'), (o) => dataOf(o).key === 'value2');
    for (const name of ['test-instance-1', 'test-instance-2']) {
      await client.delete({ apiVersion: `${f.group}/v1alpha1`, kind: 'PreserveTest', namespace: f.ns, name });
    }
    await deleteRgd('kro-crd-preserve-1');
  });

  it('refuses a breaking schema change until the RGD allows it', async () => {
    const schema = (spec: Record<string, string>) => ({ kind: 'BreakingTest', spec });
    await applyRgd(
      client,
      rgd(f, 'kro-crd-breaking', schema({ field1: 'string', field2: 'integer | default=42' }), []),
    );
    await crdWhere('BreakingTest');
    await waitRgdState('kro-crd-breaking', 'Active');
    await applyRgd(client, rgd(f, 'kro-crd-breaking', schema({ field1: 'string' }), []));
    await eventually('KindReady=False naming the breaking change', async () => {
      const r = await getRgd(client, 'kro-crd-breaking');
      const c = conditionOf(r, 'KindReady');
      return (r?.status as { state?: string } | undefined)?.state === 'Inactive' &&
        c?.status === 'False' &&
        (c.message ?? '').includes('breaking')
        ? true
        : undefined;
    });
    await applyRgd(
      client,
      rgd(f, 'kro-crd-breaking', schema({ field1: 'string' }), [], {
        'kro.run/allow-breaking-changes': 'true',
      }),
    );
    await waitRgdState('kro-crd-breaking', 'Active');
    await crdWhere('BreakingTest', (c) => !('field2' in specProps(c)) && 'field1' in specProps(c));
    await deleteRgd('kro-crd-breaking');
  });

  it('applies a non-breaking schema change', async () => {
    const schema = (spec: Record<string, string>) => ({ kind: 'NonBreakingTest', spec });
    await applyRgd(client, rgd(f, 'kro-crd-nonbreaking', schema({ field1: 'string' }), []));
    await waitRgdState('kro-crd-nonbreaking', 'Active');
    await applyRgd(
      client,
      rgd(f, 'kro-crd-nonbreaking', schema({ field1: 'string', field2: 'integer | default=42' }), []),
    );
    await crdWhere('NonBreakingTest', (c) => specProps(c).field2?.type === 'integer');
    await waitRgdState('kro-crd-nonbreaking', 'Active');
    await applyRgd(
      client,
      rgd(f, 'kro-crd-nonbreaking', schema({ field1: 'string', field2: 'integer | default=52' }), []),
    );
    await crdWhere(
      'NonBreakingTest',
      (c) => specProps(c).field2?.type === 'integer' && specProps(c).field2?.default === 52,
    );
    await waitRgd(client, 'kro-crd-nonbreaking', 'Ready', 'True');
    assert.equal(await stateOf('kro-crd-nonbreaking'), 'Active');
    await deleteRgd('kro-crd-nonbreaking');
  });

  it('drops minimum and maximum from the CRD when the markers are removed', async () => {
    const schema = (replicas: string) => ({ kind: 'ConstraintRemoval', spec: { replicas } });
    await applyRgd(
      client,
      rgd(f, 'kro-crd-constraints', schema('integer | default=3 minimum=1 maximum=10'), []),
    );
    await waitRgdState('kro-crd-constraints', 'Active');
    await crdWhere(
      'ConstraintRemoval',
      (c) => specProps(c).replicas?.minimum === 1 && specProps(c).replicas?.maximum === 10,
    );
    await applyRgd(client, rgd(f, 'kro-crd-constraints', schema('integer | default=3'), []));
    await crdWhere(
      'ConstraintRemoval',
      (c) => specProps(c).replicas?.minimum === undefined && specProps(c).replicas?.maximum === undefined,
    );
    await waitRgd(client, 'kro-crd-constraints', 'Ready', 'True');
    assert.equal(await stateOf('kro-crd-constraints'), 'Active');
    await deleteRgd('kro-crd-constraints');
  });

  it('puts back a CRD edited by hand', async () => {
    const name = 'kro-crd-watch';
    await applyRgd(
      client,
      rgd(f, name, { kind: 'TestWatch', spec: { field1: 'string', field2: 'integer | default=42' } }, []),
    );
    await crdWhere(
      'TestWatch',
      (c) =>
        owned(c, name) &&
        specProps(c).field1?.type === 'string' &&
        specProps(c).field2?.type === 'integer' &&
        specProps(c).field2?.default === 42,
    );
    // As kro does, the edit is retried on a conflict (the controller may still be writing the CRD).
    const afterEdit = await eventually('CRD edited by hand', async () => {
      const edited = structuredClone((await client.get(crdRef('TestWatch'))) as Crd);
      delete edited.spec.versions[0]?.schema.openAPIV3Schema.properties.spec.properties.field2;
      return client.update(edited);
    });
    await crdWhere(
      'TestWatch',
      (c) =>
        c.metadata.resourceVersion !== afterEdit.metadata.resourceVersion &&
        specProps(c).field1?.type === 'string' &&
        specProps(c).field2?.type === 'integer' &&
        specProps(c).field2?.default === 42,
    );
    await deleteRgd(name);
  });

  it('recreates a CRD deleted by hand', async () => {
    const name = 'kro-crd-ext-deletion';
    await applyRgd(
      client,
      rgd(f, name, { kind: 'TestExtDeletion', spec: { field1: 'string', field2: 'integer | default=42' } }, [
        {
          id: 'res1',
          template: cm('${schema.spec.field1}', { key: 'value', key2: '${string(schema.spec.field2)}' }),
        },
      ]),
    );
    await waitRgdState(name, 'Active');
    const first = await crdWhere('TestExtDeletion', (c) => owned(c, name));
    await client.delete(crdRef('TestExtDeletion'));
    await crdWhere(
      'TestExtDeletion',
      (c) =>
        c.metadata.uid !== first.metadata.uid &&
        owned(c, name) &&
        specProps(c).field1?.type === 'string' &&
        specProps(c).field2?.type === 'integer' &&
        specProps(c).field2?.default === 42,
    );
    await waitRgdState(name, 'Active');
    await deleteRgd(name);
  });
});
