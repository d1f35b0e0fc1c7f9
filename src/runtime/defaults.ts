/**
 * Structural defaulting of an instance by its OpenAPI schema, as the API server does on admission:
 * a missing property with a `default` gets a copy of it, then present objects, list items and map
 * values are defaulted recursively. Used to prepare an RGD instance offline (design/rgd.md §20.1).
 */

import { isRecord } from '../diag/record.ts';
import type { OpenAPISchema } from '../schema/openapi.ts';

/** Returns a defaulted copy; the input is not mutated. */
export function applyDefaults(value: unknown, schema: OpenAPISchema | undefined): unknown {
  if (schema === undefined) return value;
  if (Array.isArray(value)) {
    return schema.items ? value.map((v) => applyDefaults(v, schema.items)) : [...value];
  }
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = { ...value };
  for (const [key, prop] of Object.entries(schema.properties ?? {})) {
    if (out[key] === undefined && prop.default !== undefined) out[key] = structuredClone(prop.default);
    if (out[key] !== undefined) out[key] = applyDefaults(out[key], prop);
  }
  const extra = schema.additionalProperties;
  if (typeof extra === 'object') {
    for (const key of Object.keys(out)) {
      if (schema.properties?.[key] === undefined) out[key] = applyDefaults(out[key], extra);
    }
  }
  return out;
}
