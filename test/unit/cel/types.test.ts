import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Environment } from '@marcbachmann/cel-js';
import { flatten, singleRef } from '../../../src/cel/types/flatten.ts';
import { componentsResolver, type OpenApiSchema } from '../../../src/cel/types/openapi.ts';
import { celTypeForSchema, SchemaTypeRegistry } from '../../../src/cel/types/registry.ts';
import { markDynamic } from '../../../src/cel/types/typeless.ts';
import { formatTypeString, parseTypeString } from '../../../src/cel/types/typeString.ts';

const s = (schema: OpenApiSchema) => schema;

/** A small components document in the shape of the Kubernetes OpenAPI v3 documents. */
const doc = {
  components: {
    schemas: {
      'io.k8s.api.core.v1.Container': s({
        type: 'object',
        required: ['name'],
        properties: {
          name: { type: 'string' },
          image: { type: 'string' },
          ports: {
            type: 'array',
            'x-kubernetes-list-type': 'map',
            items: {
              allOf: [{ $ref: '#/components/schemas/io.k8s.api.core.v1.ContainerPort' }],
              default: {},
            },
          },
          resources: {
            type: 'object',
            properties: {
              limits: {
                type: 'object',
                additionalProperties: {
                  $ref: '#/components/schemas/io.k8s.apimachinery.pkg.api.resource.Quantity',
                },
              },
            },
          },
        },
      }),
      'io.k8s.api.core.v1.ContainerPort': s({
        type: 'object',
        properties: { containerPort: { type: 'integer', format: 'int32' }, name: { type: 'string' } },
      }),
      'io.k8s.apimachinery.pkg.api.resource.Quantity': s({
        oneOf: [{ type: 'string' }, { type: 'number' }],
      }),
      'io.k8s.api.core.v1.PodSpec': s({
        type: 'object',
        properties: {
          containers: {
            type: 'array',
            items: { allOf: [{ $ref: '#/components/schemas/io.k8s.api.core.v1.Container' }], default: {} },
          },
        },
      }),
      'io.k8s.apiextensions.v1.JSONSchemaProps': s({
        type: 'object',
        properties: {
          type: { type: 'string' },
          properties: {
            type: 'object',
            additionalProperties: { $ref: '#/components/schemas/io.k8s.apiextensions.v1.JSONSchemaProps' },
          },
          items: { $ref: '#/components/schemas/io.k8s.apiextensions.v1.JSONSchemaProps' },
        },
      }),
    },
  },
};
const resolve = componentsResolver(doc);

describe('parseTypeString', () => {
  it('parses nested generics and normalises bare list/map and aliases', () => {
    assert.deepEqual(parseTypeString('map<string, list<Foo>>'), {
      name: 'map',
      params: [
        { name: 'string', params: [] },
        { name: 'list', params: [{ name: 'Foo', params: [] }] },
      ],
    });
    assert.equal(formatTypeString(parseTypeString('list')), 'list<dyn>');
    assert.equal(formatTypeString(parseTypeString('map')), 'map<dyn, dyn>');
    assert.equal(formatTypeString(parseTypeString('timestamp')), 'google.protobuf.Timestamp');
    assert.equal(formatTypeString(parseTypeString('optional<a.b.C>')), 'optional<a.b.C>');
  });

  it('rejects malformed type strings', () => {
    assert.throws(() => parseTypeString('list<int'), /invalid CEL type/);
    assert.throws(() => parseTypeString('map<string,>'), /invalid CEL type/);
    assert.throws(() => parseTypeString('int x'), /invalid CEL type/);
  });
});

describe('flatten', () => {
  it('resolves $ref and merges allOf wrappers, keeping documentation siblings', () => {
    const f = flatten(
      { allOf: [{ $ref: '#/components/schemas/io.k8s.api.core.v1.ContainerPort' }], description: 'd' },
      resolve,
    );
    assert.deepEqual(f.refs, ['#/components/schemas/io.k8s.api.core.v1.ContainerPort']);
    assert.equal(f.schema.type, 'object');
    assert.equal(f.schema.description, 'd');
    assert.deepEqual(Object.keys(f.schema.properties ?? {}), ['containerPort', 'name']);
  });

  it('merges properties of several allOf members', () => {
    const f = flatten(
      {
        allOf: [
          { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
          { properties: { b: { type: 'integer' } }, required: ['b'] },
        ],
      },
      undefined,
    );
    assert.deepEqual(Object.keys(f.schema.properties ?? {}), ['b', 'a']);
    assert.deepEqual(f.schema.required?.sort(), ['a', 'b']);
  });

  it('reports unresolved refs and cycles', () => {
    assert.deepEqual(flatten({ $ref: '#/components/schemas/nope' }, resolve).unresolved, [
      '#/components/schemas/nope',
    ]);
    const ref = '#/components/schemas/io.k8s.api.core.v1.ContainerPort';
    assert.equal(flatten({ $ref: ref }, resolve, new Set([ref])).cyclic, true);
  });

  it('singleRef recognises ref wrappers and rejects typed ones', () => {
    assert.equal(singleRef({ $ref: '#/x' }), '#/x');
    assert.equal(singleRef({ allOf: [{ $ref: '#/x' }], default: {}, description: 'd' }), '#/x');
    assert.equal(singleRef({ allOf: [{ $ref: '#/x' }], properties: {} }), undefined);
    assert.equal(singleRef({ type: 'string' }), undefined);
  });
});

describe('SchemaTypeRegistry: scalar and container mapping', () => {
  const reg = new SchemaTypeRegistry();
  const cases: [OpenApiSchema, string][] = [
    [{ type: 'string' }, 'string'],
    [{ type: 'string', format: 'byte' }, 'bytes'],
    [{ type: 'string', format: 'date-time' }, 'google.protobuf.Timestamp'],
    [{ type: 'string', enum: ['a', 'b'] }, 'string'],
    [{ type: 'integer', format: 'int32' }, 'int'],
    [{ type: 'number' }, 'double'],
    [{ type: 'boolean' }, 'bool'],
    [{ type: 'array', items: { type: 'string' } }, 'list<string>'],
    [{ type: 'array' }, 'list<dyn>'],
    [{ type: 'object', additionalProperties: { type: 'string' } }, 'map<string, string>'],
    [{ type: 'object', additionalProperties: true }, 'map<string, dyn>'],
    [{ type: 'object' }, 'map<string, dyn>'],
    [{ 'x-kubernetes-int-or-string': true }, 'dyn'],
    [
      { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { a: { type: 'string' } } },
      'dyn',
    ],
    [{ anyOf: [{ type: 'integer' }, { type: 'string' }] }, 'dyn'],
    [{ type: 'object', oneOf: [{ required: ['a'] }], properties: { a: { type: 'string' } } }, 'dyn'],
    [{}, 'dyn'],
    [{ type: 'array', items: { type: 'array', items: { type: 'integer' } } }, 'list<list<int>>'],
  ];
  for (const [schema, want] of cases) {
    it(`${JSON.stringify(schema)} → ${want}`, () => {
      assert.equal(celTypeForSchema(schema, reg, 'X'), want);
    });
  }
});

describe('SchemaTypeRegistry: object types', () => {
  it('creates named object types for nested objects, dependencies first', () => {
    const reg = new SchemaTypeRegistry();
    const t = reg.typeFor(
      {
        type: 'object',
        properties: {
          spec: {
            type: 'object',
            properties: {
              name: { type: 'string' },
              items: { type: 'array', items: { type: 'object', properties: { v: { type: 'integer' } } } },
              byKey: {
                type: 'object',
                additionalProperties: { type: 'object', properties: { w: { type: 'boolean' } } },
              },
            },
          },
        },
      },
      'App',
    );
    assert.equal(t, 'App');
    assert.deepEqual(
      reg.objectTypes.map((o) => o.name),
      ['App_spec_items_item', 'App_spec_byKey_value', 'App_spec', 'App'],
    );
    assert.deepEqual(reg.objectType('App_spec')?.fields, {
      name: 'string',
      items: 'list<App_spec_items_item>',
      byKey: 'map<string, App_spec_byKey_value>',
    });
  });

  it('names $ref types after the component and reuses them', () => {
    const reg = new SchemaTypeRegistry({ resolve });
    const t = reg.typeFor({ $ref: '#/components/schemas/io.k8s.api.core.v1.PodSpec' }, 'Pod_spec');
    assert.equal(t, 'PodSpec');
    assert.equal(reg.objectType('PodSpec')?.fields.containers, 'list<Container>');
    assert.deepEqual(reg.objectType('Container')?.fields, {
      name: 'string',
      image: 'string',
      ports: 'list<ContainerPort>',
      resources: 'Container_resources',
    });
    assert.equal(reg.objectType('Container_resources')?.fields.limits, 'map<string, dyn>');
    const before = reg.objectTypes.length;
    assert.equal(
      reg.typeFor({ allOf: [{ $ref: '#/components/schemas/io.k8s.api.core.v1.Container' }] }, 'Other'),
      'Container',
    );
    assert.equal(reg.objectTypes.length, before);
  });

  it('cuts recursive schemas to dyn at the cycle', () => {
    const reg = new SchemaTypeRegistry({ resolve });
    const t = reg.typeFor({ $ref: '#/components/schemas/io.k8s.apiextensions.v1.JSONSchemaProps' }, 'P');
    assert.equal(t, 'JSONSchemaProps');
    assert.deepEqual(reg.objectType('JSONSchemaProps')?.fields, {
      type: 'string',
      properties: 'map<string, dyn>',
      items: 'dyn',
    });
  });

  it('cuts cycles of plain (ref-less) object graphs too', () => {
    const node: OpenApiSchema = { type: 'object', properties: { v: { type: 'string' } } };
    node.properties!.next = node;
    const reg = new SchemaTypeRegistry();
    assert.equal(reg.typeFor(node, 'Node'), 'Node');
    assert.deepEqual(reg.objectType('Node')?.fields, { v: 'string', next: 'dyn' });
  });

  it('types unresolved refs as dyn and records them', () => {
    const reg = new SchemaTypeRegistry({ resolve });
    assert.equal(
      reg.typeFor({ type: 'object', properties: { x: { $ref: '#/components/schemas/missing' } } }, 'Ref'),
      'Ref',
    );
    assert.equal(reg.objectType('Ref')?.fields.x, 'dyn');
    assert.deepEqual([...reg.unresolvedRefs], ['#/components/schemas/missing']);
  });

  it('adds apiVersion, kind and metadata at a resource root', () => {
    const reg = new SchemaTypeRegistry();
    const schema: OpenApiSchema = {
      type: 'object',
      properties: {
        spec: { type: 'object', properties: { a: { type: 'string' } } },
        metadata: { type: 'object' },
      },
    };
    const t = reg.typeFor(schema, 'Widget', { resourceRoot: true });
    const fields = reg.objectType(t)?.fields;
    assert.equal(fields?.apiVersion, 'string');
    assert.equal(fields?.kind, 'string');
    assert.equal(fields?.metadata, 'ObjectMeta');
    assert.equal(reg.objectType('ObjectMeta')?.fields.labels, 'map<string, string>');
    assert.equal(reg.objectType('ObjectMeta')?.fields.creationTimestamp, 'google.protobuf.Timestamp');
    // The same schema typed as a non-root keeps `metadata` as declared.
    assert.equal(reg.objectType(reg.typeFor(schema, 'Plain'))?.fields.metadata, 'map<string, dyn>');
  });

  it('gives x-kubernetes-embedded-resource objects apiVersion, kind and metadata', () => {
    const reg = new SchemaTypeRegistry();
    const t = reg.typeFor(
      {
        type: 'object',
        properties: {
          template: {
            type: 'object',
            'x-kubernetes-embedded-resource': true,
            properties: { spec: { type: 'object', additionalProperties: { type: 'string' } } },
          },
        },
      },
      'Holder',
    );
    const template = reg.objectType(reg.objectType(t)!.fields.template!);
    assert.deepEqual(Object.keys(template?.fields ?? {}).sort(), ['apiVersion', 'kind', 'metadata', 'spec']);
  });

  it('makes names unique, valid and distinct from built-in and reserved names', () => {
    const reg = new SchemaTypeRegistry({ reserved: ['Quantity'] });
    const obj: OpenApiSchema = { type: 'object', properties: { a: { type: 'string' } } };
    assert.equal(reg.typeFor({ ...obj }, 'my-app.v1'), 'my_app_v1');
    assert.equal(reg.typeFor({ ...obj }, 'my-app.v1'), 'my_app_v1_2');
    assert.equal(reg.typeFor({ ...obj }, 'map'), 'map_t');
    assert.equal(reg.typeFor({ ...obj }, '9lives'), 'T_9lives');
    assert.equal(reg.typeFor({ ...obj }, 'x'), 'x_t');
    assert.equal(reg.typeFor({ ...obj }, 'Quantity'), 'Quantity_2');
  });
});

describe('SchemaTypeRegistry: registration in a cel-js Environment', () => {
  it('reuses a resource root type for the same $ref', () => {
    const reg = new SchemaTypeRegistry({ resolve });
    const ref = '#/components/schemas/io.k8s.api.core.v1.PodSpec';
    assert.equal(reg.typeFor({ $ref: ref }, 'Pod', { resourceRoot: true }), 'Pod');
    const count = reg.objectTypes.length;
    assert.equal(reg.typeFor({ $ref: ref }, 'Pod', { resourceRoot: true }), 'Pod');
    assert.equal(reg.objectTypes.length, count);
    // Not a root: the component's own type, without apiVersion/kind/metadata.
    assert.equal(reg.typeFor({ $ref: ref }, 'Pod'), 'PodSpec');
    assert.equal(reg.objectType('PodSpec')?.fields.kind, undefined);
    assert.equal(reg.objectType('Pod')?.fields.kind, 'string');
  });

  it('registers dependencies first so a raw Environment type-checks field access', () => {
    const reg = new SchemaTypeRegistry({ resolve });
    const pod = reg.typeFor(
      { type: 'object', properties: { spec: { $ref: '#/components/schemas/io.k8s.api.core.v1.PodSpec' } } },
      'Pod',
      { resourceRoot: true },
    );
    const env = new Environment({ enableOptionalTypes: true });
    reg.registerInto(env);
    env.registerVariable('pod', pod);
    assert.equal(env.check('pod.spec.containers[0].image').type, 'string');
    assert.equal(env.check('pod.spec.containers[0].ports[0].containerPort + 1').type, 'int');
    assert.equal(env.check('pod.metadata.labels').type, 'map<string, string>');
    assert.equal(env.check('pod.spec.containers.map(c, c.name)').type, 'list<string>');
    assert.equal(env.check('pod.spec.containers[0].resources.limits["cpu"]').type, 'dyn');
    const bad = env.check('pod.spec.nope');
    assert.equal(bad.valid, false);
    assert.match(bad.error?.message ?? '', /nope/);
    assert.equal(env.check('pod.spec.containers[0].image + 1').valid, false);
  });

  it('registers only new types on a second call', () => {
    const reg = new SchemaTypeRegistry();
    const env = new Environment();
    reg.typeFor({ type: 'object', properties: { a: { type: 'string' } } }, 'First');
    reg.registerInto(env);
    reg.typeFor({ type: 'object', properties: { b: { type: 'integer' } } }, 'Second');
    reg.registerInto(env); // would throw "already registered" if First were registered again
    env.registerVariable('f', 'First').registerVariable('s', 'Second');
    assert.equal(env.check('f.a + string(s.b)').type, 'string');
  });
});

describe('typeless x-kubernetes-preserve-unknown-fields', () => {
  const crd = (): OpenApiSchema => ({
    type: 'object',
    properties: {
      hooks: { description: 'free-form', 'x-kubernetes-preserve-unknown-fields': true },
      extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      port: { 'x-kubernetes-int-or-string': true },
      cut: markDynamic({ 'x-kubernetes-preserve-unknown-fields': true }),
    },
  });

  it("kro's reading hides the typeless field only; typed free-form, int-or-string and kgraph's markers stay", () => {
    const reg = new SchemaTypeRegistry();
    const t = reg.typeFor(crd(), 'Policy', { hideTypeless: true });
    assert.deepEqual(Object.keys(reg.objectType(t)!.fields).sort(), ['cut', 'extra', 'port']);
    assert.deepEqual(reg.objectType(t)!.hidden, ['hooks']);
    assert.deepEqual(
      reg.hiding('hooks').map((o) => o.name),
      [t],
    );
    assert.equal(reg.objectType(t)!.fields.extra, 'dyn');
  });

  it('the permissive reading (default, --no-kro-compat) types it dyn', () => {
    const reg = new SchemaTypeRegistry();
    const t = reg.typeFor(crd(), 'Policy');
    assert.equal(reg.objectType(t)!.fields.hooks, 'dyn');
    assert.equal(reg.objectType(t)!.hidden, undefined);
  });
});
