/**
 * Routing of watch events to the objects (Graphs, RGD instances) whose last evaluation read the
 * changed object: every reconcile records its interest (identities looked up, selector lists), and an
 * event on an object enqueues exactly the owners that read it. Shared by both controllers.
 */
import { identityKey } from '../../runtime/observed.ts';
import { gvkKey, type Interest, type WatchEventInfo } from './watches.ts';

export class InterestRoutes {
  /** interest key → owner keys; owner key → its interest keys. */
  private readonly routes = new Map<string, Set<string>>();
  private readonly interestOf = new Map<string, string[]>();

  /** Replaces what `owner` is interested in (undefined: forget it). */
  set(owner: string, interest: Interest | undefined): void {
    for (const k of this.interestOf.get(owner) ?? []) {
      const set = this.routes.get(k);
      set?.delete(owner);
      if (set && set.size === 0) this.routes.delete(k);
    }
    if (!interest) {
      this.interestOf.delete(owner);
      return;
    }
    const keys = [
      ...[...interest.gets].map((g) => `get:${g}`),
      ...[...interest.lists].map((l) => `list:${l}`),
    ];
    this.interestOf.set(owner, keys);
    for (const k of keys) {
      let set = this.routes.get(k);
      if (!set) {
        set = new Set();
        this.routes.set(k, set);
      }
      set.add(owner);
    }
  }

  /** Owners with a recorded interest. */
  get size(): number {
    return this.interestOf.size;
  }

  /** The owners an event concerns. */
  owners(e: WatchEventInfo): Set<string> {
    const ns = e.obj.metadata.namespace;
    const id = ns
      ? { apiVersion: e.apiVersion, kind: e.kind, namespace: ns, name: e.obj.metadata.name ?? '' }
      : { apiVersion: e.apiVersion, kind: e.kind, name: e.obj.metadata.name ?? '' };
    const gvk = gvkKey(e.apiVersion, e.kind);
    const out = new Set<string>();
    for (const k of [`get:${identityKey(id)}`, `list:${gvk}|${ns ?? '*'}`, `list:${gvk}|*`]) {
      for (const o of this.routes.get(k) ?? []) out.add(o);
    }
    return out;
  }
}
