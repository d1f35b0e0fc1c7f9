/**
 * Structural compatibility of an expression's result type with the schema of the field it lands
 * in (design/graph.md §17.2). CEL assignability first (same type, or dyn involved); otherwise a
 * deep structural comparison:
 *   - primitives: the kinds must match ("kind mismatch");
 *   - lists element-wise; maps key and value;
 *   - map ↔ object in both directions: map → object needs string keys and a value type compatible
 *     with every field of the object; object → map needs every field compatible with the value type;
 *   - objects: the output's fields must be a subset of the expected fields;
 *   - optional<T> is T (a whole-field optional renders null when empty), unless disabled;
 *   - dyn (and generic parameters of `[]` / `{}`) are compatible with everything (checked at run time).
 * kgraph: `null` is accepted everywhere (it renders as JSON null, like an empty optional).
 */
import type { OpenApiSchema } from './openapi.ts';
import type { SchemaTypeRegistry } from './registry.ts';
import {
  formatTypeString,
  isTypeParam,
  PRIMITIVE_TYPES,
  parseTypeString,
  type TypeExpr,
} from './typeString.ts';

export type Assignability =
  | { readonly ok: true }
  | {
      readonly ok: false;
      /** Path of the offending part, relative to the target field ('' = the field itself). */
      readonly fieldPath: string;
      /** CEL type expected at `fieldPath`. */
      readonly expected: string;
      /** CEL type produced at `fieldPath`. */
      readonly got: string;
      /** Human-readable reason, with the kro wording ("kind mismatch", "exists in output but not in expected type"). */
      readonly message: string;
    };

export interface AssignableOptions {
  /** Treat `optional<T>` as `T` (default true; design/graph.md §17.2 rule 6 and design/graph.md §16.5). */
  readonly allowOptional?: boolean;
  /** Prefixed to `fieldPath` in mismatches (e.g. the target field's path). */
  readonly basePath?: string;
}

/** Checks the type `exprType` (checker output) against the schema of the target field. */
export function isAssignable(
  exprType: string,
  fieldSchema: OpenApiSchema,
  registry: SchemaTypeRegistry,
  options: AssignableOptions = {},
): Assignability {
  const expected = registry.typeFor(fieldSchema, 'Expected');
  return isTypeAssignable(exprType, expected, registry, options);
}

/** Same as {@link isAssignable} with the expected side already a CEL type name. */
export function isTypeAssignable(
  exprType: string,
  expectedType: string,
  registry: SchemaTypeRegistry,
  options: AssignableOptions = {},
): Assignability {
  const ctx: Ctx = { registry, allowOptional: options.allowOptional ?? true };
  const r = compare(parseTypeString(exprType), parseTypeString(expectedType), ctx);
  if (r === undefined) return { ok: true };
  const base = options.basePath ?? '';
  return { ok: false, ...r, fieldPath: base + r.fieldPath };
}

interface Ctx {
  readonly registry: SchemaTypeRegistry;
  readonly allowOptional: boolean;
}

interface Failure {
  fieldPath: string;
  expected: string;
  got: string;
  message: string;
}

function fail(got: TypeExpr, expected: TypeExpr, message: string, fieldPath = ''): Failure {
  return { fieldPath, expected: formatTypeString(expected), got: formatTypeString(got), message };
}

function kindMismatch(got: TypeExpr, expected: TypeExpr): Failure {
  const g = formatTypeString(got);
  const e = formatTypeString(expected);
  // Both spec phrasings: "kind mismatch" (design/graph.md §17.2 rule 2) and "type mismatch" (ConfigMap data, design/graph.md §17.2).
  return fail(got, expected, `type mismatch: kind mismatch, got "${g}", expected "${e}"`);
}

/** Prefixes a nested failure with a path step and a reason. */
function nest(f: Failure, step: string, reason: string): Failure {
  return { ...f, fieldPath: step + f.fieldPath, message: `${reason}: ${f.message}` };
}

function isAny(t: TypeExpr): boolean {
  return t.name === 'dyn' || isTypeParam(t);
}

function compare(got: TypeExpr, expected: TypeExpr, ctx: Ctx): Failure | undefined {
  if (formatTypeString(got) === formatTypeString(expected)) return undefined;
  if (isAny(got) || isAny(expected) || got.name === 'null') return undefined;
  if (got.name === 'optional' && got.params.length === 1) {
    if (!ctx.allowOptional)
      return fail(got, expected, `optional value where "${formatTypeString(expected)}" is expected`);
    return compare(got.params[0]!, expected, ctx);
  }
  const expectedObject = ctx.registry.objectType(expected.name);
  const gotObject = ctx.registry.objectType(got.name);
  if (expected.name === 'list') {
    if (got.name !== 'list') return kindMismatch(got, expected);
    const r = compare(got.params[0]!, expected.params[0]!, ctx);
    return r && nest(r, '[*]', 'list element type incompatible');
  }
  if (expected.name === 'map') {
    if (got.name === 'map') {
      const k = compare(got.params[0]!, expected.params[0]!, ctx);
      if (k) return nest(k, '', 'map key type incompatible');
      const v = compare(got.params[1]!, expected.params[1]!, ctx);
      return v && nest(v, '[*]', 'map value type incompatible');
    }
    if (gotObject !== undefined) {
      if (!isStringLike(expected.params[0]!)) {
        return fail(got, expected, 'map key type must be string when assigning an object to a map');
      }
      for (const [name, type] of Object.entries(gotObject.fields)) {
        const r = compare(parseTypeString(type), expected.params[1]!, ctx);
        if (r) return nest(r, `.${name}`, `object field "${name}" incompatible with map value type`);
      }
      return undefined;
    }
    return kindMismatch(got, expected);
  }
  if (expectedObject !== undefined) {
    if (got.name === 'map') {
      if (!isStringLike(got.params[0]!)) {
        return fail(got, expected, 'map keys must be strings to assign a map to an object');
      }
      for (const [name, type] of Object.entries(expectedObject.fields)) {
        const r = compare(got.params[1]!, parseTypeString(type), ctx);
        if (r) return nest(r, '', `map value incompatible with object field "${name}"`);
      }
      return undefined;
    }
    if (gotObject !== undefined) {
      for (const [name, type] of Object.entries(gotObject.fields)) {
        const want = expectedObject.fields[name];
        if (want === undefined) {
          return fail(got, expected, `field "${name}" exists in output but not in expected type`, `.${name}`);
        }
        const r = compare(parseTypeString(type), parseTypeString(want), ctx);
        if (r) return nest(r, `.${name}`, `field "${name}" has incompatible type`);
      }
      return undefined;
    }
    return kindMismatch(got, expected);
  }
  if (PRIMITIVE_TYPES.has(expected.name) || PRIMITIVE_TYPES.has(got.name)) return kindMismatch(got, expected);
  // Two named types we did not derive (library types such as Quantity): only the same name fits.
  return kindMismatch(got, expected);
}

function isStringLike(t: TypeExpr): boolean {
  return t.name === 'string' || isAny(t);
}
