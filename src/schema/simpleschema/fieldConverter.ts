/**
 * Converts one SimpleSchema value to OpenAPI: a nested map becomes an object with properties, a
 * `<type> | <markers>` string becomes the type's schema with its markers applied. Custom types are
 * looked up in an already-resolved table, so this module never recurses into type declarations.
 */

import { isRecord } from '../../diag/record.ts';
import { closest } from '../../diag/suggest.ts';
import { SchemaCode } from '../codes.ts';
import { type OpenAPISchema, unknownFieldsSchema } from '../openapi.ts';
import { childPath, type DiagnosticSink } from '../report.ts';
import { applyMarkers } from './applyMarkers.ts';
import { parseMarkers } from './markers.ts';
import { parseTypeExpr, splitField, type TypeExpr } from './typeExpr.ts';

export interface ConvertedField {
  schema: OpenAPISchema;
  required: boolean;
}

/** A custom type of `spec.schema.types`, resolved (customTypes.ts). */
export interface ResolvedCustomType {
  schema: OpenAPISchema;
  /** The alias was declared with `required=true`: every field using it is required. */
  required: boolean;
}

/** Lookup of custom types that are already resolved (or known to be broken). */
export interface CustomTypeTable {
  get(name: string): ResolvedCustomType | 'broken' | undefined;
  /** The declared type names (for "did you mean"). */
  names(): Iterable<string>;
}

/** The type names SimpleSchema knows without a declaration (`map` and `object` are written `map[…]`, `object`). */
const SIMPLE_TYPES = ['string', 'integer', 'boolean', 'float', 'object'];

export class FieldConverter {
  constructor(
    private readonly types: CustomTypeTable,
    private readonly sink: DiagnosticSink,
  ) {}

  /** A nested map: each key is a field. */
  object(fields: Record<string, unknown>, path: string): OpenAPISchema {
    const properties: Record<string, OpenAPISchema> = {};
    const required: string[] = [];
    for (const [key, value] of Object.entries(fields)) {
      const fieldPath = childPath(path, key);
      const field = this.field(value, fieldPath);
      properties[key] = field.schema;
      if (field.required) required.push(key);
    }
    const schema: OpenAPISchema = { type: 'object', properties };
    if (required.length > 0) schema.required = required.sort();
    // Without a default on the object itself, the API server never descends into an omitted object,
    // so defaults of its children would not materialise.
    else if (Object.values(properties).some((p) => p.default !== undefined)) schema.default = {};
    return schema;
  }

  field(value: unknown, path: string): ConvertedField {
    if (isRecord(value)) return { schema: this.object(value, path), required: false };
    if (typeof value !== 'string') {
      const got = value === null ? 'null' : Array.isArray(value) ? 'a list' : typeof value;
      this.sink.error(
        SchemaCode.InvalidFieldValue,
        path,
        `a SimpleSchema field must be a type string or a nested map, got ${got}`,
        'write the type as a string, e.g. "integer | default=1"',
      );
      return { schema: unknownFieldsSchema(), required: false };
    }
    return this.typed(value, path);
  }

  /** A `<type> | <markers>` string. */
  typed(text: string, path: string): ConvertedField {
    const { typeText, markerText } = splitField(text);
    const parsed = parseTypeExpr(typeText);
    if (!parsed.ok) {
      this.sink.error(parsed.code, path, parsed.message);
      return { schema: unknownFieldsSchema(), required: false };
    }
    const base = this.fromType(parsed.type, path);
    if (base === undefined) return { schema: unknownFieldsSchema(), required: false };
    const markers = parseMarkers(markerText);
    if (!markers.ok) {
      const code = markers.kind === 'unknown-marker' ? SchemaCode.UnknownMarker : SchemaCode.MarkerSyntax;
      this.sink.error(code, path, markers.message);
      return { schema: base.schema, required: base.required };
    }
    const applied = applyMarkers(base.schema, markers.markers, path, this.sink);
    return { schema: base.schema, required: base.required || applied.required };
  }

  /** The schema of a type expression; `required` carries a custom alias's `required=true`. */
  fromType(t: TypeExpr, path: string): ConvertedField | undefined {
    switch (t.kind) {
      case 'atomic':
        return { schema: { type: t.name === 'float' ? 'number' : t.name }, required: false };
      case 'object':
        return { schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }, required: false };
      case 'array': {
        const element = this.fromType(t.element, path);
        return element && { schema: { type: 'array', items: element.schema }, required: false };
      }
      case 'map': {
        const value = this.fromType(t.value, path);
        return value && { schema: { type: 'object', additionalProperties: value.schema }, required: false };
      }
      case 'custom': {
        const found = this.types.get(t.name);
        if (found === 'broken') return undefined; // already reported where the type is declared
        if (found === undefined) {
          // A misspelt type (`integr`) gets the closest built-in or declared type; only a name close
          // to none of them is told to declare it.
          const near = closest(t.name, [...SIMPLE_TYPES, ...this.types.names()]);
          const hint =
            t.name === 'number' || t.name === 'float64' || t.name === 'double'
              ? 'use "float" for numbers'
              : t.name === 'bool' || t.name === 'int'
                ? `use "${t.name === 'bool' ? 'boolean' : 'integer'}"`
                : near === undefined
                  ? 'declare it under spec.schema.types'
                  : undefined;
          const message = `unknown type: ${t.name}${near !== undefined && hint === undefined ? ` (did you mean "${near}"?)` : ''}`;
          this.sink.error(SchemaCode.UnknownType, path, message, hint);
          return undefined;
        }
        return { schema: structuredClone(found.schema), required: found.required };
      }
    }
  }
}
