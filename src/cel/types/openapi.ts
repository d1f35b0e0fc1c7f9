/**
 * The subset of OpenAPI v3 / JSON Schema that Kubernetes uses for resource schemas (discovery
 * `/openapi/v3` documents and CRD `openAPIV3Schema`). Only what type derivation, value conversion
 * and structural compatibility read is modelled; everything else passes through untouched.
 */
export interface OpenApiSchema {
  type?: string;
  format?: string;
  description?: string;
  properties?: Record<string, OpenApiSchema>;
  /** A schema for the values of a map, or `true` (any value) / `false` (no extra keys). */
  additionalProperties?: OpenApiSchema | boolean;
  items?: OpenApiSchema;
  required?: string[];
  enum?: unknown[];
  nullable?: boolean;
  default?: unknown;
  allOf?: OpenApiSchema[];
  anyOf?: OpenApiSchema[];
  oneOf?: OpenApiSchema[];
  /** `#/components/schemas/<name>`; resolved through a {@link SchemaResolver}. */
  $ref?: string;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-list-type'?: string;
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: string;
}

/** Resolves a `$ref` string to its schema; undefined when unknown. Must return the same object for the same ref. */
export type SchemaResolver = (ref: string) => OpenApiSchema | undefined;

/** A resolver over an OpenAPI v3 document's `components.schemas` (refs `#/components/schemas/<name>`). */
export function componentsResolver(document: {
  components?: { schemas?: Record<string, OpenApiSchema> };
}): SchemaResolver {
  const schemas = document.components?.schemas ?? {};
  const prefix = '#/components/schemas/';
  return (ref) => {
    const name = ref.startsWith(prefix) ? ref.slice(prefix.length) : ref;
    return Object.hasOwn(schemas, name) ? schemas[name] : undefined;
  };
}

/** The component name a `$ref` points at: `#/components/schemas/io.k8s.api.core.v1.PodSpec` → `io.k8s.api.core.v1.PodSpec`. */
export function refName(ref: string): string {
  const slash = ref.lastIndexOf('/');
  return slash >= 0 ? ref.slice(slash + 1) : ref;
}
