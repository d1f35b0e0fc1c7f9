import type { Ast, CheckContext, Checker, Evaluator, TypeDecl } from './engineTypes.ts';

/** Key and value types of the two iteration variables over a list (index, element) or map (key, value). */
export function iterationTypes(checker: Checker, receiver: Ast, ctx: CheckContext): [TypeDecl, TypeDecl] {
  const type = checker.check(receiver, ctx);
  if (type.kind === 'dyn') return [checker.dynType, checker.dynType];
  if (type.kind === 'list') return [checker.intType, concrete(checker, type.valueType)];
  if (type.kind === 'map') return [concrete(checker, type.keyType), concrete(checker, type.valueType)];
  throw checker.createError(
    'invalid_comprehension_range',
    `Expression of type '${checker.formatType(type)}' cannot be range of a comprehension (must be list, map, or dynamic).`,
    receiver,
  );
}

/** The (key, value) pairs of a runtime list or map, in iteration order. */
export function iterationPairs(ev: Evaluator, value: unknown, node: Ast): Array<[unknown, unknown]> {
  if (Array.isArray(value)) return value.map((v, i) => [BigInt(i), v]);
  if (value instanceof Map) return [...value.entries()];
  if (value instanceof Set) return [...value].map((v, i) => [BigInt(i), v]);
  if (typeof value === 'object' && value !== null && isPlainMap(value)) {
    return Object.keys(value).map((k) => [k, (value as Record<string, unknown>)[k]]);
  }
  throw ev.createError(
    'invalid_comprehension_range',
    `Expression of type '${ev.debugType(value).name}' cannot be range of a comprehension (must be list, map, or dynamic).`,
    node,
  );
}

function isPlainMap(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return proto === null || proto === Object.prototype;
}

/** Builds a CEL map value: a plain object when every key is a string (the engine's own choice), else a Map. */
export function buildMap(entries: ReadonlyArray<readonly [unknown, unknown]>): unknown {
  if (entries.every(([k]) => typeof k === 'string')) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of entries) {
      // defineProperty keeps a "__proto__" key an ordinary entry.
      if (k === '__proto__') Object.defineProperty(out, k, { value: v, enumerable: true, writable: true });
      else out[k as string] = v;
    }
    return out;
  }
  return new Map(entries);
}

export function mapHasKey(map: unknown, key: unknown): boolean {
  if (map instanceof Map) return map.has(key);
  return typeof key === 'string' && typeof map === 'object' && map !== null && Object.hasOwn(map, key);
}

/** The element type of an empty literal (`[]`, `{}`) is a type parameter; iterate it as dyn. */
export function concrete(checker: Checker, type: TypeDecl | undefined): TypeDecl {
  return type === undefined || type.kind === 'param' ? checker.dynType : type;
}
