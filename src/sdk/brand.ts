/**
 * Class identity across copies of the SDK (registry.ts says why a process may load two): a brand on
 * the prototype instead of constructor identity. Its own module, importing nothing, so that the
 * errors every SDK file throws do not depend on the registry's types.
 */
/**
 * Makes `v instanceof cls` true for instances of `cls` from any copy of the SDK: the prototype
 * carries the brand `Symbol.for('kgraph.sdk.<name>')`, and the check walks the prototype chain
 * (never `in`, which would trip the traps of a pending part's proxy).
 */
export function brandClass(cls: abstract new (...args: never[]) => unknown, name: string): void {
  const brand = Symbol.for(`kgraph.sdk.${name}`);
  Object.defineProperty(cls.prototype, brand, { value: true });
  Object.defineProperty(cls, Symbol.hasInstance, {
    value(this: unknown, v: unknown): boolean {
      // A subclass without a brand of its own keeps the ordinary check.
      if (this !== cls) return Function.prototype[Symbol.hasInstance].call(this, v);
      if ((typeof v !== 'object' && typeof v !== 'function') || v === null) return false;
      for (let p: object | null = Object.getPrototypeOf(v); p !== null; p = Object.getPrototypeOf(p))
        if (Object.hasOwn(p, brand)) return true;
      return false;
    },
  });
}
