/**
 * A CRD field declared with only `x-kubernetes-preserve-unknown-fields` and no `type`. kro derives CEL types as the Kubernetes API server does (`SchemaDeclType`): a schema without a
 * type is not exposed, so reading such a field is "undefined field". kgraph does the same by default;
 * the permissive reading (the field is `dyn`) is the `--no-kro-compat` opt-in.
 *
 * kgraph itself writes `{x-kubernetes-preserve-unknown-fields: true}` as its "unknown, read as dyn"
 * marker (a cut recursive `$ref`, a def value that is an expression, an untyped status field). Those
 * markers are made by `markDynamic` and never count as typeless: only what a user's schema says does.
 */
import type { OpenApiSchema } from './openapi.ts';

const KGRAPH_DYNAMIC = new WeakSet<object>();

/** Marks a schema kgraph made up to mean "dyn" (never hidden by the kro rule). */
export function markDynamic<T extends object>(schema: T): T {
  KGRAPH_DYNAMIC.add(schema);
  return schema;
}

/** True for a user schema that only preserves unknown fields: no type, nothing that implies one. */
export function isTypelessPreserveUnknown(s: OpenApiSchema): boolean {
  return (
    s['x-kubernetes-preserve-unknown-fields'] === true &&
    s.type === undefined &&
    s['x-kubernetes-int-or-string'] !== true &&
    s.properties === undefined &&
    s.additionalProperties === undefined &&
    s.items === undefined &&
    (s.anyOf?.length ?? 0) === 0 &&
    (s.oneOf?.length ?? 0) === 0 &&
    (s.allOf?.length ?? 0) === 0 &&
    s.$ref === undefined &&
    !KGRAPH_DYNAMIC.has(s)
  );
}
