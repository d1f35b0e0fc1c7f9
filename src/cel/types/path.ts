/**
 * Finds the schema of the field an expression lands in (design/graph.md §17.2: walk `properties`,
 * `additionalProperties` and array `items`), and tells schemaless regions (design/graph.md §6.4) apart from
 * fields the schema does not know (design/graph.md §17.3).
 */
import { flatten, withTypeAndObjectMeta } from './flatten.ts';
import type { OpenApiSchema, SchemaResolver } from './openapi.ts';
import { isSchemaless, schemaKind } from './registry.ts';

export type SchemaAtPath =
  /**
   * The field's schema, flattened (refs and allOf resolved), and the schema object as written in
   * its parent: pass `original` to isAssignable so the registry's memo reuses the derived type.
   */
  | { readonly kind: 'schema'; readonly schema: OpenApiSchema; readonly original: OpenApiSchema }
  /** Inside x-kubernetes-preserve-unknown-fields, int-or-string, anyOf/oneOf or a typeless schema: expected type dyn. */
  | { readonly kind: 'schemaless' }
  /** The schema does not allow this field; `at` is the index of the first unknown segment. */
  | { readonly kind: 'unknown'; readonly at: number };

export interface SchemaPathOptions {
  readonly resolve?: SchemaResolver;
  /** The schema is the root of a resource (apiVersion/kind/metadata always known). */
  readonly resourceRoot?: boolean;
}

export function schemaAtPath(
  root: OpenApiSchema,
  segments: readonly (string | number)[],
  options: SchemaPathOptions = {},
): SchemaAtPath {
  let original = root;
  let current = flatten(root, options.resolve).schema;
  if (options.resourceRoot === true) current = withTypeAndObjectMeta(current);
  for (let i = 0; i < segments.length; i++) {
    if (isSchemaless(current)) return { kind: 'schemaless' };
    if (current['x-kubernetes-embedded-resource'] === true) current = withTypeAndObjectMeta(current);
    const segment = segments[i]!;
    const kind = schemaKind(current);
    let next: OpenApiSchema | undefined;
    if (typeof segment === 'number') {
      if (kind === 'array') next = current.items ?? {};
    } else if (kind === 'object') {
      next = current.properties?.[segment];
      if (next === undefined && !Object.hasOwn(current.properties ?? {}, segment)) {
        const ap = current.additionalProperties;
        if (ap === true) return { kind: 'schemaless' };
        if (ap !== undefined && ap !== false) next = ap;
        else if (current.properties === undefined) return { kind: 'schemaless' };
      }
    }
    if (next === undefined) return { kind: 'unknown', at: i };
    original = next;
    current = flatten(next, options.resolve).schema;
  }
  if (isSchemaless(current)) return { kind: 'schemaless' };
  return { kind: 'schema', schema: current, original };
}
