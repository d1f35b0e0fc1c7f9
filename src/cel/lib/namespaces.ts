import type { Environment } from '@marcbachmann/cel-js';

/**
 * Namespaced global functions (`lists.range`, `base64.encode`, …) cannot be declared directly in the
 * engine (design/platform.md §3.4): we register a namespace type, a constant of that type under the
 * namespace name, and the functions as receiver methods of the type. Several libraries share a
 * namespace (`lists` holds cel-go's `range` and kro's index mutations), so registration is idempotent.
 */
const classes = new Map<string, new () => object>();

function namespaceClass(name: string): new () => object {
  let ctor = classes.get(name);
  if (!ctor) {
    ctor = { [`${name}Namespace`]: class {} }[`${name}Namespace`] as new () => object;
    classes.set(name, ctor);
  }
  return ctor;
}

/** Ensures `name` is a namespace constant in `env`; returns the type name to use as receiver. */
export function ensureNamespace(env: Environment, name: string): string {
  const typeName = `Kgraph${name[0]?.toUpperCase()}${name.slice(1)}Namespace`;
  if (!env.hasVariable(name)) {
    const ctor = namespaceClass(name);
    env.registerType(typeName, ctor);
    env.registerConstant(name, typeName, new ctor());
  }
  return typeName;
}
