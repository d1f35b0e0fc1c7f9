/**
 * The one record of the controller's own writes, for telling echoes from news: per object — a child a
 * Graph applied (core/apply.ts through `WatchSet.noteWritten`) or the Graph itself (its status and
 * finalizer, reconciler.ts) — the resourceVersions its owner's writes produced. A watch event carrying
 * exactly such a version is that owner's echo: news to every other reader, not to the writer, whose
 * reconcile went on from the write's answer. The event may arrive before the answer is read, so a
 * version is kept until a newer one of the object is seen, or for a minute.
 */
export const OWN_WRITE_TTL_MS = 60_000;
/** Versions kept per object (a reconcile writes a Graph two or three times). */
const MAX_VERSIONS = 16;

interface Written {
  owner: string;
  versions: string[];
  at: number;
}

export class OwnWrites {
  private readonly byObject = new Map<string, Written>();
  private prunedAt = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /**
   * `owner` wrote version `rv` of the object `key`. Without an owner (a write whose echo everyone
   * should see, e.g. a release) the object's record is dropped.
   */
  note(key: string, rv: string | undefined, owner: string | undefined): void {
    if (!owner || !rv) {
      this.byObject.delete(key);
      return;
    }
    const e = this.byObject.get(key);
    if (e && e.owner === owner) {
      e.versions.push(rv);
      if (e.versions.length > MAX_VERSIONS) e.versions.shift();
      e.at = this.now();
    } else {
      this.byObject.set(key, { owner, versions: [rv], at: this.now() });
    }
  }

  /** The owner whose write produced exactly version `rv` of `key`, if any. */
  writerOf(key: string, rv: string | undefined): string | undefined {
    if (this.byObject.size === 0 || !rv) return undefined;
    const e = this.byObject.get(key);
    if (!e) return undefined;
    if (e.versions.includes(rv)) return e.owner;
    // A newer version than some we wrote: their events are past (one object's events come in order).
    const seen = Number(rv);
    if (Number.isFinite(seen)) {
      e.versions = e.versions.filter((v) => Number(v) > seen);
      if (e.versions.length === 0) this.byObject.delete(key);
    }
    return undefined;
  }

  /**
   * The object was deleted and the cache held version `rv` of it last: the versions up to that are
   * past (a write of ours on it came before its delete event), later ones are of a new object.
   */
  deleted(key: string, rv: string | undefined): void {
    const e = this.byObject.get(key);
    const last = Number(rv);
    if (!e || !Number.isFinite(last)) return;
    e.versions = e.versions.filter((v) => Number(v) > last);
    if (e.versions.length === 0) this.byObject.delete(key);
  }

  /** Forgets the object (deleted). */
  forget(key: string): void {
    this.byObject.delete(key);
  }

  /** Drops records older than the TTL, at most once a second. */
  expire(): void {
    const now = this.now();
    if (now - this.prunedAt < 1_000) return;
    this.prunedAt = now;
    for (const [k, e] of this.byObject) if (now - e.at > OWN_WRITE_TTL_MS) this.byObject.delete(k);
  }

  get size(): number {
    return this.byObject.size;
  }
}
