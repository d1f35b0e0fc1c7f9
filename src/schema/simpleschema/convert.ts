/**
 * SimpleSchema → OpenAPI v3, the entry point: resolves `spec.schema.types` first (customTypes.ts),
 * then converts `spec.schema.spec` field by field (fieldConverter.ts), expanding custom types inline.
 */
import type { Diagnostic } from '../../diag/diagnostic.ts';
import { isRecord } from '../../diag/record.ts';
import { SchemaCode } from '../codes.ts';
import type { OpenAPISchema } from '../openapi.ts';
import { DiagnosticSink, type Locate } from '../report.ts';
import { resolveCustomTypes } from './customTypes.ts';
import { FieldConverter } from './fieldConverter.ts';

export interface ConvertOptions {
  /** `spec.schema.types`: custom type name → SimpleSchema. */
  types?: unknown;
  /** Field path of the converted value, used in diagnostics. Default `spec.schema.spec`. */
  path?: string;
  /** Field path of the types map. Default `spec.schema.types`. */
  typesPath?: string;
  /** Maps a field path to a source location (YAML positions). */
  locate?: Locate;
}

export interface ConvertResult {
  schema: OpenAPISchema;
  diagnostics: Diagnostic[];
}

/** Converts a SimpleSchema object (the RGD's `spec.schema.spec`) to an OpenAPI object schema. */
export function simpleSchemaToOpenAPI(spec: unknown, options: ConvertOptions = {}): ConvertResult {
  const sink = new DiagnosticSink(options.locate);
  const path = options.path ?? 'spec.schema.spec';
  const types = resolveCustomTypes(options.types, options.typesPath ?? 'spec.schema.types', sink);
  const converter = new FieldConverter(types, sink);
  let schema: OpenAPISchema;
  if (spec === undefined || spec === null) schema = { type: 'object' };
  else if (isRecord(spec)) schema = converter.object(spec, path);
  else {
    sink.error(SchemaCode.InvalidFieldValue, path, 'the SimpleSchema spec must be a map of field names');
    schema = { type: 'object' };
  }
  return { schema, diagnostics: sink.diagnostics };
}
