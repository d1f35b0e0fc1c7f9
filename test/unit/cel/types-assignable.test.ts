import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Environment } from '@marcbachmann/cel-js';
import { type Assignability, isAssignable, isTypeAssignable } from '../../../src/cel/types/assignable.ts';
import type { OpenApiSchema } from '../../../src/cel/types/openapi.ts';
import { schemaAtPath } from '../../../src/cel/types/path.ts';
import { SchemaTypeRegistry } from '../../../src/cel/types/registry.ts';

const container: OpenApiSchema = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    image: { type: 'string' },
    ports: { type: 'array', items: { type: 'object', properties: { containerPort: { type: 'integer' } } } },
  },
};
const labels: OpenApiSchema = { type: 'object', additionalProperties: { type: 'string' } };

function mismatch(r: Assignability) {
  if (r.ok) assert.fail('expected a mismatch');
  return r;
}

describe('isAssignable: design/graph.md §17.2 rules', () => {
  const reg = new SchemaTypeRegistry();

  it('rule 1: identical CEL types are assignable', () => {
    assert.deepEqual(isAssignable('string', { type: 'string' }, reg), { ok: true });
    assert.deepEqual(isAssignable('list<string>', { type: 'array', items: { type: 'string' } }, reg), {
      ok: true,
    });
    assert.deepEqual(isAssignable('bytes', { type: 'string', format: 'byte' }, reg), { ok: true });
    assert.deepEqual(
      isAssignable('google.protobuf.Timestamp', { type: 'string', format: 'date-time' }, reg),
      {
        ok: true,
      },
    );
  });

  it('rule 2: primitives of different kinds are a kind mismatch', () => {
    const r = mismatch(isAssignable('int', { type: 'string' }, reg, { basePath: 'spec.name' }));
    assert.equal(r.fieldPath, 'spec.name');
    assert.equal(r.expected, 'string');
    assert.equal(r.got, 'int');
    assert.match(r.message, /kind mismatch/);
    assert.equal(isAssignable('int', { type: 'number' }, reg).ok, false);
    assert.equal(isAssignable('string', { type: 'string', format: 'byte' }, reg).ok, false);
    assert.equal(isAssignable('list<string>', { type: 'string' }, reg).ok, false);
  });

  it('a list or map where a ConfigMap data string is expected is a "type mismatch"', () => {
    const data: OpenApiSchema = { type: 'object', additionalProperties: { type: 'string' } };
    const r = mismatch(
      isAssignable('list<string>', data.additionalProperties as OpenApiSchema, reg, { basePath: 'data.key' }),
    );
    assert.match(r.message, /type mismatch/);
    assert.equal(r.fieldPath, 'data.key');
    const m = mismatch(isAssignable('map<string, list<int>>', data, reg, { basePath: 'data' }));
    assert.equal(m.fieldPath, 'data[*]');
    assert.match(m.message, /map value type incompatible: type mismatch/);
  });

  it('rule 3: lists are compared element-wise, maps by key and value', () => {
    const r = mismatch(isAssignable('list<int>', { type: 'array', items: { type: 'string' } }, reg));
    assert.equal(r.fieldPath, '[*]');
    assert.match(r.message, /list element type incompatible/);
    assert.equal(
      isAssignable(
        'list<list<int>>',
        { type: 'array', items: { type: 'array', items: { type: 'integer' } } },
        reg,
      ).ok,
      true,
    );
    const m = mismatch(isAssignable('map<string, int>', labels, reg));
    assert.match(m.message, /map value type incompatible/);
    assert.equal(isAssignable('map<int, string>', labels, reg).ok, false);
    assert.equal(isAssignable('map<string, string>', labels, reg).ok, true);
  });

  it('rule 4: map → object and object → map are compatible when the parts fit', () => {
    const reg2 = new SchemaTypeRegistry();
    const meta = reg2.typeFor(
      { type: 'object', properties: { app: { type: 'string' }, tier: { type: 'string' } } },
      'Meta',
    );
    assert.equal(isTypeAssignable(meta, 'map<string, string>', reg2).ok, true);
    assert.equal(
      isAssignable('map<string, string>', { type: 'object', properties: { app: { type: 'string' } } }, reg2)
        .ok,
      true,
    );
    const bad = mismatch(
      isAssignable('map<string, int>', { type: 'object', properties: { app: { type: 'string' } } }, reg2),
    );
    assert.match(bad.message, /map value incompatible with object field "app"/);
    assert.equal(
      isAssignable('map<int, string>', { type: 'object', properties: { a: { type: 'string' } } }, reg2).ok,
      false,
    );
    const withInt = reg2.typeFor({ type: 'object', properties: { n: { type: 'integer' } } }, 'WithInt');
    const r = mismatch(isTypeAssignable(withInt, 'map<string, string>', reg2));
    assert.equal(r.fieldPath, '.n');
  });

  it('rule 5: an output object must have a subset of the expected fields', () => {
    const reg2 = new SchemaTypeRegistry();
    const subset = reg2.typeFor({ type: 'object', properties: { name: { type: 'string' } } }, 'Subset');
    const extra = reg2.typeFor(
      { type: 'object', properties: { name: { type: 'string' }, extraField: { type: 'string' } } },
      'Extra',
    );
    const wrong = reg2.typeFor({ type: 'object', properties: { name: { type: 'integer' } } }, 'Wrong');
    assert.equal(isAssignable(subset, container, reg2).ok, true);
    const e = mismatch(isAssignable(extra, container, reg2, { basePath: 'spec.containers[0]' }));
    assert.equal(e.fieldPath, 'spec.containers[0].extraField');
    assert.match(e.message, /field "extraField" exists in output but not in expected type/);
    const w = mismatch(isAssignable(wrong, container, reg2));
    assert.equal(w.fieldPath, '.name');
    assert.match(w.message, /field "name" has incompatible type: type mismatch: kind mismatch/);
    assert.equal(w.expected, 'string');
    assert.equal(w.got, 'int');
  });

  it('rule 5 inside lists: a list of objects with an extra field names the path', () => {
    const reg2 = new SchemaTypeRegistry();
    const item = reg2.typeFor(
      { type: 'object', properties: { name: { type: 'string' }, cachedMethods: { type: 'string' } } },
      'Item',
    );
    const r = mismatch(
      isAssignable(`list<${item}>`, { type: 'array', items: container }, reg2, {
        basePath: 'spec.containers',
      }),
    );
    assert.equal(r.fieldPath, 'spec.containers[*].cachedMethods');
    assert.match(r.message, /list element type incompatible: field "cachedMethods" exists in output/);
  });

  it('rule 6: optional<T> is assignable to T (and can be refused)', () => {
    assert.equal(isAssignable('optional<string>', { type: 'string' }, reg).ok, true);
    assert.equal(isAssignable('optional<int>', { type: 'string' }, reg).ok, false);
    assert.equal(
      isAssignable('optional<string>', { type: 'string' }, reg, { allowOptional: false }).ok,
      false,
    );
  });

  it('rule 7: dyn is compatible with everything, in both directions and nested', () => {
    assert.equal(isAssignable('dyn', { type: 'string' }, reg).ok, true);
    assert.equal(isAssignable('list<dyn>', { type: 'array', items: container }, reg).ok, true);
    assert.equal(isAssignable('map<string, dyn>', container, reg).ok, true);
    assert.equal(isAssignable('int', { 'x-kubernetes-int-or-string': true }, reg).ok, true);
    assert.equal(
      isAssignable('list<int>', { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }, reg).ok,
      true,
    );
  });

  it('generic results of empty literals ([] and {}) fit any list or map', () => {
    assert.equal(isAssignable('list<T>', { type: 'array', items: { type: 'string' } }, reg).ok, true);
    assert.equal(isAssignable('map<K, V>', labels, reg).ok, true);
    assert.equal(isAssignable('map<K, V>', container, reg).ok, true);
  });

  it('null is accepted (renders JSON null)', () => {
    assert.equal(isAssignable('null', { type: 'string' }, reg).ok, true);
  });

  it('named types the registry does not know must match by name', () => {
    assert.equal(isTypeAssignable('Quantity', 'Quantity', reg).ok, true);
    assert.equal(isTypeAssignable('Quantity', 'string', reg).ok, false);
  });

  it('works end to end with checker output from a raw Environment', () => {
    const reg2 = new SchemaTypeRegistry();
    const src = reg2.typeFor(
      {
        type: 'object',
        properties: {
          spec: { type: 'object', properties: { replicas: { type: 'integer' }, name: { type: 'string' } } },
        },
      },
      'Schema',
    );
    const env = new Environment();
    reg2.registerInto(env);
    env.registerVariable('schema', src);
    const replicas = env.check('schema.spec.replicas').type ?? '';
    assert.equal(isAssignable(replicas, { type: 'integer' }, reg2).ok, true);
    assert.equal(isAssignable(replicas, { type: 'string' }, reg2).ok, false);
    const spec = env.check('schema.spec').type ?? '';
    assert.equal(
      isAssignable(
        spec,
        { type: 'object', properties: { replicas: { type: 'integer' }, name: { type: 'string' } } },
        reg2,
      ).ok,
      true,
    );
  });
});

describe('schemaAtPath', () => {
  const root: OpenApiSchema = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          containers: { type: 'array', items: container },
          labels,
          extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
          port: { 'x-kubernetes-int-or-string': true },
        },
      },
    },
  };

  it('walks properties, items and additionalProperties', () => {
    const image = container.properties!.image!;
    assert.deepEqual(schemaAtPath(root, ['spec', 'containers', 0, 'image']), {
      kind: 'schema',
      schema: image,
      original: image,
    });
    const label = labels.additionalProperties as OpenApiSchema;
    assert.deepEqual(schemaAtPath(root, ['spec', 'labels', 'app']), {
      kind: 'schema',
      schema: label,
      original: label,
    });
  });

  it('reports schemaless regions (preserve-unknown-fields, int-or-string)', () => {
    assert.deepEqual(schemaAtPath(root, ['spec', 'extra', 'a', 0, 'b']), { kind: 'schemaless' });
    assert.deepEqual(schemaAtPath(root, ['spec', 'port']), { kind: 'schemaless' });
  });

  it('reports the first unknown segment', () => {
    assert.deepEqual(schemaAtPath(root, ['spec', 'nope', 'x']), { kind: 'unknown', at: 1 });
    assert.deepEqual(schemaAtPath(root, ['spec', 'containers', 'x']), { kind: 'unknown', at: 2 });
  });

  it('knows apiVersion/kind/metadata at a resource root', () => {
    const r = schemaAtPath(root, ['metadata', 'name'], { resourceRoot: true });
    assert.equal(r.kind === 'schema' && r.schema.type, 'string');
    assert.deepEqual(schemaAtPath(root, ['kind']), { kind: 'unknown', at: 0 });
  });

  it('resolves refs on the way', () => {
    const resolve = (ref: string) => (ref === '#/c' ? container : undefined);
    const r = schemaAtPath(
      { type: 'array', items: { allOf: [{ $ref: '#/c' }] } },
      [3, 'ports', 0, 'containerPort'],
      {
        resolve,
      },
    );
    assert.equal(r.kind === 'schema' && r.schema.type, 'integer');
  });

  it('returns the unflattened field schema as original, so derived types are reused', () => {
    const resolve = (ref: string) => (ref === '#/c' ? container : undefined);
    const wrapper: OpenApiSchema = { allOf: [{ $ref: '#/c' }], description: 'the container' };
    const parent: OpenApiSchema = { type: 'object', properties: { main: wrapper } };
    const r = schemaAtPath(parent, ['main'], { resolve });
    assert.equal(r.kind, 'schema');
    if (r.kind !== 'schema') return;
    assert.equal(r.original, wrapper);
    assert.equal(r.schema.type, 'object');
    const reg = new SchemaTypeRegistry({ resolve });
    assert.equal(isAssignable('map<string, dyn>', r.original, reg).ok, true);
    const count = reg.objectTypes.length;
    assert.equal(
      isAssignable('map<string, string>', r.original, reg).ok,
      false,
      'ports is a list, not a string',
    );
    assert.equal(reg.objectTypes.length, count);
  });
});
