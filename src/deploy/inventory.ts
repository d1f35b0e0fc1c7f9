/**
 * The deploy inventory (design/sdk.md §B6.7): one ConfigMap per deployment name recording
 * what the last successful run applied, so a later run can prune what its build no
 * longer contains, and never touches anything it did not record.
 */
import { kubectlNameIn } from '../diag/objectName.ts';
import type { RestClient } from '../kube/rest.ts';
import type { KubeObject } from '../kube/types.ts';
import type { PlannedObject } from '../sdk/index.ts';

export interface InventoryEntry {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
  hash: string;
  /** Position in the apply order, so pruning can run in reverse. */
  order: number;
  /** `kix.run/holds-data` */
  holdsData?: boolean;
}

export interface InventoryRef {
  namespace: string;
  /** The ConfigMap's name, `kix-inventory-<deployName>`. */
  name: string;
  /** The release name the inventory is for (the package name by default). */
  deployName: string;
}

export function inventoryRef(deployName: string, namespace: string): InventoryRef {
  return { namespace, name: `kix-inventory-${deployName}`, deployName };
}

/** What the inventory ConfigMap holds. */
export interface Inventory {
  /** false when no ConfigMap exists yet. */
  exists: boolean;
  entries: InventoryEntry[];
  /**
   * Whether a prune under this name has been confirmed before. The first prune of a
   * name shows its list and asks (a name reused by mistake would otherwise delete
   * another project's objects); later prunes of the same name go ahead.
   */
  pruneConfirmed: boolean;
}

export function entryKey(e: Pick<InventoryEntry, 'apiVersion' | 'kind' | 'namespace' | 'name'>): string {
  return `${e.apiVersion}/${e.kind}/${e.namespace ?? ''}/${e.name}`;
}

/**
 * A deploy key (`apiVersion/kind/namespace/name`, inventory.ts entryKey) named as kubectl names the
 * object (diag/objectName.ts, shared by every command): `deployment.apps/web -n orders`, `namespace/orders`.
 */
export function keyName(key: string): string {
  const parts = key.split('/');
  if (parts.length < 4) return key;
  return kubectlNameIn({
    apiVersion: parts.slice(0, -3).join('/'),
    kind: parts.at(-3)!,
    namespace: parts.at(-2)!,
    name: parts.at(-1)!,
  });
}

export async function readInventory(client: RestClient, ref: InventoryRef): Promise<Inventory> {
  const cm = await client.getOrUndefined({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    namespace: ref.namespace,
    name: ref.name,
  });
  const data = cm?.data as Record<string, string> | undefined;
  return {
    exists: cm !== undefined,
    entries: data?.entries ? (JSON.parse(data.entries) as InventoryEntry[]) : [],
    pruneConfirmed: data?.pruneConfirmed === 'true',
  };
}

export async function writeInventory(
  client: RestClient,
  ref: InventoryRef,
  entries: InventoryEntry[],
  fieldManager: string,
  pruneConfirmed: boolean,
): Promise<void> {
  const body: KubeObject = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: ref.name,
      namespace: ref.namespace,
      labels: { 'app.kubernetes.io/managed-by': 'kgraph-deploy', 'kix.run/inventory': ref.deployName },
    },
    data: {
      entries: JSON.stringify(entries, null, 1),
      ...(pruneConfirmed ? { pruneConfirmed: 'true' } : {}),
    },
  };
  await client.apply(body, { fieldManager, force: true });
}

/** Entries of `previous` absent from `current`, dependents first. */
export function pruneCandidates(previous: InventoryEntry[], current: InventoryEntry[]): InventoryEntry[] {
  const keep = new Set(current.map(entryKey));
  return previous.filter((e) => !keep.has(entryKey(e))).sort((a, b) => b.order - a.order);
}

/** What a run records for its plan: every managed object (imports are never recorded), in apply order. */
export function inventoryEntries(plan: readonly PlannedObject[]): InventoryEntry[] {
  return plan
    .filter((p) => !p.import)
    .map((p, order) => ({
      apiVersion: p.manifest.apiVersion,
      kind: p.manifest.kind,
      ...(p.manifest.metadata.namespace ? { namespace: p.manifest.metadata.namespace } : {}),
      name: p.manifest.metadata.name,
      hash: p.hash,
      order,
      ...(p.manifest.metadata.annotations?.['kix.run/holds-data'] === 'true' ? { holdsData: true } : {}),
    }));
}
