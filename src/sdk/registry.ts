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
  /** Resource object → its node (resource.ts; typed there, so that this module depends on no SDK type). */
  readonly resources: WeakMap<object, unknown>;
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
