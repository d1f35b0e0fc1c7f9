/**
 * Resolves `spec.schema.types` (name → SimpleSchema) in dependency order, so each type is converted
 * after the types it uses. Cycles are rejected with the cycle spelled out, and types on a cycle are
 * marked broken so their users do not produce a second, misleading "unknown type" error.
 */

import { isRecord } from '../../diag/record.ts';
import { SchemaCode } from '../codes.ts';
import { childPath, type DiagnosticSink } from '../report.ts';
import { type CustomTypeTable, FieldConverter, type ResolvedCustomType } from './fieldConverter.ts';
import { customTypeNames, parseTypeExpr, splitField } from './typeExpr.ts';

export type { ResolvedCustomType } from './fieldConverter.ts';

const TYPE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const BUILTIN = new Set(['string', 'integer', 'boolean', 'float', 'object', 'map']);

/** Custom type names a type body mentions (type strings anywhere inside nested maps). */
function dependencies(body: unknown, into: Set<string> = new Set()): Set<string> {
  if (typeof body === 'string') {
    const parsed = parseTypeExpr(splitField(body).typeText);
    if (parsed.ok) customTypeNames(parsed.type, into);
  } else if (isRecord(body)) {
    for (const v of Object.values(body)) dependencies(v, into);
  }
  return into;
}

class TypeTable implements CustomTypeTable {
  readonly resolved = new Map<string, ResolvedCustomType | 'broken'>();
  get(name: string): ResolvedCustomType | 'broken' | undefined {
    return this.resolved.get(name);
  }
  names(): Iterable<string> {
    return this.resolved.keys();
  }
}

export function resolveCustomTypes(types: unknown, path: string, sink: DiagnosticSink): CustomTypeTable {
  const table = new TypeTable();
  if (types === undefined || types === null) return table;
  if (!isRecord(types)) {
    sink.error(
      SchemaCode.InvalidCustomType,
      path,
      'spec.schema.types must be a map of type name to SimpleSchema',
    );
    return table;
  }
  const bodies = new Map<string, unknown>();
  for (const [name, body] of Object.entries(types)) {
    const typePath = childPath(path, name);
    if (!TYPE_NAME.test(name) || BUILTIN.has(name)) {
      sink.error(
        SchemaCode.InvalidCustomType,
        typePath,
        BUILTIN.has(name)
          ? `custom type '${name}' shadows a built-in type`
          : `invalid custom type name '${name}'`,
      );
      table.resolved.set(name, 'broken');
      continue;
    }
    bodies.set(name, body);
  }

  const converter = new FieldConverter(table, sink);
  const state = new Map<string, 'visiting' | 'done'>();
  const stack: string[] = [];

  const visit = (name: string): void => {
    const st = state.get(name);
    if (st === 'done') return;
    if (st === 'visiting') {
      const cycle = [...stack.slice(stack.indexOf(name)), name];
      sink.error(
        SchemaCode.CyclicType,
        childPath(path, name),
        `cyclic dependency in type ${name}: ${cycle.join(' → ')}`,
        'types are expanded inline, so a type cannot contain itself',
      );
      for (const member of cycle) table.resolved.set(member, 'broken');
      return;
    }
    state.set(name, 'visiting');
    stack.push(name);
    const body = bodies.get(name);
    for (const dep of dependencies(body)) if (bodies.has(dep)) visit(dep);
    stack.pop();
    state.set(name, 'done');
    if (table.resolved.get(name) === 'broken') return;
    const typePath = childPath(path, name);
    if (isRecord(body)) {
      table.resolved.set(name, { schema: converter.object(body, typePath), required: false });
    } else if (typeof body === 'string') {
      const field = converter.typed(body, typePath);
      table.resolved.set(name, { schema: field.schema, required: field.required });
    } else {
      sink.error(
        SchemaCode.InvalidCustomType,
        typePath,
        `custom type '${name}' must be a type string or a map`,
      );
      table.resolved.set(name, 'broken');
    }
  };
  for (const name of [...bodies.keys()].sort()) visit(name);
  return table;
}
