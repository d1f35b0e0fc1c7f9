import type { Environment } from '@marcbachmann/cel-js';
import { celError } from './errors.ts';
import type { CelLibrary } from './library.ts';

/**
 * kro's `omit()` (kro pkg/cel/library/omit.go): a zero-argument function returning a sentinel. The
 * engine that renders templates removes the map key or list element whose value is the sentinel
 * (design/graph.md §16.5). The sentinel is a frozen singleton of a registered type `kro.omit`,
 * recognised with `isOmit`. Restricting where omit() may appear is the compiler's job.
 */

export class OmitSentinel {
  /** Brand: makes the sentinel nominal for TypeScript and visible when debugging. */
  readonly kind = 'kro.omit';

  toString(): string {
    return 'omit()';
  }
}

export const OMIT: OmitSentinel = Object.freeze(new OmitSentinel());

export function isOmit(value: unknown): value is OmitSentinel {
  return value instanceof OmitSentinel;
}

export const omitLibrary: CelLibrary = {
  name: 'kro omit',
  install(env: Environment): void {
    env.registerType('kro.omit', OmitSentinel);
    env.registerFunction('omit(): dyn', () => OMIT);
    // kro's sentinel refuses equality. One `kro.omit == dyn` overload covers both operand orders
    // (the engine derives the mirrored and `!=` forms); `omit() == omit()` then fails with the
    // engine's overlap message rather than kro's, but fails all the same.
    env.registerOperator('kro.omit == dyn', () => {
      throw celError('omit() is a field-removal sentinel and cannot be compared');
    });
  },
};
