/**
 * Values at the CEL boundary (design/graph.md §16.5, design/platform.md §3.2). JSON from the API server is
 * converted BY SCHEMA before evaluation, and CEL results are converted back to JSON after it,
 * without ever losing integer precision:
 *
 *   JSON → CEL (`jsonToCel`): `type: integer` → BigInt; `type: number` → double (JS number);
 *   `format: byte` → bytes (Uint8Array, from base64); `format: date-time` → timestamp (Date; the
 *   engine keeps milliseconds, so sub-millisecond digits are dropped). Schemaless regions
 *   (no schema, x-kubernetes-preserve-unknown-fields, int-or-string, anyOf/oneOf, fields the schema
 *   does not list) keep their shape, but integral numbers in them become BigInt: Kubernetes decodes
 *   unstructured JSON numbers to int64 when they are integral (float64 otherwise), so `x + 1` works
 *   as in kro. (JSON.parse cannot tell `3.0` from `3`; both become int there.)
 *
 *   CEL → JSON (`celToJson`): ints and uints become numbers within ±(2^53-1) and stay BigInt
 *   beyond (the same canonical form `parseJson` returns), bytes → base64,
 *   timestamps → RFC 3339, durations → "1.5s", optional → its value or null, maps → objects.
 *   `stringifyJson` writes BigInt as JSON integers from their decimal string, never through Number;
 *   `parseJson` reads integers beyond 2^53 as BigInt, so 2^63-1 survives a full round trip.
 *
 * Schemas are treated as immutable: their flattened forms are cached per schema object.
 */
import { Optional } from '@marcbachmann/cel-js';
import { Duration, UnsignedInt } from '@marcbachmann/cel-js/evaluator';
import { formatDuration, formatTimestamp } from './conversions.ts';
import { flatten, withTypeAndObjectMeta } from './types/flatten.ts';
import type { OpenApiSchema, SchemaResolver } from './types/openapi.ts';
import { isSchemaless, schemaKind } from './types/registry.ts';
import { type ExactJson, MAX_SAFE, notJson } from './values/exactJson.ts';

export { type ExactJson, parseJson, stringifyJson, VALUE_NOT_JSON } from './values/exactJson.ts';

export interface JsonToCelOptions {
  readonly resolve?: SchemaResolver;
  /** The value is a whole resource: apiVersion/kind/metadata are typed even if the schema omits them. */
  readonly resourceRoot?: boolean;
}

const INT64_LIMIT = 2 ** 63;

/** Converts a JSON value (from JSON.parse or {@link parseJson}) to CEL values according to `schema`. */
export function jsonToCel(
  value: unknown,
  schema: OpenApiSchema | undefined,
  options: JsonToCelOptions = {},
): unknown {
  return convert(value, schema, options.resolve, options.resourceRoot === true);
}

function convert(
  value: unknown,
  schema: OpenApiSchema | undefined,
  resolve: SchemaResolver | undefined,
  root: boolean,
): unknown {
  if (value === null || value === undefined) return value;
  if (schema === undefined) return dynToCel(value);
  const s = effectiveSchema(schema, resolve, root);
  if (s === undefined) return dynToCel(value);
  switch (schemaKind(s)) {
    case 'integer':
      if (typeof value === 'number' && Number.isInteger(value)) return BigInt(value);
      return typeof value === 'bigint' ? value : dynToCel(value);
    case 'number':
      return typeof value === 'bigint' ? Number(value) : value;
    case 'string':
      if (typeof value !== 'string') return dynToCel(value);
      if (s.format === 'byte') return new Uint8Array(Buffer.from(value, 'base64'));
      if (s.format === 'date-time') {
        const d = new Date(value);
        return Number.isNaN(d.getTime()) ? value : d;
      }
      return value;
    case 'array':
      if (!Array.isArray(value)) return dynToCel(value);
      return value.map((item) => convert(item, s.items, resolve, false));
    case 'object': {
      if (!isPlainObject(value)) return dynToCel(value);
      const ap = s.additionalProperties;
      const valueSchema = ap !== undefined && typeof ap !== 'boolean' ? ap : undefined;
      const out: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(value)) {
        const sub =
          s.properties !== undefined && Object.hasOwn(s.properties, key) ? s.properties[key] : valueSchema;
        setOwn(out, key, convert(item, sub, resolve, false));
      }
      return out;
    }
    default:
      return dynToCel(value);
  }
}

const NO_RESOLVER: SchemaResolver = () => undefined;
/** resolver → schema → flattened schema (undefined = schemaless); `root` results are cached apart. */
const flatCache = new WeakMap<SchemaResolver, WeakMap<OpenApiSchema, OpenApiSchema | undefined>>();
const flatRootCache = new WeakMap<SchemaResolver, WeakMap<OpenApiSchema, OpenApiSchema | undefined>>();

/** The schema to convert by: refs and allOf resolved, resource fields added; undefined when schemaless. */
function effectiveSchema(
  schema: OpenApiSchema,
  resolve: SchemaResolver | undefined,
  root: boolean,
): OpenApiSchema | undefined {
  const key = resolve ?? NO_RESOLVER;
  const caches = root ? flatRootCache : flatCache;
  let cache = caches.get(key);
  if (cache === undefined) {
    cache = new WeakMap();
    caches.set(key, cache);
  } else if (cache.has(schema)) {
    return cache.get(schema);
  }
  let s: OpenApiSchema | undefined = flatten(schema, resolve).schema;
  if (isSchemaless(s)) s = undefined;
  else if (root || s['x-kubernetes-embedded-resource'] === true) s = withTypeAndObjectMeta(s);
  cache.set(schema, s);
  return s;
}

/** Schemaless conversion: integral numbers (within int64) become BigInt, the rest keeps its shape. */
export function dynToCel(value: unknown): unknown {
  if (typeof value === 'number') {
    return Number.isInteger(value) && Math.abs(value) < INT64_LIMIT ? BigInt(value) : value;
  }
  if (Array.isArray(value)) return value.map(dynToCel);
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) setOwn(out, key, dynToCel(item));
    return out;
  }
  return value;
}

/** Sets an own property even for the key `__proto__` (a valid ConfigMap key), like JSON.parse does. */
function setOwn<T>(out: Record<string, T>, key: string, value: T): void {
  if (key === '__proto__')
    Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  else out[key] = value;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Converts a CEL result to exact JSON (see the header for the rules). */
export function celToJson(value: unknown): ExactJson {
  if (value === null || value === undefined) return null;
  switch (typeof value) {
    case 'boolean':
    case 'string':
      return value;
    case 'bigint':
      return exactInteger(value);
    case 'number':
      if (!Number.isFinite(value)) throw notJson(`the double ${value} cannot be written as JSON`);
      return value;
    default:
      break;
  }
  if (value instanceof UnsignedInt) return exactInteger(value.value);
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (value instanceof Date) return formatTimestamp(value);
  if (value instanceof Duration) return formatDuration(value.seconds * 1_000_000_000n + BigInt(value.nanos));
  if (value instanceof Optional) return value.hasValue() ? celToJson(value.value()) : null;
  if (Array.isArray(value)) return value.map(celToJson);
  if (value instanceof Map) {
    const out: { [key: string]: ExactJson } = {};
    for (const [k, v] of value) setOwn(out, mapKey(k), celToJson(v));
    return out;
  }
  if (isPlainObject(value)) {
    const out: { [key: string]: ExactJson } = {};
    for (const [k, v] of Object.entries(value)) setOwn(out, k, celToJson(v));
    return out;
  }
  if (hasToJson(value)) return celToJson(value.toJSON()); // structured library values (kro.run.Condition)
  if (typeof value === 'object' && value.toString !== Object.prototype.toString) {
    // Library values (quantity, url, ip, semver …) are written in their canonical string form.
    return String(value);
  }
  throw notJson(`a value of type ${value?.constructor?.name ?? typeof value} cannot be written as JSON`);
}

/** Canonical exact form (as {@link parseJson} returns it): a number when safe, else the bigint. */
function exactInteger(v: bigint): number | bigint {
  return v <= MAX_SAFE && v >= -MAX_SAFE ? Number(v) : v;
}

function mapKey(key: unknown): string {
  if (typeof key === 'string') return key;
  if (typeof key === 'bigint' || typeof key === 'boolean') return String(key);
  if (key instanceof UnsignedInt) return key.value.toString();
  throw notJson(`map key of type ${typeof key} cannot be a JSON object key`);
}

function hasToJson(v: unknown): v is { toJSON(): unknown } {
  return typeof v === 'object' && v !== null && typeof (v as { toJSON?: unknown }).toJSON === 'function';
}
