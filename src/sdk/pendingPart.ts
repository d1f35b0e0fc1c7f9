/**
 * Forward references to parts that are still being built.
 *
 * Nix evaluates `self.headless` lazily, so a StatefulSet can name its headless Service while the Service
 * reads the StatefulSet's `out.selector`: only the StatefulSet's `serviceName` (a plain string) depends on
 * the Service. JavaScript evaluates `self.headless` eagerly, so `evaluateInstance` hands out a pending
 * reference instead when reading a part would re-enter a part under construction. A builder that can wait
 * (the `headlessService` shorthand) keeps the reference and resolves it at synth; any other use of it
 * (reading a field, spreading it, passing it to `requires`) throws the cycle error with the part path.
 */

import { brandClass } from './brand.ts';
import { SdkCode, SdkError } from './errors.ts';
import { sdkRegistry } from './registry.ts';

/** Thrown when a pending reference is used; `part` is the part it stands for. */
export class PendingPartUse extends SdkError {
  readonly part: string;
  constructor(part: string, message: string) {
    super(SdkCode.cycle, message);
    this.part = part;
  }
}
brandClass(PendingPartUse, 'PendingPartUse');

interface PendingInfo {
  readonly part: string;
  readonly cycleMessage: string;
  readonly resolve: () => unknown;
}

// Process-wide (registry.ts), as every SDK table.
const pending = sdkRegistry.pendingParts as WeakMap<object, PendingInfo>;

/** A reference to part `part` that throws the cycle error on any use until resolved by a builder. */
export function pendingPart(part: string, cycleMessage: string, resolve: () => unknown): object {
  const fail = (): never => {
    throw new PendingPartUse(part, cycleMessage);
  };
  const ref = new Proxy(Object.create(null) as object, {
    get: fail,
    has: fail,
    set: fail,
    ownKeys: fail,
    getOwnPropertyDescriptor: fail,
    getPrototypeOf: fail,
    defineProperty: fail,
    deleteProperty: fail,
  });
  pending.set(ref, { part, cycleMessage, resolve });
  return ref;
}

export function isPendingPart(v: unknown): v is object {
  return typeof v === 'object' && v !== null && pending.has(v);
}

/** The part a pending reference stands for (built by now: synth forces every part first). */
export function resolvePendingPart(v: object): unknown {
  const info = pending.get(v);
  if (!info) throw new SdkError(SdkCode.invalidArgument, 'not a pending part reference');
  return info.resolve();
}
