/**
 * Maps the CEL result type of a status expression (checker notation: `string`, `list<int>`,
 * `map<string, dyn>`, `optional<bool>`, `google.protobuf.Timestamp`) to the OpenAPI schema written
 * into the generated CRD's status. Object types and `dyn` have no faithful structural schema here and
 * stay undefined, which the status builder turns into `x-kubernetes-preserve-unknown-fields`.
 */
import { parseTypeString, type TypeExpr } from '../../cel/types/typeString.ts';
import { type OpenAPISchema, unknownFieldsSchema } from '../openapi.ts';
import type { StatusFieldType, StatusPath } from './statusSchema.ts';

function fromType(t: TypeExpr): OpenAPISchema | undefined {
  switch (t.name) {
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
    case 'google.protobuf.Timestamp':
      return { type: 'string', format: 'date-time' };
    case 'google.protobuf.Duration':
      return { type: 'string' };
    case 'optional':
      return t.params[0] ? fromType(t.params[0]) : undefined;
    case 'list': {
      const items = t.params[0] ? fromType(t.params[0]) : undefined;
      return { type: 'array', items: items ?? unknownFieldsSchema() };
    }
    case 'map': {
      const key = t.params[0];
      if (key && key.name !== 'string' && key.name !== 'dyn') return undefined;
      const value = t.params[1] ? fromType(t.params[1]) : undefined;
      return value
        ? { type: 'object', additionalProperties: value }
        : { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
    }
    default:
      return undefined;
  }
}

/** The OpenAPI schema of a CEL type; undefined when unknown (`dyn`, object types, unparsable text). */
export function celTypeToSchema(celType: string | undefined): OpenAPISchema | undefined {
  if (celType === undefined) return undefined;
  try {
    return fromType(parseTypeString(celType));
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
}

/** Status field types for the CRD generator: templates are strings, standalone fields their CEL type. */
export function statusTypesFromChecked(fields: readonly CheckedStatusField[]): StatusFieldType[] {
  return fields.map((f) => ({
    path: f.path,
    schema: f.mode === 'template' ? { type: 'string' } : celTypeToSchema(f.resultType),
  }));
}
