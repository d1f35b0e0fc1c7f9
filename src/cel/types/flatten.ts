/**
 * Resolves `$ref` and merges `allOf` so that type derivation, value conversion and path walking all
 * see one plain schema. Kubernetes wraps references as `allOf: [{$ref}]` next to a description or
 * default; those wrappers must keep the referenced type. Also adds the implicit apiVersion/kind/
 * metadata of resource roots and `x-kubernetes-embedded-resource` objects.
 */
import type { OpenApiSchema, SchemaResolver } from './openapi.ts';

export interface Flattened {
  readonly schema: OpenApiSchema;
  /** Refs that were followed, outermost first. */
  readonly refs: readonly string[];
  /** A ref that points back at one in `active` was met: the caller cuts the recursion to `dyn`. */
  readonly cyclic: boolean;
  /** Refs the resolver did not know (treated as "any value"). */
  readonly unresolved: readonly string[];
}

/** Keys that only document a schema: a wrapper made of these and one `$ref` is that ref. */
const DOC_KEYS = new Set([
  'description',
  'default',
  'nullable',
  'example',
  'title',
  'x-kubernetes-list-type',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-map-type',
  'x-kubernetes-patch-strategy',
  'x-kubernetes-patch-merge-key',
]);

/** The ref a schema stands for when it is `{$ref}` or `{allOf: [{$ref}]}` plus documentation only. */
export function singleRef(schema: OpenApiSchema): string | undefined {
  let ref: string | undefined;
  for (const [key, value] of Object.entries(schema)) {
    if (DOC_KEYS.has(key)) continue;
    if (key === '$ref' && typeof value === 'string' && ref === undefined) ref = value;
    else if (key === 'allOf' && Array.isArray(value) && value.length === 1 && ref === undefined) {
      ref = singleRef(value[0] as OpenApiSchema);
      if (ref === undefined) return undefined;
    } else return undefined;
  }
  return ref;
}

export function flatten(
  schema: OpenApiSchema,
  resolve: SchemaResolver | undefined,
  active: ReadonlySet<string> = new Set(),
): Flattened {
  const acc = { refs: [] as string[], cyclic: false, unresolved: [] as string[] };
  const result = flattenInto(schema, resolve, new Set(active), acc);
  return { schema: result, ...acc };
}

function flattenInto(
  schema: OpenApiSchema,
  resolve: SchemaResolver | undefined,
  active: Set<string>,
  acc: { refs: string[]; cyclic: boolean; unresolved: string[] },
): OpenApiSchema {
  let base: OpenApiSchema = schema;
  if (typeof schema.$ref === 'string') {
    const ref = schema.$ref;
    const { $ref: _ignored, ...siblings } = schema;
    if (active.has(ref)) {
      acc.cyclic = true;
      return {};
    }
    const target = resolve?.(ref);
    if (target === undefined) {
      acc.unresolved.push(ref);
      return {};
    }
    acc.refs.push(ref);
    active.add(ref);
    base = mergeSchemas(flattenInto(target, resolve, active, acc), siblings);
  }
  if (base.allOf !== undefined && base.allOf.length > 0) {
    const { allOf, ...rest } = base;
    let merged: OpenApiSchema = rest;
    for (const part of allOf) merged = mergeSchemas(merged, flattenInto(part, resolve, active, acc));
    base = merged;
  }
  return base;
}

/** Merges two schemas that both apply (allOf): first wins on scalars; properties are combined. */
export function mergeSchemas(a: OpenApiSchema, b: OpenApiSchema): OpenApiSchema {
  const out: OpenApiSchema = { ...b, ...a };
  if (a.properties !== undefined && b.properties !== undefined) {
    const properties: Record<string, OpenApiSchema> = { ...b.properties };
    for (const [name, sub] of Object.entries(a.properties)) {
      const other = b.properties[name];
      properties[name] = other === undefined ? sub : { allOf: [sub, other] };
    }
    out.properties = properties;
  }
  if (a.items !== undefined && b.items !== undefined) out.items = { allOf: [a.items, b.items] };
  if (a.required !== undefined && b.required !== undefined) {
    out.required = [...new Set([...a.required, ...b.required])];
  }
  for (const flag of [
    'x-kubernetes-int-or-string',
    'x-kubernetes-preserve-unknown-fields',
    'x-kubernetes-embedded-resource',
  ] as const) {
    if (a[flag] === true || b[flag] === true) out[flag] = true;
  }
  return out;
}

/**
 * ObjectMeta as seen at a resource root or embedded resource whose schema does not spell it out
 * (CRDs declare `metadata: {type: object}`). Used for types AND value conversion, so both agree.
 */
export const RESOURCE_METADATA_SCHEMA: OpenApiSchema = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    generateName: { type: 'string' },
    namespace: { type: 'string' },
    uid: { type: 'string' },
    resourceVersion: { type: 'string' },
    generation: { type: 'integer', format: 'int64' },
    creationTimestamp: { type: 'string', format: 'date-time' },
    deletionTimestamp: { type: 'string', format: 'date-time' },
    deletionGracePeriodSeconds: { type: 'integer', format: 'int64' },
    labels: { type: 'object', additionalProperties: { type: 'string' } },
    annotations: { type: 'object', additionalProperties: { type: 'string' } },
    finalizers: { type: 'array', items: { type: 'string' } },
    ownerReferences: {
      type: 'array',
      items: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
    },
    managedFields: { type: 'array', items: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
  },
};

/** Adds apiVersion, kind and (when not spelled out) metadata to a flattened object schema. */
export function withTypeAndObjectMeta(schema: OpenApiSchema): OpenApiSchema {
  const properties = { ...(schema.properties ?? {}) };
  properties.apiVersion ??= { type: 'string' };
  properties.kind ??= { type: 'string' };
  const meta = properties.metadata;
  if (
    meta === undefined ||
    (meta.properties === undefined && meta.$ref === undefined && meta.allOf === undefined)
  ) {
    properties.metadata = RESOURCE_METADATA_SCHEMA;
  }
  return { ...schema, type: schema.type ?? 'object', properties };
}
