/**
 * The SDK's process-wide state, one for every copy of the SDK a process loads.
 *
 * A package can reach the SDK twice: `kgraph synth` imports the compiled ESM `kgraph/sdk`, and a
 * package in a CommonJS project, run from TypeScript through tsx's require hook, gets a second,
 * CommonJS-transformed copy of the same files. Module-level maps would then be per copy, and a
 * `.out` marker minted by one copy would be unknown to the other. So the state
 * lives on `globalThis` under a `Symbol.for` key (the registry is shared, not the code: decision
 * recorded in docs/sdk.md), and the classes whose identity matters answer `instanceof` by a
 * `Symbol.for` brand rather than by constructor identity.
 */
import type { ResNode } from './build.ts';

export interface RegisteredMarker {
  /** The KStr (of whichever copy) the marker stands for. */
  readonly kstr: unknown;
  readonly text: string;
}

export interface SdkRegistry {
  /** Marker id → the context string a coerced `.out` value came from (context.ts). */
  readonly markers: Map<number, RegisteredMarker>;
  nextMarker: number;
  /** withStrictContext's switch. */
  strict: boolean;
  /** Resource object → its node (resource.ts). */
  readonly resources: WeakMap<object, ResNode>;
  /** Forward reference of a part being built → what resolves it (pendingPart.ts). */
  readonly pendingParts: WeakMap<object, unknown>;
  /** CRD resource → what its custom resources need (scope.ts). */
  readonly crdInfos: WeakMap<object, unknown>;
}

const KEY = Symbol.for('kgraph.sdk.registry/v1');

function create(): SdkRegistry {
  return {
    markers: new Map(),
    nextMarker: 1,
    strict: false,
    resources: new WeakMap(),
    pendingParts: new WeakMap(),
    crdInfos: new WeakMap(),
  };
}

const holder = globalThis as typeof globalThis & { [KEY]?: SdkRegistry };
export const sdkRegistry: SdkRegistry = holder[KEY] ?? create();
holder[KEY] = sdkRegistry;

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
