import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Environment, evaluate } from '@marcbachmann/cel-js';
import type { OpenApiSchema } from '../../../src/cel/types/openapi.ts';
import {
  celToJson,
  dynToCel,
  jsonToCel,
  parseJson,
  stringifyJson,
  VALUE_NOT_JSON,
} from '../../../src/cel/values.ts';
import { KgraphError } from '../../../src/diag/diagnostic.ts';

const MAX_INT64 = 9223372036854775807n;
const MIN_INT64 = -9223372036854775808n;

const app: OpenApiSchema = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        replicas: { type: 'integer', format: 'int32' },
        ratio: { type: 'number' },
        name: { type: 'string' },
        enabled: { type: 'boolean' },
        ports: { type: 'array', items: { type: 'integer' } },
        weights: { type: 'object', additionalProperties: { type: 'number' } },
        port: { 'x-kubernetes-int-or-string': true },
        extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        certificate: { type: 'string', format: 'byte' },
        since: { type: 'string', format: 'date-time' },
        ref: { $ref: '#/components/schemas/Ref' },
      },
    },
  },
};
const resolve = (ref: string): OpenApiSchema | undefined =>
  ref === '#/components/schemas/Ref'
    ? { type: 'object', properties: { count: { type: 'integer' } } }
    : undefined;

describe('jsonToCel: by schema', () => {
  const input = {
    apiVersion: 'example.com/v1',
    metadata: { name: 'a', generation: 3, creationTimestamp: '2024-01-02T03:04:05Z' },
    spec: {
      replicas: 3,
      ratio: 2,
      name: 'n',
      enabled: true,
      ports: [80, 443],
      weights: { a: 1, b: 0.5 },
      port: 8080,
      extra: { n: 1, f: 1.5, list: [1, 'x', { deep: 2 }] },
      certificate: Buffer.from('hello').toString('base64'),
      since: '2024-05-06T07:08:09.123Z',
      ref: { count: 7 },
      unknownField: 4,
    },
  };
  const cel = jsonToCel(input, app, { resolve, resourceRoot: true }) as {
    metadata: Record<string, unknown>;
    spec: Record<string, unknown>;
    apiVersion: unknown;
  };

  it('integer fields become BigInt, number fields stay doubles even when integral', () => {
    assert.equal(cel.spec.replicas, 3n);
    assert.equal(cel.spec.ratio, 2);
    assert.deepEqual(cel.spec.ports, [80n, 443n]);
    assert.deepEqual(cel.spec.weights, { a: 1, b: 0.5 });
    assert.deepEqual(cel.spec.ref, { count: 7n });
  });

  it('strings and booleans are untouched', () => {
    assert.equal(cel.spec.name, 'n');
    assert.equal(cel.spec.enabled, true);
    assert.equal(cel.apiVersion, 'example.com/v1');
  });

  it('format: byte becomes bytes and format: date-time a timestamp', () => {
    assert.ok(cel.spec.certificate instanceof Uint8Array);
    assert.equal(Buffer.from(cel.spec.certificate as Uint8Array).toString(), 'hello');
    assert.ok(cel.spec.since instanceof Date);
    assert.equal((cel.spec.since as Date).toISOString(), '2024-05-06T07:08:09.123Z');
  });

  it('resource roots get ObjectMeta typing (generation int, creationTimestamp timestamp)', () => {
    assert.equal(cel.metadata.generation, 3n);
    assert.ok(cel.metadata.creationTimestamp instanceof Date);
    assert.equal(cel.metadata.name, 'a');
  });

  it('int-or-string and preserve-unknown-fields regions keep their shape with integral numbers as int', () => {
    assert.equal(cel.spec.port, 8080n);
    assert.deepEqual(cel.spec.extra, { n: 1n, f: 1.5, list: [1n, 'x', { deep: 2n }] });
    assert.equal(jsonToCel('25%', { 'x-kubernetes-int-or-string': true }), '25%');
  });

  it('fields the schema does not list are converted as dyn', () => {
    assert.equal(cel.spec.unknownField, 4n);
  });

  it('the converted values make `x + 1` work as in cel-go', () => {
    assert.equal(evaluate('o.spec.replicas + 1', { o: cel }), 4n);
    assert.equal(evaluate('o.spec.extra.n + 1', { o: cel }), 2n);
    assert.equal(evaluate('o.spec.ratio * 2.0', { o: cel }), 4);
    assert.equal(evaluate('string(o.spec.certificate)', { o: cel }), 'hello');
    assert.equal(evaluate('o.spec.since.getFullYear()', { o: cel }), 2024n);
  });

  it('without conversion a raw JSON number is a double and int arithmetic fails', () => {
    const env = new Environment({ unlistedVariablesAreDyn: true });
    assert.throws(() => env.evaluate('o.spec.replicas + 1', { o: input }), /no such overload/);
  });

  it('keeps values that do not match their schema as they are (no silent coercion)', () => {
    assert.equal(jsonToCel('3', { type: 'integer' }), '3');
    assert.equal(jsonToCel('not a date', { type: 'string', format: 'date-time' }), 'not a date');
    assert.equal(jsonToCel(null, { type: 'integer' }), null);
    assert.equal(jsonToCel(2.5, { type: 'integer' }), 2.5);
  });

  it('accepts exact bigint input for integer fields and turns bigint into double for number fields', () => {
    assert.equal(jsonToCel(MAX_INT64, { type: 'integer' }), MAX_INT64);
    assert.equal(jsonToCel(10n, { type: 'number' }), 10);
  });
});

describe('__proto__ keys', () => {
  it('stay data through jsonToCel (by schema and dyn) and celToJson', () => {
    const data = JSON.parse('{"__proto__": "x", "n": 1}') as unknown;
    const bySchema = jsonToCel(data, { type: 'object', additionalProperties: { type: 'string' } }) as object;
    assert.deepEqual(Object.keys(bySchema), ['__proto__', 'n']);
    assert.equal(Object.getPrototypeOf(bySchema), Object.prototype);
    const dyn = dynToCel(data) as Record<string, unknown>;
    assert.deepEqual(Object.keys(dyn), ['__proto__', 'n']);
    assert.equal(dyn.n, 1n);
    assert.equal(stringifyJson(celToJson(dyn)), '{"__proto__":"x","n":1}');
  });
});

describe('dynToCel', () => {
  it('makes integral numbers within int64 BigInt and keeps the rest', () => {
    assert.deepEqual(dynToCel([1, -0, 2.5, 1e300, 'x', true, null]), [1n, 0n, 2.5, 1e300, 'x', true, null]);
  });
});

describe('celToJson', () => {
  it('writes ints and uints as numbers when safe and keeps them exact as bigint beyond 2^53', () => {
    assert.equal(celToJson(42n), 42);
    assert.equal(celToJson(-9007199254740991n), -9007199254740991);
    assert.equal(celToJson(9007199254740992n), 9007199254740992n);
    assert.equal(celToJson(MAX_INT64), MAX_INT64);
    assert.equal(celToJson(evaluate('1u')), 1);
    assert.equal(celToJson(evaluate('18446744073709551615u')), 18446744073709551615n);
  });

  it('writes bytes as base64, timestamps as RFC 3339, durations like "1.5s"', () => {
    assert.equal(celToJson(evaluate('b"hello"')), 'aGVsbG8=');
    assert.equal(celToJson(evaluate('timestamp("2024-01-01T00:00:00Z")')), '2024-01-01T00:00:00Z');
    assert.equal(celToJson(evaluate('timestamp("2024-01-01T00:00:00.120Z")')), '2024-01-01T00:00:00.12Z');
    assert.equal(celToJson(evaluate('duration("1.5s")')), '1.5s');
    assert.equal(celToJson(evaluate('duration("1h")')), '3600s');
    assert.equal(celToJson(evaluate('duration("-1.000000001s")')), '-1.000000001s');
  });

  it('unwraps optionals: a value, or null when empty', () => {
    const env = new Environment({ enableOptionalTypes: true });
    assert.equal(celToJson(env.evaluate('optional.of(1)')), 1);
    assert.equal(celToJson(env.evaluate('optional.none()')), null);
  });

  it('converts nested lists and maps, including Map keys', () => {
    assert.deepEqual(celToJson(evaluate('{"a": [dyn(1), dyn(2.5), dyn("x"), dyn(null), dyn(true)]}')), {
      a: [1, 2.5, 'x', null, true],
    });
    assert.deepEqual(
      celToJson(
        new Map<unknown, unknown>([
          [1n, 'one'],
          ['k', b64()],
        ]),
      ),
      { '1': 'one', k: 'AQ==' },
    );
  });

  it('refuses NaN and infinities with a coded error', () => {
    assert.throws(
      () => celToJson(evaluate('double("NaN")')),
      (e: unknown) => e instanceof KgraphError && e.code === VALUE_NOT_JSON,
    );
    assert.throws(() => celToJson(Number.POSITIVE_INFINITY), /cannot be written as JSON/);
  });

  it('writes library values by their string form', () => {
    class Quantity {
      toString() {
        return '500m';
      }
    }
    assert.equal(celToJson(new Quantity()), '500m');
  });
});

function b64(): Uint8Array {
  return new Uint8Array([1]);
}

describe('stringifyJson and parseJson', () => {
  it('writes bigint beyond 2^53 from its digits', () => {
    assert.equal(
      stringifyJson({ a: MAX_INT64, b: MIN_INT64, c: 1n }),
      '{"a":9223372036854775807,"b":-9223372036854775808,"c":1}',
    );
  });

  it('writes bigint inside nested structures, with indentation like JSON.stringify', () => {
    const v = { a: [1, MAX_INT64, { b: MIN_INT64 }], c: 'x' };
    const expected = JSON.stringify({ a: [1, 0, { b: 0 }], c: 'x' }, null, 2)
      .replace('0,', '9223372036854775807,')
      .replace('"b": 0', '"b": -9223372036854775808');
    assert.equal(stringifyJson(v, 2), expected);
    assert.throws(() => stringifyJson({ a: MAX_INT64, n: Number.NaN }), /cannot be written as JSON/);
  });

  it('matches JSON.stringify for plain JSON, with and without indentation', () => {
    const plain = { a: [1, 2.5, 'x"y', null, true, { b: [] }], c: {}, 'd e': 'ü\n' };
    assert.equal(stringifyJson(plain), JSON.stringify(plain));
    assert.equal(stringifyJson(plain, 2), JSON.stringify(plain, null, 2));
  });

  it('parses integers beyond 2^53 as bigint and others as numbers', () => {
    assert.deepEqual(
      parseJson('{"big": 9223372036854775807, "neg": -9223372036854775808, "small": 42, "f": 1.5e3}'),
      {
        big: MAX_INT64,
        neg: MIN_INT64,
        small: 42,
        f: 1500,
      },
    );
    assert.equal(parseJson('9007199254740991'), 9007199254740991);
    assert.equal(parseJson('9007199254740993'), 9007199254740993n);
  });

  it('agrees with JSON.parse on documents with long digit runs inside strings', () => {
    const text =
      '{"s": "12345678901234567890 \\"q\\" \\u00e9", "a": [true, false, null, -0.5, 1e2], "o": {}}';
    assert.deepEqual(parseJson(text), JSON.parse(text));
  });

  it('keeps __proto__ keys as data', () => {
    const v = parseJson('{"__proto__": {"x": 1}, "n": 12345678901234567890}') as Record<string, unknown>;
    assert.deepEqual(Object.keys(v), ['__proto__', 'n']);
    assert.equal(Object.getPrototypeOf(v), Object.prototype);
  });

  it('rejects invalid JSON with a position', () => {
    assert.throws(() => parseJson('{"a": 12345678901234567890,}'), /invalid JSON at position/);
    assert.throws(() => parseJson('[12345678901234567890'), SyntaxError);
    assert.throws(() => parseJson('12345678901234567890 x'), /trailing/);
  });

  it('round-trips 2^63-1 through parse → CEL (by schema) → evaluate → JSON text', () => {
    const schema: OpenApiSchema = { type: 'object', properties: { n: { type: 'integer', format: 'int64' } } };
    const doc = parseJson('{"n": 9223372036854775807}');
    const cel = jsonToCel(doc, schema) as { n: bigint };
    assert.equal(cel.n, MAX_INT64);
    assert.equal(evaluate('o.n', { o: cel }), MAX_INT64);
    assert.throws(() => evaluate('o.n + 1', { o: cel }), /overflow/);
    const out = { n: evaluate('o.n', { o: cel }), m: evaluate('o.n - 1', { o: cel }) };
    assert.equal(stringifyJson(celToJson(out)), '{"n":9223372036854775807,"m":9223372036854775806}');
    assert.deepEqual(parseJson(stringifyJson(celToJson(out))), { n: MAX_INT64, m: MAX_INT64 - 1n });
  });
});
