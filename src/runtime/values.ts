/**
 * The engine's side of the CEL value boundary. Conversions themselves belong to the CEL layer
 * (src/cel/values.ts: JSON → CEL by schema with BigInt integers; CEL → exact JSON); this module adapts
 * them to the engine: a conversion failure becomes a hard error of the node, and optionals are
 * recognised without importing the CEL engine.
 */
import { celToJson, dynToCel, type ExactJson, stringifyJson } from '../cel/values.ts';

/** A value as it appears in a rendered manifest: exact JSON (integers beyond 2^53 stay BigInt). */
export type PlainValue = ExactJson;

interface OptionalLike {
  hasValue(): boolean;
  value(): unknown;
}

/** True for a CEL optional (duck-typed so the engine needs no import of the CEL engine). */
export function isOptionalValue(v: unknown): v is OptionalLike {
  return (
    typeof v === 'object' &&
    v !== null &&
    (v as { [Symbol.toStringTag]?: unknown })[Symbol.toStringTag] === 'optional' &&
    typeof (v as OptionalLike).hasValue === 'function'
  );
}

/** Unwraps a CEL optional: present → its value, absent → `null` (a whole-field empty optional renders null). */
export function unwrapOptional(v: unknown): unknown {
  if (!isOptionalValue(v)) return v;
  return v.hasValue() ? v.value() : null;
}

/** Schemaless JSON → CEL: integral numbers become ints (BigInt), the rest keeps its shape. */
export function jsonToCel(v: unknown): unknown {
  return dynToCel(v);
}

/** CEL value → exact JSON; throws a KgraphError (KG1201) for values JSON cannot hold. */
export function celToPlain(v: unknown): PlainValue {
  return celToJson(v);
}

/** JSON text with BigInt written as exact integers (never through Number). */
export function stringifyLossless(value: PlainValue, indent = 2): string {
  return stringifyJson(value, indent);
}
