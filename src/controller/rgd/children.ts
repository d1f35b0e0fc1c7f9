/**
 * Finding an instance's children from its ApplySet inventory alone (design/graph.md §22.2): for every
 * recorded GroupKind, the objects labelled `applyset.kubernetes.io/part-of=<id>` in the instance's
 * namespace and the recorded additional namespaces (cluster-wide for cluster-scoped kinds). Reads come
 * from the shared informer caches, without recording interest (a list would route every change of the
 * kind to the instance; identity reads during evaluation already route the children's events).
 */
import type { Discovery, KubeObject } from '../../kube/index.ts';
import { newInterest, type WatchSet } from '../core/watches.ts';
import { type Inventory, parseGroupKind } from './applyset.ts';
import { LABEL_APPLYSET_PART_OF } from './names.ts';

export interface Child {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
  uid: string;
  obj: KubeObject;
}

/** GroupKind → served apiVersion, remembered (the preferred version of the group). */
export class GroupKindVersions {
  private readonly known = new Map<string, string>();
  private readonly discovery: Discovery;

  constructor(discovery: Discovery) {
    this.discovery = discovery;
  }

  remember(groupKind: string, apiVersion: string): void {
    this.known.set(groupKind, apiVersion);
  }

  async apiVersionOf(groupKind: string): Promise<string | undefined> {
    const hit = this.known.get(groupKind);
    if (hit) return hit;
    const { group, kind } = parseGroupKind(groupKind);
    const found = group === '' ? await this.core(kind) : await this.discovery.resolveGroupKind(group, kind);
    if (found) this.known.set(groupKind, found.apiVersion);
    return found?.apiVersion;
  }

  private async core(kind: string) {
    return (await this.discovery.resources('v1'))?.find((r) => r.kind === kind);
  }
}

export async function listChildren(
  watches: WatchSet,
  versions: GroupKindVersions,
  applySetId: string,
  inv: Inventory,
  parentNamespace: string,
): Promise<Child[]> {
  const selector = { matchLabels: { [LABEL_APPLYSET_PART_OF]: applySetId } };
  const namespaces = [...new Set([parentNamespace, ...inv.namespaces].filter((n) => n !== ''))];
  const out = new Map<string, Child>();
  for (const gk of inv.groupKinds) {
    const apiVersion = await versions.apiVersionOf(gk);
    if (!apiVersion) continue; // the kind is no longer served: nothing of it can exist
    const { kind } = parseGroupKind(gk);
    const scopes = namespaces.length > 0 ? namespaces : [undefined];
    await watches.prepare(apiVersion, kind, scopes);
    const view = watches.view(newInterest());
    for (const ns of scopes) {
      for (const item of view.list(apiVersion, kind, ns, selector)) {
        const obj = item as unknown as KubeObject;
        const uid = obj.metadata.uid;
        if (!uid || out.has(uid)) continue;
        const c: Child = { apiVersion, kind, name: obj.metadata.name ?? '', uid, obj };
        if (obj.metadata.namespace) c.namespace = obj.metadata.namespace;
        out.set(uid, c);
      }
    }
  }
  return [...out.values()];
}
