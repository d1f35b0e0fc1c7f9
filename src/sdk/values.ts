/**
 * Manifest values as authors write them (with context strings, lazies, keep markers and nulls),
 * and the plain JSON that synth produces.
 */

/** Plain JSON, as rendered. */
export type Json = string | number | boolean | null | Json[] | { [k: string]: Json };
export type JsonObject = { [k: string]: Json };

/**
 * Anything a manifest field may hold before synth: JSON scalars, `null`/`undefined` (stripped), `KStr`,
 * plain strings with context markers, `Lazy`, `keep`-marked objects and lists, and nested objects/lists.
 * Resource objects are allowed only where a builder documents a shorthand (`serviceAccount`,
 * `headlessService`). The type is open on purpose (authors pass their own interfaces); synth checks every
 * value and reports unsupported ones (functions, class instances, non-finite numbers) with their field path.
 */
export type Value = unknown;

export type ValueObject = { readonly [k: string]: Value };

/** Structural marker of a resource object (the full interface lives in resource.ts). */
export interface ResourceLike {
  readonly __kgraphResource: true;
}

/** A rendered Kubernetes object. */
export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    [k: string]: Json | undefined;
  };
  [k: string]: Json | undefined | Manifest['metadata'];
}

/** The `keep` marker: an enumerable symbol property, so it survives object spread. */
export const KEEP: unique symbol = Symbol.for('kgraph.sdk.keep');

/** Marks an object (or list) so it renders as `{}` / `[]` even when every child is null. */
export function keep<T extends object>(v: T): T {
  if (Array.isArray(v)) {
    const kept = v.filter((x) => x !== null && x !== undefined);
    const arr = kept.length === 0 ? [] : kept;
    Object.defineProperty(arr, KEEP, { value: true, enumerable: true });
    return arr as unknown as T;
  }
  return Object.assign(Object.create(Object.getPrototypeOf(v) as object | null) as T, v, { [KEEP]: true });
}

export function isKept(v: object): boolean {
  return (v as { [KEEP]?: boolean })[KEEP] === true;
}

export function isPlainObject(v: unknown): v is { readonly [k: string]: unknown } {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

/** Deep merge that keeps the `keep` marker (Nix's `lib.recursiveUpdate` in the Kix reference): right wins. */
export function recursiveUpdate<A extends object, B extends object>(a: A, b: B): A & B {
  const out: Record<string | symbol, unknown> = { ...(a as Record<string | symbol, unknown>) };
  for (const key of Reflect.ownKeys(b)) {
    const bv = (b as Record<string | symbol, unknown>)[key];
    const av = out[key];
    out[key] =
      isPlainObject(av) && isPlainObject(bv) ? recursiveUpdate(av as object, bv as object) : (bv as unknown);
  }
  return out as A & B;
}
