import { type Environment, EvaluationError, Optional } from './celJs.ts';

/**
 * Functions behind the source rewrites of ./rewrite.ts, in a namespace users do not write:
 * `__kgraph.optionalList(list)` keeps the present values of a list of optionals (list literal with
 * `?` entries); `__kgraph.optionalMap(keys, values)` builds a map from the keys whose optional value
 * is present (map literal with `?` entries); `__kgraph.hasField(x, name)` is has() for quoted fields
 * and literal receivers.
 */
class KgraphInternalNS {}

function present(value: unknown, what: string): Optional<unknown> {
  if (value instanceof Optional) return value;
  throw new EvaluationError({
    code: 'no_such_overload',
    message: `optional ${what} must be an optional value, got a plain value`,
  });
}

export function installInternalNamespace(engine: Environment): void {
  engine.registerType('KgraphInternalNS', KgraphInternalNS);
  engine.registerConstant('__kgraph', 'KgraphInternalNS', new KgraphInternalNS());
  engine.registerFunction(
    'KgraphInternalNS.hasField(dyn, string): bool',
    (_ns: unknown, value: unknown, name: string) => {
      // An optional receiver (`has(m.?x.y)`) tests its value; an empty optional has no fields.
      const obj = value instanceof Optional ? (value.hasValue() ? value.value() : undefined) : value;
      if (obj === undefined) return false;
      if (obj instanceof Map) return obj.has(name);
      if (typeof obj === 'object' && obj !== null && !Array.isArray(obj)) return Object.hasOwn(obj, name);
      throw new EvaluationError({
        code: 'no_such_overload',
        message: 'has() invalid argument: not a map or object',
      });
    },
  );
  engine.registerFunction(
    'KgraphInternalNS.optionalList(list<dyn>): list<dyn>',
    (_ns: unknown, items: unknown[]) =>
      items.map((o) => present(o, 'list entry')).flatMap((o) => (o.hasValue() ? [o.value()] : [])),
  );
  engine.registerFunction(
    'KgraphInternalNS.optionalMap(list<dyn>, list<dyn>): map<dyn, dyn>',
    (_ns: unknown, keys: unknown[], values: unknown[]) => {
      const entries: Array<[unknown, unknown]> = [];
      keys.forEach((k, n) => {
        const o = present(values[n], 'map entry');
        if (o.hasValue()) entries.push([k, o.value()]);
      });
      if (entries.every(([k]) => typeof k === 'string')) {
        const out: Record<string, unknown> = {};
        for (const [k, v] of entries) {
          if (k === '__proto__')
            Object.defineProperty(out, k, { value: v, enumerable: true, writable: true });
          else out[k as string] = v;
        }
        return out;
      }
      return new Map(entries);
    },
  );
}
