import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SchemaCode } from '../../../src/schema/codes.ts';
import { simpleSchemaToOpenAPI } from '../../../src/schema/simpleschema/convert.ts';

function convert(spec: unknown, types?: unknown) {
  return simpleSchemaToOpenAPI(spec, types === undefined ? {} : { types });
}

/** Converts one field `f` and returns its schema, asserting there are no diagnostics. */
function field(text: unknown, types?: unknown) {
  const r = convert({ f: text }, types);
  assert.deepEqual(r.diagnostics, []);
  return r.schema.properties?.f;
}

/** Converts one field and returns its only diagnostic. */
function oneError(text: unknown, types?: unknown) {
  const r = convert({ f: text }, types);
  assert.equal(r.diagnostics.length, 1, JSON.stringify(r.diagnostics));
  return r.diagnostics[0]!;
}

describe('SimpleSchema types', () => {
  it('maps the atomic types', () => {
    assert.deepEqual(field('string'), { type: 'string' });
    assert.deepEqual(field('integer'), { type: 'integer' });
    assert.deepEqual(field('boolean'), { type: 'boolean' });
    assert.deepEqual(field('float'), { type: 'number' });
  });

  it('maps object to an unvalidated object', () => {
    assert.deepEqual(field('object'), { type: 'object', 'x-kubernetes-preserve-unknown-fields': true });
  });

  it('maps arrays and maps, nested', () => {
    assert.deepEqual(field('[]string'), { type: 'array', items: { type: 'string' } });
    assert.deepEqual(field('[][]integer'), {
      type: 'array',
      items: { type: 'array', items: { type: 'integer' } },
    });
    assert.deepEqual(field('map[string]string'), {
      type: 'object',
      additionalProperties: { type: 'string' },
    });
    assert.deepEqual(field('map[string][]string'), {
      type: 'object',
      additionalProperties: { type: 'array', items: { type: 'string' } },
    });
    assert.deepEqual(field('[]map[string]string'), {
      type: 'array',
      items: { type: 'object', additionalProperties: { type: 'string' } },
    });
  });

  it('maps nested maps to objects with properties', () => {
    assert.deepEqual(field({ host: 'string', port: 'integer' }), {
      type: 'object',
      properties: { host: { type: 'string' }, port: { type: 'integer' } },
    });
  });

  it('rejects a map key other than string', () => {
    const d = oneError('map[int]string');
    assert.equal(d.code, SchemaCode.MapKeyNotString);
    assert.match(d.message, /map key must be string/);
    assert.equal(d.path, 'spec.schema.spec.f');
  });

  it('rejects an empty map value type and an empty slice element type', () => {
    assert.equal(oneError('map[string]').code, SchemaCode.MalformedType);
    assert.equal(oneError('[]').code, SchemaCode.MalformedType);
    assert.equal(oneError(' | required=true').code, SchemaCode.MalformedType);
  });

  it('limits type nesting to 16', () => {
    assert.deepEqual(field(`${'[]'.repeat(16)}string`)?.type, 'array');
    const d = oneError(`${'[]'.repeat(17)}string`);
    assert.equal(d.code, SchemaCode.TypeNestingTooDeep);
    assert.match(d.message, /type nesting too deep \(max 16\)/);
  });

  it('reports unknown types with a hint', () => {
    const d = oneError('number');
    assert.equal(d.code, SchemaCode.UnknownType);
    assert.equal(d.message, 'unknown type: number');
    assert.match(d.hint ?? '', /float/);
    assert.equal(oneError('[]Person').message, 'unknown type: Person');
  });

  it('rejects values that are neither strings nor maps, with the field path', () => {
    const r = convert({ a: { b: 5 } });
    assert.equal(r.diagnostics[0]?.code, SchemaCode.InvalidFieldValue);
    assert.equal(r.diagnostics[0]?.path, 'spec.schema.spec.a.b');
    assert.equal(convert({ a: ['string'] }).diagnostics[0]?.code, SchemaCode.InvalidFieldValue);
  });
});

describe('SimpleSchema markers', () => {
  it('required adds the field to the parent, sorted; false is a no-op', () => {
    const r = convert({
      z: 'string | required=true',
      a: 'string | required=true',
      m: 'string | required=false',
    });
    assert.deepEqual(r.schema.required, ['a', 'z']);
    assert.equal(oneError('string | required=yes').code, SchemaCode.InvalidMarkerValue);
  });

  it('default is typed by the field type', () => {
    assert.equal(field('string | default=postgres')?.default, 'postgres');
    assert.equal(field('string | default="a b"')?.default, 'a b');
    assert.equal(field('string | default="5"')?.default, '5');
    assert.equal(field('integer | default=3')?.default, 3);
    assert.equal(field('float | default=0.5')?.default, 0.5);
    assert.equal(field('boolean | default=false')?.default, false);
    assert.deepEqual(field('[]integer | default=[80]')?.default, [80]);
    assert.deepEqual(field('map[string]string | default={"a": "b"}')?.default, { a: 'b' });
  });

  it('rejects defaults that do not fit the type', () => {
    assert.equal(oneError('integer | default=abc').code, SchemaCode.InvalidDefault);
    assert.equal(oneError('integer | default=1.5').code, SchemaCode.InvalidDefault);
    assert.equal(oneError('boolean | default=yes').code, SchemaCode.InvalidDefault);
    assert.equal(oneError('[]string | default={}').code, SchemaCode.InvalidDefault);
    assert.equal(oneError('[]string | default=[a]').code, SchemaCode.InvalidDefault);
  });

  it('description, minimum and maximum', () => {
    assert.deepEqual(field('integer | minimum=1 maximum=100 description="how many"'), {
      type: 'integer',
      minimum: 1,
      maximum: 100,
      description: 'how many',
    });
    assert.deepEqual(field('float | minimum=-0.5'), { type: 'number', minimum: -0.5 });
    assert.equal(oneError('string | minimum=1').code, SchemaCode.MarkerNotApplicable);
    assert.equal(oneError('integer | maximum=lots').code, SchemaCode.InvalidMarkerValue);
  });

  it('enum splits and trims, parses integers, rejects empty values', () => {
    assert.deepEqual(field('string | enum="a, b,c"')?.enum, ['a', 'b', 'c']);
    assert.deepEqual(field('integer | enum="1,2,3"')?.enum, [1, 2, 3]);
    assert.equal(oneError('string | enum="a,,b"').code, SchemaCode.InvalidEnum);
    assert.equal(oneError('integer | enum="1,x"').code, SchemaCode.InvalidEnum);
    assert.equal(oneError('boolean | enum="true"').code, SchemaCode.MarkerNotApplicable);
  });

  it('pattern must be a non-empty RE2 regex on a string', () => {
    assert.equal(field('string | pattern="^[a-z]+$"')?.pattern, '^[a-z]+$');
    assert.equal(oneError('string | pattern="("').code, SchemaCode.InvalidPattern);
    assert.equal(oneError('string | pattern=""').code, SchemaCode.InvalidPattern);
    // Lookahead is not RE2.
    assert.equal(oneError('string | pattern="(?=a)"').code, SchemaCode.InvalidPattern);
    assert.equal(oneError('integer | pattern="a"').code, SchemaCode.MarkerNotApplicable);
  });

  it('minLength and maxLength on strings', () => {
    assert.deepEqual(field('string | minLength=1 maxLength=63'), {
      type: 'string',
      minLength: 1,
      maxLength: 63,
    });
    assert.equal(oneError('string | minLength=-1').code, SchemaCode.InvalidMarkerValue);
    assert.equal(oneError('[]string | maxLength=3').code, SchemaCode.MarkerNotApplicable);
  });

  it('minItems, maxItems on arrays', () => {
    assert.deepEqual(field('[]string | minItems=1 maxItems=3'), {
      type: 'array',
      items: { type: 'string' },
      minItems: 1,
      maxItems: 3,
    });
    assert.equal(oneError('string | minItems=1').code, SchemaCode.MarkerNotApplicable);
  });

  it('uniqueItems=true becomes x-kubernetes-list-type: set, not uniqueItems', () => {
    const s = field('[]string | uniqueItems=true');
    assert.equal(s?.['x-kubernetes-list-type'], 'set');
    assert.equal(s?.uniqueItems, undefined);
    assert.equal(field('[]string | uniqueItems=false')?.['x-kubernetes-list-type'], undefined);
  });

  it('listType and listMapKey', () => {
    assert.equal(field('[]string | listType=atomic')?.['x-kubernetes-list-type'], 'atomic');
    const s = field('[]Port | listType=map listMapKey=name listMapKey=protocol', {
      Port: { name: 'string | required=true', protocol: 'string | required=true' },
    });
    assert.equal(s?.['x-kubernetes-list-type'], 'map');
    assert.deepEqual(s?.['x-kubernetes-list-map-keys'], ['name', 'protocol']);
  });

  it('rejects contradictory list types', () => {
    assert.equal(oneError('[]string | uniqueItems=true listType=atomic').code, SchemaCode.ListTypeConflict);
    assert.equal(oneError('[]string | listType=set listType=atomic').code, SchemaCode.ListTypeConflict);
    assert.equal(oneError('[]string | listType=bag').code, SchemaCode.InvalidMarkerValue);
  });

  it('rejects duplicate listMapKeys and listMapKey without listType=map', () => {
    const dup = convert(
      { f: '[]P | listType=map listMapKey=a listMapKey=a' },
      { P: { a: 'string | required=true' } },
    ).diagnostics;
    assert.deepEqual(
      dup.map((d) => d.code),
      [SchemaCode.InvalidListMapKey],
    );
    assert.match(dup[0]!.message, /duplicate listMapKey 'a'/);
    assert.match(oneError('[]object | listMapKey=a').message, /listMapKey requires listType=map/);
  });

  it('listMapKey must name a scalar item field that is required or defaulted', () => {
    const types = { P: { name: 'string', port: 'integer | default=80', sub: { x: 'string' } } };
    assert.match(
      oneError('[]P | listType=map listMapKey=name', types).message,
      /must be required .* or have a default/,
    );
    assert.deepEqual(field('[]P | listType=map listMapKey=port', types)?.['x-kubernetes-list-map-keys'], [
      'port',
    ]);
    assert.match(oneError('[]P | listType=map listMapKey=sub', types).message, /must be a scalar field/);
    assert.match(oneError('[]object | listType=map listMapKey=a').message, /must be a scalar field/);
  });

  it('a set list needs scalar items', () => {
    const d = oneError('[]P | uniqueItems=true', { P: { a: 'string' } });
    assert.equal(d.code, SchemaCode.MarkerNotApplicable);
    assert.match(d.message, /uniqueItems=true needs scalar items/);
  });

  it('defaults must satisfy the field constraints, as the API server requires', () => {
    for (const text of [
      'string | default=db enum="web,worker"',
      'integer | default=0 minimum=1',
      'integer | default=9 maximum=5',
      'string | default=ab minLength=3',
      'string | default=abcd maxLength=3',
      'string | default=ABC pattern="^[a-z]+$"',
      '[]string | default=[] minItems=1',
      '[]string | default=["a","b"] maxItems=1',
    ]) {
      assert.equal(oneError(text).code, SchemaCode.InvalidDefault, text);
    }
    assert.equal(field('string | default=web enum="web,worker"')?.default, 'web');
    assert.equal(field('integer | default=3 enum="1,3"')?.default, 3);
  });

  it('immutable and validation become x-kubernetes-validations', () => {
    assert.deepEqual(field('string | immutable=true')?.['x-kubernetes-validations'], [
      { rule: 'self == oldSelf', message: 'field is immutable' },
    ]);
    assert.equal(field('string | immutable=false')?.['x-kubernetes-validations'], undefined);
    assert.deepEqual(
      field('integer | validation="self % 2 == 0" immutable=true')?.['x-kubernetes-validations'],
      [
        { rule: 'self % 2 == 0', message: 'validation failed' },
        { rule: 'self == oldSelf', message: 'field is immutable' },
      ],
    );
    assert.equal(oneError('string | validation=""').code, SchemaCode.InvalidMarkerValue);
  });

  it('reports marker syntax errors and unknown markers with the field path', () => {
    const d = oneError('string | required=true colour=red');
    assert.equal(d.code, SchemaCode.UnknownMarker);
    assert.equal(d.path, 'spec.schema.spec.f');
    assert.equal(oneError('string | description="abc').code, SchemaCode.MarkerSyntax);
    assert.equal(oneError('string | required').code, SchemaCode.MarkerSyntax);
  });

  it('splits on the first | only', () => {
    assert.equal(field('string | default="a|b"')?.default, 'a|b');
  });
});

describe('SimpleSchema defaults and required on objects', () => {
  it('an object with defaulted children and no required children gets default {}', () => {
    const r = convert({ ingress: { enabled: 'boolean | default=false', host: 'string' } });
    assert.deepEqual(r.schema.properties?.ingress?.default, {});
    assert.deepEqual(r.schema.default, {}, 'nested default {} counts as a defaulted child');
  });

  it('an object with a required child gets no default', () => {
    const r = convert({ o: { a: 'string | required=true', b: 'integer | default=1' } });
    assert.equal(r.schema.properties?.o?.default, undefined);
    assert.deepEqual(r.schema.properties?.o?.required, ['a']);
  });

  it('an object without defaults gets no default', () => {
    assert.equal(convert({ o: { a: 'string' } }).schema.properties?.o?.default, undefined);
  });
});

describe('SimpleSchema custom types', () => {
  it('expands object types inline, also inside arrays and maps', () => {
    const types = { Person: { name: 'string | required=true', age: 'integer | minimum=0' } };
    const person = {
      type: 'object',
      properties: { name: { type: 'string' }, age: { type: 'integer', minimum: 0 } },
      required: ['name'],
    };
    assert.deepEqual(field('Person', types), person);
    assert.deepEqual(field('[]Person', types), { type: 'array', items: person });
    assert.deepEqual(field('map[string]Person', types), { type: 'object', additionalProperties: person });
  });

  it('resolves types that use other types regardless of declaration order', () => {
    const types = { Team: { lead: 'Person', members: '[]Person' }, Person: { name: 'string' } };
    const s = field('Team', types);
    assert.deepEqual(s?.properties?.lead, { type: 'object', properties: { name: { type: 'string' } } });
    assert.deepEqual(s?.properties?.members?.items, {
      type: 'object',
      properties: { name: { type: 'string' } },
    });
  });

  it('a string alias keeps its markers; required=true makes every user required', () => {
    const types = { RequiredString: 'string | required=true minLength=1' };
    const r = convert(
      { a: 'RequiredString', b: 'RequiredString | description="b"', c: '[]RequiredString' },
      types,
    );
    assert.deepEqual(r.diagnostics, []);
    assert.deepEqual(r.schema.required, ['a', 'b']);
    assert.deepEqual(r.schema.properties?.a, { type: 'string', minLength: 1 });
    assert.deepEqual(r.schema.properties?.b, { type: 'string', minLength: 1, description: 'b' });
  });

  it('markers at the use site apply to the expanded type', () => {
    const types = { Endpoint: { host: 'string' } };
    assert.deepEqual(field('Endpoint | default={"host": "localhost"}', types)?.default, {
      host: 'localhost',
    });
  });

  it('uses do not share schema objects', () => {
    const r = convert({ a: 'P', b: 'P | description="x"' }, { P: { n: 'string' } });
    assert.equal(r.schema.properties?.a?.description, undefined);
  });

  it('rejects cycles, naming the cycle, without cascading errors at the uses', () => {
    const r = convert({ a: 'A', b: '[]B' }, { A: { b: 'B' }, B: { a: '[]A' } });
    assert.equal(r.diagnostics.length, 1, JSON.stringify(r.diagnostics));
    const d = r.diagnostics[0]!;
    assert.equal(d.code, SchemaCode.CyclicType);
    assert.equal(d.message, 'cyclic dependency in type A: A → B → A');
    assert.equal(d.path, 'spec.schema.types.A');
    assert.equal(r.schema.properties?.a?.['x-kubernetes-preserve-unknown-fields'], true);
  });

  it('rejects a type that refers to itself', () => {
    const r = convert({}, { Node: { children: '[]Node' } });
    assert.equal(r.diagnostics[0]?.code, SchemaCode.CyclicType);
    assert.match(r.diagnostics[0]!.message, /cyclic dependency in type Node: Node → Node/);
  });

  it('reports unknown types used inside custom types at their path', () => {
    const r = convert({}, { A: { b: 'Missing' } });
    assert.equal(r.diagnostics[0]?.code, SchemaCode.UnknownType);
    assert.equal(r.diagnostics[0]?.path, 'spec.schema.types.A.b');
  });

  it('rejects invalid type names and bodies', () => {
    assert.equal(convert({}, { string: { a: 'string' } }).diagnostics[0]?.code, SchemaCode.InvalidCustomType);
    assert.equal(convert({}, { 'my-type': 'string' }).diagnostics[0]?.code, SchemaCode.InvalidCustomType);
    assert.equal(convert({}, { T: 5 }).diagnostics[0]?.code, SchemaCode.InvalidCustomType);
    assert.equal(convert({}, ['T']).diagnostics[0]?.code, SchemaCode.InvalidCustomType);
  });
});

describe('SimpleSchema positions', () => {
  it('passes the field path to the locate callback', () => {
    const r = simpleSchemaToOpenAPI(
      { a: 'integer | default=x' },
      {
        locate: (path) =>
          path === 'spec.schema.spec.a' ? { file: 'rgd.yaml', line: 7, column: 9 } : undefined,
      },
    );
    assert.deepEqual(r.diagnostics[0]?.location, { file: 'rgd.yaml', line: 7, column: 9 });
  });
});
