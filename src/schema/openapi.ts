/**
 * The OpenAPI v3 schema model kgraph works with. It is the subset of JSON Schema that Kubernetes uses
 * (CRD `JSONSchemaProps` plus the `x-kubernetes-*` extensions and `$ref`/`allOf` as published by
 * `/openapi/v3`). One shape for every source, so the compiler never cares where a schema came from.
 */

import { markDynamic } from '../cel/types/typeless.ts';

export interface ValidationRule {
  rule: string;
  message?: string;
  messageExpression?: string;
  reason?: string;
  fieldPath?: string;
  optionalOldSelf?: boolean;
}

export interface OpenAPISchema {
  type?: 'string' | 'integer' | 'number' | 'boolean' | 'object' | 'array';
  format?: string;
  description?: string;
  properties?: Record<string, OpenAPISchema>;
  additionalProperties?: OpenAPISchema | boolean;
  items?: OpenAPISchema;
  required?: string[];
  default?: unknown;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  minProperties?: number;
  maxProperties?: number;
  nullable?: boolean;
  $ref?: string;
  allOf?: OpenAPISchema[];
  anyOf?: OpenAPISchema[];
  oneOf?: OpenAPISchema[];
  not?: OpenAPISchema;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: 'atomic' | 'granular';
  'x-kubernetes-validations'?: ValidationRule[];
  'x-kubernetes-group-version-kind'?: { group: string; version: string; kind: string }[];
}

/** Named schemas that `$ref: '#/components/schemas/<name>'` points into. */
export type SchemaComponents = Readonly<Record<string, OpenAPISchema>>;

export const COMPONENT_REF_PREFIX = '#/components/schemas/';

/** Schema for a field whose type is unknown or dynamic: accepted as-is by the API server, `dyn` in CEL. */
export function unknownFieldsSchema(): OpenAPISchema {
  // Marked: kgraph's own "dyn", never a user's typeless field (cel/types/typeless.ts).
  return markDynamic({ 'x-kubernetes-preserve-unknown-fields': true });
}

/**
 * Follows `$ref` (and the `allOf: [{$ref}]` wrapper the API server emits to attach siblings such as
 * `default` or `description`) until a concrete schema is reached. Siblings of the wrapper win over the
 * referenced schema. Returns undefined when a reference is dangling.
 */
export function derefSchema(schema: OpenAPISchema, components: SchemaComponents): OpenAPISchema | undefined {
  let current: OpenAPISchema = schema;
  const seen = new Set<string>();
  for (;;) {
    let ref = current.$ref;
    let siblings: OpenAPISchema | undefined;
    if (ref === undefined && current.allOf?.length === 1 && current.allOf[0]?.$ref !== undefined) {
      ref = current.allOf[0].$ref;
      const { allOf: _allOf, ...rest } = current;
      siblings = rest;
    }
    if (ref === undefined) return current;
    if (!ref.startsWith(COMPONENT_REF_PREFIX) || seen.has(ref)) return undefined;
    seen.add(ref);
    const target = components[ref.slice(COMPONENT_REF_PREFIX.length)];
    if (target === undefined) return undefined;
    current = siblings === undefined ? target : { ...target, ...siblings };
  }
}

/** All component names reachable from a schema (including itself when it is a reference). */
export function collectRefs(
  schema: OpenAPISchema,
  components: SchemaComponents,
  into = new Set<string>(),
): Set<string> {
  const visit = (s: OpenAPISchema | boolean | undefined): void => {
    if (s === undefined || typeof s === 'boolean') return;
    if (s.$ref?.startsWith(COMPONENT_REF_PREFIX)) {
      const name = s.$ref.slice(COMPONENT_REF_PREFIX.length);
      if (!into.has(name)) {
        into.add(name);
        visit(components[name]);
      }
    }
    if (s.properties) for (const p of Object.values(s.properties)) visit(p);
    visit(s.additionalProperties);
    visit(s.items);
    visit(s.not);
    for (const list of [s.allOf, s.anyOf, s.oneOf]) if (list) for (const x of list) visit(x);
  };
  visit(schema);
  return into;
}
