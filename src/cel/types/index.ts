/**
 * OpenAPI → CEL types, for type-checking expressions against resource schemas
 * (design/graph.md §17, design/platform.md §3.3: check typed, evaluate dyn).
 *
 * Interface (works with a raw @marcbachmann/cel-js `Environment` or the facade's `setup` hook):
 *
 *   const registry = new SchemaTypeRegistry({ resolve: componentsResolver(openapiDoc) });
 *   const t = celTypeForSchema(schema, registry, 'Deployment', { resourceRoot: true }); // 'Deployment'
 *   registry.registerInto(engineEnv);           // object types, dependencies first
 *   engineEnv.registerVariable('deployment', t);
 *   // … check an expression, get its type string, then:
 *   const fit = isAssignable(checkedType, schemaOfTargetField, registry, { basePath: 'spec.replicas' });
 *   if (!fit.ok) report(fit.fieldPath, fit.expected, fit.got, fit.message);
 *
 *   schemaAtPath(rootSchema, ['spec', 'containers', 0, 'image'], { resolve, resourceRoot: true })
 *     → { kind: 'schema', schema } | { kind: 'schemaless' } (expected dyn) | { kind: 'unknown', at }
 *
 * Type names: object types are named after the hint (`Deployment_spec`, `_item` for list items,
 * `_value` for map values) or, for `$ref` schemas, after the referenced component (`PodSpec`);
 * names are made unique per registry. Timestamps are `google.protobuf.Timestamp` (the engine's name).
 */
export { type Assignability, type AssignableOptions, isAssignable, isTypeAssignable } from './assignable.ts';
export {
  flatten,
  mergeSchemas,
  RESOURCE_METADATA_SCHEMA,
  singleRef,
  withTypeAndObjectMeta,
} from './flatten.ts';
export { componentsResolver, type OpenApiSchema, refName, type SchemaResolver } from './openapi.ts';
export { type SchemaAtPath, type SchemaPathOptions, schemaAtPath } from './path.ts';
export {
  celTypeForSchema,
  isSchemaless,
  type ObjectTypeInfo,
  type RegistryOptions,
  SchemaTypeRegistry,
  schemaKind,
  type TypeOptions,
  type TypeRegistrationTarget,
} from './registry.ts';
export { isTypelessPreserveUnknown, markDynamic } from './typeless.ts';
export { formatTypeString, parseTypeString, type TypeExpr } from './typeString.ts';
