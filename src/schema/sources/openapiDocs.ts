/**
 * Helpers over OpenAPI v3 group-version documents as published by `/openapi/v3/...`: find the
 * component of a kind by `x-kubernetes-group-version-kind`, strip descriptions for compact storage,
 * and inline `$ref`s for consumers that want one self-contained schema (cycles cut to untyped).
 */
import { isRecord } from '../../diag/record.ts';
import {
  COMPONENT_REF_PREFIX,
  type OpenAPISchema,
  type SchemaComponents,
  unknownFieldsSchema,
} from '../openapi.ts';

export interface OpenAPIDocument {
  components?: { schemas?: Record<string, unknown> };
}

export function documentComponents(doc: unknown): Record<string, OpenAPISchema> {
  if (!isRecord(doc) || !isRecord(doc.components) || !isRecord(doc.components.schemas)) return {};
  return doc.components.schemas as Record<string, OpenAPISchema>;
}

/** Component name of the kind in a document, by its `x-kubernetes-group-version-kind`. */
export function findKindComponent(
  components: SchemaComponents,
  group: string,
  version: string,
  kind: string,
): string | undefined {
  for (const [name, schema] of Object.entries(components)) {
    const gvks = schema['x-kubernetes-group-version-kind'];
    if (!Array.isArray(gvks)) continue;
    if (
      gvks.some((g) => isRecord(g) && (g.group ?? '') === group && g.version === version && g.kind === kind)
    ) {
      return name;
    }
  }
  return undefined;
}

/** A deep copy without `description` fields (they are most of the bytes of the built-in schemas). */
export function stripDescriptions<T>(value: T): T {
  if (Array.isArray(value)) return value.map(stripDescriptions) as T;
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    // `properties` is a map of field names: a field may be called "description".
    if (k === 'description' && typeof v === 'string') continue;
    out[k] = k === 'properties' && isRecord(v) ? mapValues(v, stripDescriptions) : stripDescriptions(v);
  }
  return out as T;
}

function mapValues(o: Record<string, unknown>, f: (v: unknown) => unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) out[k] = f(v);
  return out;
}

function refTarget(s: OpenAPISchema): string | undefined {
  if (s.$ref?.startsWith(COMPONENT_REF_PREFIX)) return s.$ref.slice(COMPONENT_REF_PREFIX.length);
  const only = s.allOf?.length === 1 ? s.allOf[0] : undefined;
  if (only?.$ref?.startsWith(COMPONENT_REF_PREFIX)) return only.$ref.slice(COMPONENT_REF_PREFIX.length);
  return undefined;
}

const sharedExpansions = new WeakMap<SchemaComponents, Map<string, OpenAPISchema>>();

/**
 * Returns a schema with every `$ref` replaced by its target. A reference that recurs inside itself
 * (recursive types such as JSONSchemaProps) is cut to `x-kubernetes-preserve-unknown-fields`, which
 * the type layer reads as `dyn`. Dangling references are cut the same way.
 */
export function inlineRefs(schema: OpenAPISchema, components: SchemaComponents): OpenAPISchema {
  const active: string[] = [];
  // Expansions that do not depend on their ancestors are shared, also across calls over the same
  // components (the result is a DAG: callers must not mutate it).
  let memo = sharedExpansions.get(components);
  if (!memo) {
    memo = new Map();
    sharedExpansions.set(components, memo);
  }
  const tainted = new Set<string>();
  const visit = (s: OpenAPISchema): OpenAPISchema => {
    const target = refTarget(s);
    if (target !== undefined) {
      const body = components[target];
      if (body === undefined) return unknownFieldsSchema();
      const at = active.indexOf(target);
      if (at >= 0) {
        for (const inner of active.slice(at + 1)) tainted.add(inner);
        return unknownFieldsSchema();
      }
      let inlined = memo.get(target);
      if (inlined === undefined) {
        active.push(target);
        inlined = visit(body);
        active.pop();
        if (!tainted.has(target)) memo.set(target, inlined);
        tainted.delete(target);
      }
      const { $ref: _r, allOf: _a, ...siblings } = s;
      return Object.keys(siblings).length > 0 ? { ...inlined, ...siblings } : inlined;
    }
    const out: OpenAPISchema = { ...s };
    if (s.properties) {
      const props: Record<string, OpenAPISchema> = {};
      for (const [k, v] of Object.entries(s.properties)) props[k] = visit(v);
      out.properties = props;
    }
    if (s.items) out.items = visit(s.items);
    if (s.additionalProperties && typeof s.additionalProperties === 'object') {
      out.additionalProperties = visit(s.additionalProperties);
    }
    for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
      const list = s[key];
      if (list) out[key] = list.map(visit);
    }
    return out;
  };
  return visit(schema);
}
