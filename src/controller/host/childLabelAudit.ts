/**
 * The coordinator's audit of children without a bucket (design/sharding.md §4, the two-phase upgrade).
 * Children stamped before the replicas ran sharded carry `kro.run/node-id` but no `kgraph.dev/bucket`;
 * a replica whose child caches select its buckets would never see them (its prune would miss the
 * orphans among them). So the replicas filter their child caches by bucket only once this audit finds
 * no such child that an owner still claims: until then they cache kgraph's children whole (as one
 * replica does), and every owner's pass re-applies its children with the bucket — as the owner's own
 * identity, never the controller's.
 *
 * The audit lists, metadata only and with the label selector `kro.run/node-id,!kgraph.dev/bucket`,
 * every listable kind the API server serves (a handful of empty answers in steady state). A child is
 * *claimed* when its owner exists: an RGD child (and a collection item of a Graph) names its owner's UID
 * in `kro.run/instance-id`; any other Graph child is found in a Graph's inventory
 * (`status.managedResources`, by UID or by key). An unclaimed child is an orphan nobody reconciles: it
 * does not hold the replicas back.
 */
import type { Logger } from 'pino';
import { isRecord } from '../../diag/record.ts';
import type { KubeObject, ResourceInfo, RestClient } from '../../kube/index.ts';
import { LABEL_BUCKET } from '../core/bucket.ts';
import { resourceKey } from '../core/inventory.ts';
import { LABEL_INSTANCE_ID, LABEL_NODE_ID } from '../core/names.ts';
import { generatedKindOf, LABEL_RGD_NAME } from '../rgd/names.ts';

/** kgraph's children that have no bucket yet. */
export const UNLABELLED_CHILD_SELECTOR = `${LABEL_NODE_ID},!${LABEL_BUCKET}`;

export interface AuditResult {
  /** Children an existing owner claims: the replicas cache children whole until this is 0. */
  claimed: number;
  /** Children no existing owner claims (left where they are). */
  orphans: number;
  /** The kinds that held claimed children: the only ones a later audit needs to list again. */
  kinds: ResourceInfo[];
}

/** Who claims an unlabelled child (pure). */
export interface Owners {
  /** UIDs of every Graph and every RGD instance (top-level or nested). */
  uids: ReadonlySet<string>;
  /** UIDs and keys (`apiVersion/kind/namespace/name`) in the Graphs' inventories. */
  inventoried: ReadonlySet<string>;
}

export function isClaimed(child: KubeObject, apiVersion: string, kind: string, owners: Owners): boolean {
  const ownerUid = child.metadata.labels?.[LABEL_INSTANCE_ID];
  if (ownerUid !== undefined && owners.uids.has(ownerUid)) return true;
  const uid = child.metadata.uid;
  if (uid && owners.inventoried.has(uid)) return true;
  const key = resourceKey({
    apiVersion,
    kind,
    ...(child.metadata.namespace ? { namespace: child.metadata.namespace } : {}),
    name: child.metadata.name ?? '',
  });
  return owners.inventoried.has(key);
}

export interface ChildLabelAuditOptions {
  client: RestClient;
  log: Logger;
  graphs: boolean;
  rgds: boolean;
  /** Namespaces the replicas reconcile. @default all */
  namespaces?: readonly string[];
}

export class ChildLabelAudit {
  private readonly o: ChildLabelAuditOptions;
  private readonly scopes: readonly (string | undefined)[];

  constructor(opts: ChildLabelAuditOptions) {
    this.o = opts;
    this.scopes = opts.namespaces?.length ? opts.namespaces : [undefined];
  }

  /** Lists `kinds` (default: every listable kind served) for unlabelled children and judges each. */
  async run(kinds?: readonly ResourceInfo[]): Promise<AuditResult> {
    const candidates = kinds ?? (await this.listableKinds());
    const found: { info: ResourceInfo; items: KubeObject[] }[] = [];
    for (const info of candidates) {
      const items = await this.unlabelled(info);
      if (items.length > 0) found.push({ info, items });
    }
    if (found.length === 0) return { claimed: 0, orphans: 0, kinds: [] };
    const owners = await this.owners();
    const result: AuditResult = { claimed: 0, orphans: 0, kinds: [] };
    for (const { info, items } of found) {
      const claimed = items.filter((c) => isClaimed(c, info.apiVersion, info.kind, owners)).length;
      result.claimed += claimed;
      result.orphans += items.length - claimed;
      if (claimed > 0) result.kinds.push(info);
    }
    this.o.log.info(
      { claimed: result.claimed, orphans: result.orphans, kinds: result.kinds.map((k) => k.kind) },
      'children without a bucket',
    );
    return result;
  }

  private async listableKinds(): Promise<ResourceInfo[]> {
    const all = await this.o.client.discovery.preferredResources();
    return all.filter((r) => r.verbs.includes('list'));
  }

  private async unlabelled(info: ResourceInfo): Promise<KubeObject[]> {
    const out: KubeObject[] = [];
    for (const ns of info.namespaced ? this.scopes : [undefined]) {
      try {
        const list = await this.o.client.listAll(
          { apiVersion: info.apiVersion, plural: info.plural, ...(ns ? { namespace: ns } : {}) },
          { labelSelector: UNLABELLED_CHILD_SELECTOR, metadataOnly: true, limit: 500 },
        );
        out.push(...list.items);
      } catch (e) {
        // A kind this identity may not list, or one gone since discovery: it holds no child of ours we could see.
        this.o.log.debug({ kind: info.kind, err: String(e) }, 'child label audit skipped a kind');
      }
    }
    return out;
  }

  /** Every owner that exists now: Graphs (with their inventories) and instances of generated kinds. */
  private async owners(): Promise<Owners> {
    const uids = new Set<string>();
    const inventoried = new Set<string>();
    const { client } = this.o;
    if (this.o.graphs) {
      for (const ns of this.scopes) {
        const graphs = await client.listAll({
          apiVersion: 'kro.run/v1alpha1',
          plural: 'graphs',
          ...(ns ? { namespace: ns } : {}),
        });
        for (const g of graphs.items) {
          if (g.metadata.uid) uids.add(g.metadata.uid);
          for (const key of inventoryOf(g)) inventoried.add(key);
        }
      }
    }
    if (this.o.rgds) {
      const crds = await client.listAll(
        { apiVersion: 'apiextensions.k8s.io/v1', plural: 'customresourcedefinitions' },
        { labelSelector: LABEL_RGD_NAME },
      );
      for (const crd of crds.items) {
        const kind = generatedKindOf(crd);
        if (!kind) continue;
        for (const ns of kind.namespaced ? this.scopes : [undefined]) {
          const instances = await client
            .listAll(
              { apiVersion: kind.apiVersion, plural: kind.plural, ...(ns ? { namespace: ns } : {}) },
              { metadataOnly: true, limit: 500 },
            )
            .catch(() => ({ items: [] as KubeObject[] }));
          for (const i of instances.items) if (i.metadata.uid) uids.add(i.metadata.uid);
        }
      }
    }
    return { uids, inventoried };
  }
}

/** The UIDs and keys of a Graph's managed resources. */
function inventoryOf(graph: KubeObject): string[] {
  const status = isRecord(graph.status) ? graph.status : {};
  const out: string[] = [];
  for (const e of Array.isArray(status.managedResources) ? status.managedResources : []) {
    if (!isRecord(e) || typeof e.apiVersion !== 'string' || typeof e.kind !== 'string') continue;
    if (typeof e.name !== 'string') continue;
    if (typeof e.uid === 'string') out.push(e.uid);
    out.push(
      resourceKey({
        apiVersion: e.apiVersion,
        kind: e.kind,
        ...(typeof e.namespace === 'string' && e.namespace ? { namespace: e.namespace } : {}),
        name: e.name,
      }),
    );
  }
  return out;
}
