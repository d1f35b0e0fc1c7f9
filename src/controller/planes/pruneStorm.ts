/**
 * The prune-storm guard (design/planes.md §12.3): an object of one instance that is pruned, comes back and is
 * pruned again, over and over within a short window, is a fight with another writer (a second plane name
 * for the same cluster, another controller, a GitOps tool) that pruning can never win. After `threshold`
 * prunes of the same object within `windowMs` the instance is held: its prunes stop and its `Ready`
 * condition names the object, until its generation changes or `holdMs` has passed. Pure (the clock is
 * passed in).
 */

export interface PruneStormOptions {
  /** Prunes of one object within `windowMs` that make a storm. */
  threshold: number;
  windowMs: number;
  /** How long pruning stays stopped for a held instance whose generation does not change. */
  holdMs: number;
}

export const DEFAULT_PRUNE_STORM: PruneStormOptions = {
  threshold: 3,
  windowMs: 60_000,
  holdMs: 600_000,
};

export interface PruneStorm {
  /** The object pruned again and again (`group/version/Kind namespace/name` identity key). */
  object: string;
  plane: string;
  prunes: number;
  windowMs: number;
  holdMs: number;
  /** When the storm was detected (ms since the epoch). */
  since: number;
  generation: number;
}

export interface PruneVerdict {
  storm?: PruneStorm;
  /** An object of this pass pruned before within the window (no storm yet). */
  repeated?: string;
}

interface InstanceHistory {
  /** `plane|object` → times it was pruned (ms), oldest first, within the window. */
  prunes: Map<string, number[]>;
  storm?: PruneStorm;
}

export class PruneStormGuard {
  private readonly opts: PruneStormOptions;
  private readonly history = new Map<string, InstanceHistory>();

  constructor(opts: Partial<PruneStormOptions> = {}) {
    this.opts = { ...DEFAULT_PRUNE_STORM, ...opts };
  }

  /**
   * The storm an instance is held for, if any. A new generation (the user changed the instance) or an
   * expired hold releases it, and its prune history starts afresh.
   */
  held(instance: string, generation: number, now: number): PruneStorm | undefined {
    const h = this.history.get(instance);
    const storm = h?.storm;
    if (!h || !storm) return undefined;
    if (storm.generation !== generation || now - storm.since >= this.opts.holdMs) {
      this.history.delete(instance);
      return undefined;
    }
    return storm;
  }

  /**
   * Records the prunes of one plane of a pass: the storm they start, if they do, else the first object
   * pruned again within the window (the instance is not settled: a pass that deleted what it already
   * deleted moments ago reports no `Ready` while the guard counts).
   */
  record(
    instance: string,
    plane: string,
    objects: readonly string[],
    generation: number,
    now: number,
  ): PruneVerdict {
    let h = this.history.get(instance);
    if (!h) {
      if (objects.length === 0) return {};
      h = { prunes: new Map() };
      this.history.set(instance, h);
    }
    if (h.storm) return { storm: h.storm };
    const since = now - this.opts.windowMs;
    for (const [k, times] of h.prunes) {
      const kept = times.filter((t) => t > since);
      if (kept.length === 0) h.prunes.delete(k);
      else h.prunes.set(k, kept);
    }
    let repeated: string | undefined;
    for (const object of objects) {
      const k = `${plane}|${object}`;
      const times = [...(h.prunes.get(k) ?? []), now];
      h.prunes.set(k, times);
      if (times.length >= this.opts.threshold) {
        h.storm = {
          object,
          plane,
          prunes: times.length,
          windowMs: this.opts.windowMs,
          holdMs: this.opts.holdMs,
          since: now,
          generation,
        };
        return { storm: h.storm };
      }
      if (times.length > 1) repeated ??= object;
    }
    if (h.prunes.size === 0) this.history.delete(instance);
    return repeated ? { repeated } : {};
  }

  /** An instance deleted or no longer ours: its history goes. */
  forget(instance: string): void {
    this.history.delete(instance);
  }

  /** Instances held now (metrics, tests). */
  get heldCount(): number {
    let n = 0;
    for (const h of this.history.values()) if (h.storm) n += 1;
    return n;
  }
}

/** The message of a held instance's `Ready` condition. */
export function stormMessage(s: PruneStorm): string {
  return `${s.object} on the ${s.plane} plane was pruned ${s.prunes} times within ${Math.round(s.windowMs / 1000)} s and came back each time (another writer re-creates it, or one cluster is reached through two planes): pruning of this instance is stopped until its spec changes or for ${Math.round(s.holdMs / 60_000)} min`;
}
