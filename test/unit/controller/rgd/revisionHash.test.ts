import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fnv64a, rgdSpecHash } from '../../../../src/controller/rgd/revisionHash.ts';
import { fnv32a, graphRevisionName } from '../../../../src/controller/rgd/revisionName.ts';

const spec = () => ({
  schema: { apiVersion: 'v1alpha1', kind: 'App', spec: { name: 'string', replicas: 'integer | default=1' } },
  resources: [
    {
      id: 'b',
      template: { apiVersion: 'v1', kind: 'ConfigMap', data: { x: '1', y: '2' } },
      readyWhen: ['r1', 'r2'],
    },
    { id: 'a', template: { kind: 'ConfigMap', apiVersion: 'v1' }, includeWhen: ['i2', 'i1'] },
  ],
});

describe('GraphRevision spec hash', () => {
  it('FNV-64a and FNV-32a agree with the published test vectors', () => {
    assert.equal(fnv64a(''), 'cbf29ce484222325');
    assert.equal(fnv64a('a'), 'af63dc4c8601ec8c');
    assert.equal(fnv32a(''), '811c9dc5');
    assert.equal(fnv32a('a'), 'e40c292c');
  });

  it('is blind to key order, resource order, readyWhen/includeWhen order and defaulted fields', () => {
    const base = rgdSpecHash(spec());
    const reordered = spec();
    reordered.resources.reverse();
    reordered.resources[1]!.readyWhen = ['r2', 'r1'];
    reordered.resources[0]!.includeWhen = ['i1', 'i2'];
    (reordered.resources[1]!.template as Record<string, unknown>).data = { y: '2', x: '1' };
    assert.equal(rgdSpecHash(reordered), base);
    const defaulted = spec() as ReturnType<typeof spec> & { schema: Record<string, unknown> };
    defaulted.schema.group = 'kro.run';
    defaulted.schema.scope = 'Namespaced';
    defaulted.schema.additionalPrinterColumns = [];
    assert.equal(rgdSpecHash(defaulted), base);
  });

  it('changes with the meaning: a value, a default, the forEach order', () => {
    const base = rgdSpecHash(spec());
    const value = spec();
    (value.resources[0]!.template as Record<string, unknown>).data = { x: '1', y: '3' };
    assert.notEqual(rgdSpecHash(value), base);
    const schema = spec();
    schema.schema.spec.replicas = 'integer | default=2';
    assert.notEqual(rgdSpecHash(schema), base);
    const each = (order: string[]) =>
      rgdSpecHash({
        ...spec(),
        resources: [{ id: 'c', template: {}, forEach: order.map((k) => ({ [k]: k })) }],
      });
    assert.notEqual(each(['p', 'q']), each(['q', 'p']));
  });
});

describe('GraphRevision names', () => {
  it('are <rgd>-r<5 digits>', () => {
    assert.equal(graphRevisionName('webapp', 1), 'webapp-r00001');
    assert.equal(graphRevisionName('webapp', 123456), 'webapp-r123456');
  });

  it('past 253 characters, cut the RGD name, trim trailing separators and append its hash', () => {
    const long = `${'a'.repeat(236)}.${'b'.repeat(16)}`;
    const name = graphRevisionName(long, 7);
    assert.equal(name.length <= 253, true);
    assert.equal(name, `${'a'.repeat(236)}-r00007-${fnv32a(long)}`);
    const other = graphRevisionName(`${'a'.repeat(236)}.${'c'.repeat(16)}`, 7);
    assert.notEqual(other, name);
    assert.equal(graphRevisionName('.'.repeat(253), 1), `gr-r00001-${fnv32a('.'.repeat(253))}`);
  });
});
