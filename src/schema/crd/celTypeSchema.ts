/**
 * Maps the CEL result type of a status expression (checker notation: `string`, `list<int>`,
 * `map<string, dyn>`, `optional<bool>`, `google.protobuf.Timestamp`) to the OpenAPI schema written
 * into the generated CRD's status. `dyn` stays undefined, which the status builder turns into
 * `x-kubernetes-preserve-unknown-fields`.
 *
 * Object types (a Deployment's `status`, its `conditions` items) are expanded when the caller can look
 * their fields up, as kro does from its declared types (pkg/graph/schema): an
 * object is `{type: object, properties}` (no `properties` when it has none, no `required`), and inside
 * an object only bool/int/uint/double/string/bytes, lists, maps and objects are typed; every other
 * field type (timestamps, durations, dyn) becomes a typeless `x-kubernetes-preserve-unknown-fields`.
 * A top-level timestamp stays `string`/`date-time`, as in kro.
 */
import { parseTypeString, type TypeExpr } from '../../cel/types/typeString.ts';
import { type OpenAPISchema, unknownFieldsSchema } from '../openapi.ts';
import type { StatusFieldType, StatusPath } from './statusSchema.ts';

/** Object type name → its fields (CEL type names), from the registry that typed the expression. */
export type ObjectFields = (name: string) => Readonly<Record<string, string>> | undefined;

/** Nesting bound for object expansion (the registry cuts cycles; this is a second guard). */
const MAX_OBJECT_DEPTH = 32;

/** The primitives kro types everywhere (its `primitiveTypeToSchema`); undefined for anything else. */
function primitiveSchema(name: string): OpenAPISchema | undefined {
  switch (name) {
    case 'string':
      return { type: 'string' };
    // No format on numbers: kro infers `integer` / `number` only, and the CRDs must be interchangeable.
    case 'int':
    case 'uint':
      return { type: 'integer' };
    case 'double':
      return { type: 'number' };
    case 'bool':
      return { type: 'boolean' };
    case 'bytes':
      return { type: 'string', format: 'byte' };
    default:
      return undefined;
  }
}

function fromType(t: TypeExpr, objects?: ObjectFields): OpenAPISchema | undefined {
  const primitive = primitiveSchema(t.name);
  if (primitive) return primitive;
  switch (t.name) {
    case 'google.protobuf.Timestamp':
      return { type: 'string', format: 'date-time' };
    case 'google.protobuf.Duration':
      return { type: 'string' };
    case 'optional':
      return t.params[0] ? fromType(t.params[0], objects) : undefined;
    case 'list': {
      const items = t.params[0] ? fromType(t.params[0], objects) : undefined;
      return { type: 'array', items: items ?? unknownFieldsSchema() };
    }
    case 'map': {
      const key = t.params[0];
      if (key && key.name !== 'string' && key.name !== 'dyn') return undefined;
      const value = t.params[1] ? fromType(t.params[1], objects) : undefined;
      return value
        ? { type: 'object', additionalProperties: value }
        : { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
    }
    default: {
      const fields = objects?.(t.name);
      return fields ? objectSchema(fields, objects!, 0) : undefined;
    }
  }
}

/** A declared object type as kro writes it: typed properties, no required list. */
function objectSchema(
  fields: Readonly<Record<string, string>>,
  objects: ObjectFields,
  depth: number,
): OpenAPISchema {
  const properties: Record<string, OpenAPISchema> = {};
  // Sorted, as kro's generator writes them (Go marshals map keys in order).
  for (const [name, type] of Object.entries(fields).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    properties[name] = fieldSchema(parseTypeString(type), objects, depth + 1);
  }
  return Object.keys(properties).length > 0 ? { type: 'object', properties } : { type: 'object' };
}

/** A field inside a declared object (kro: only primitives, lists, maps and objects are typed there). */
function fieldSchema(t: TypeExpr, objects: ObjectFields, depth: number): OpenAPISchema {
  if (depth > MAX_OBJECT_DEPTH) return unknownFieldsSchema();
  const primitive = primitiveSchema(t.name);
  if (primitive) return primitive;
  switch (t.name) {
    case 'list':
      return t.params[0]
        ? { type: 'array', items: fieldSchema(t.params[0], objects, depth + 1) }
        : { type: 'array' };
    case 'map':
      return t.params[1]
        ? { type: 'object', additionalProperties: fieldSchema(t.params[1], objects, depth + 1) }
        : { type: 'object', additionalProperties: true };
    default: {
      const fields = objects(t.name);
      return fields ? objectSchema(fields, objects, depth) : unknownFieldsSchema();
    }
  }
}

/**
 * The OpenAPI schema of a CEL type; undefined when unknown (`dyn`, unparsable text, object types the
 * caller cannot look up).
 */
export function celTypeToSchema(
  celType: string | undefined,
  objects?: ObjectFields,
): OpenAPISchema | undefined {
  if (celType === undefined) return undefined;
  try {
    return fromType(parseTypeString(celType), objects);
  } catch {
    return undefined;
  }
}

/** What the compiler knows about one status field. */
export interface CheckedStatusField {
  path: StatusPath;
  mode: 'standalone' | 'template';
  /** The checked CEL result type of the (single) expression of a standalone field. */
  resultType?: string;
  /** The schema of that type with object types expanded (the compiler's registry knew them). */
  resultSchema?: OpenAPISchema;
}

/** Status field types for the CRD generator: templates are strings, standalone fields their CEL type. */
export function statusTypesFromChecked(fields: readonly CheckedStatusField[]): StatusFieldType[] {
  return fields.map((f) => ({
    path: f.path,
    schema: f.mode === 'template' ? { type: 'string' } : (f.resultSchema ?? celTypeToSchema(f.resultType)),
  }));
}
