/**
 * The deploy inventory (sdk.md B6.7): one ConfigMap per deployment name recording
 * what the last successful run applied, so a later run can prune what its build no
 * longer contains, and never touches anything it did not record.
 */
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
  name: string;
}

export function inventoryRef(deployName: string, namespace: string): InventoryRef {
  return { namespace, name: `kix-inventory-${deployName}` };
}

export function entryKey(e: Pick<InventoryEntry, 'apiVersion' | 'kind' | 'namespace' | 'name'>): string {
  return `${e.apiVersion}/${e.kind}/${e.namespace ?? ''}/${e.name}`;
}

export async function readInventory(client: RestClient, ref: InventoryRef): Promise<InventoryEntry[]> {
  const cm = await client.getOrUndefined({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    namespace: ref.namespace,
    name: ref.name,
  });
  const raw = (cm?.data as Record<string, string> | undefined)?.entries;
  return raw ? (JSON.parse(raw) as InventoryEntry[]) : [];
}

export async function writeInventory(
  client: RestClient,
  ref: InventoryRef,
  entries: InventoryEntry[],
  fieldManager: string,
): Promise<void> {
  const body: KubeObject = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: ref.name,
      namespace: ref.namespace,
      labels: { 'app.kubernetes.io/managed-by': 'kgraph-deploy' },
    },
    data: { entries: JSON.stringify(entries, null, 1) },
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
