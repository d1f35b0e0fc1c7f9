import type { Type } from '@bufbuild/cel-spec/cel/expr/checked_pb.js';
import type { Value } from '@bufbuild/cel-spec/cel/expr/value_pb.js';
import { fromBinary } from '@bufbuild/protobuf';
import { DurationSchema, TimestampSchema } from '@bufbuild/protobuf/wkt';
import { Duration, UnsignedInt } from '@marcbachmann/cel-js/evaluator';

/** A conformance case that needs protobuf messages (or unknowns), which kgraph's environment does not model. */
export class NotApplicable extends Error {}

const PRIMITIVES: Record<number, string> = {
  1: 'bool',
  2: 'int',
  3: 'uint',
  4: 'double',
  5: 'string',
  6: 'bytes',
};

/** A cel.expr.Type as an engine type string (`dyn` where the engine has no equivalent). */
export function typeString(type: Type | undefined): string {
  const kind = type?.typeKind;
  switch (kind?.case) {
    case 'primitive':
      return PRIMITIVES[kind.value] ?? 'dyn';
    case 'listType':
      return `list<${typeString(kind.value.elemType)}>`;
    case 'mapType':
      return `map<${typeString(kind.value.keyType)}, ${typeString(kind.value.valueType)}>`;
    case 'wellKnown':
      return kind.value === 2
        ? 'google.protobuf.Timestamp'
        : kind.value === 3
          ? 'google.protobuf.Duration'
          : 'dyn';
    case 'messageType':
      if (kind.value === 'google.protobuf.Timestamp' || kind.value === 'google.protobuf.Duration')
        return kind.value;
      throw new NotApplicable(`message type ${kind.value}`);
    case 'null':
      return 'null';
    case 'type':
      return 'type';
    case 'abstractType':
      if (kind.value.name === 'optional_type') return `optional<${typeString(kind.value.parameterTypes[0])}>`;
      return 'dyn';
    default:
      return 'dyn';
  }
}

/** A cel.expr.Value as an engine value. */
export function toEngineValue(value: Value | undefined): unknown {
  const kind = value?.kind;
  switch (kind?.case) {
    case 'nullValue':
      return null;
    case 'boolValue':
    case 'stringValue':
    case 'doubleValue':
      return kind.value;
    case 'int64Value':
      return kind.value;
    case 'uint64Value':
      return new UnsignedInt(kind.value);
    case 'bytesValue':
      return new Uint8Array(kind.value);
    case 'enumValue':
      return BigInt(kind.value.value);
    case 'listValue':
      return kind.value.values.map(toEngineValue);
    case 'mapValue': {
      const entries = kind.value.entries.map((e) => [toEngineValue(e.key), toEngineValue(e.value)] as const);
      if (entries.every(([k]) => typeof k === 'string')) return Object.fromEntries(entries);
      return new Map(entries);
    }
    case 'typeValue':
      return { celTypeName: kind.value };
    case 'objectValue': {
      const any = kind.value;
      if (any.typeUrl.endsWith('/google.protobuf.Duration')) {
        const d = fromBinary(DurationSchema, any.value);
        return new Duration(d.seconds, d.nanos);
      }
      if (any.typeUrl.endsWith('/google.protobuf.Timestamp')) {
        const t = fromBinary(TimestampSchema, any.value);
        return new Date(Number(t.seconds) * 1000 + Math.floor(t.nanos / 1e6));
      }
      throw new NotApplicable(`object value ${any.typeUrl}`);
    }
    default:
      throw new NotApplicable(`value kind ${String(kind?.case)}`);
  }
}

function keyString(k: unknown): string {
  if (k instanceof UnsignedInt) return String(k.value);
  return String(k);
}

function entriesOf(v: unknown): Map<string, unknown> | undefined {
  if (v instanceof Map) return new Map([...v].map(([k, x]) => [keyString(k), x]));
  if (typeof v === 'object' && v !== null) {
    const proto = Object.getPrototypeOf(v);
    if (proto === Object.prototype || proto === null) return new Map(Object.entries(v));
  }
  return undefined;
}

/** Equality of a result with the expected value, as the conformance suite means it. */
export function sameValue(actual: unknown, expected: unknown): boolean {
  if (typeof expected === 'number') return typeof actual === 'number' && Object.is(actual + 0, expected + 0);
  if (typeof expected !== 'object' || expected === null) return actual === expected;
  if (expected instanceof UnsignedInt)
    return actual instanceof UnsignedInt && actual.value === expected.value;
  if (expected instanceof Uint8Array) {
    return (
      actual instanceof Uint8Array &&
      actual.length === expected.length &&
      actual.every((b, i) => b === expected[i])
    );
  }
  if (expected instanceof Date) return actual instanceof Date && actual.getTime() === expected.getTime();
  if (expected instanceof Duration) {
    return (
      actual instanceof Duration && actual.seconds === expected.seconds && actual.nanos === expected.nanos
    );
  }
  if ('celTypeName' in expected) {
    const name = (expected as { celTypeName: string }).celTypeName;
    const actualName = (actual as { name?: unknown } | null)?.name;
    return (
      actualName === name ||
      (name === 'map' && actualName === 'map') ||
      (name === 'list' && actualName === 'list')
    );
  }
  if (Array.isArray(expected)) {
    return (
      Array.isArray(actual) &&
      actual.length === expected.length &&
      actual.every((a, i) => sameValue(a, expected[i]))
    );
  }
  const e = entriesOf(expected);
  const a = entriesOf(actual);
  if (!e || !a || e.size !== a.size) return false;
  for (const [k, v] of e) if (!a.has(k) || !sameValue(a.get(k), v)) return false;
  return true;
}
