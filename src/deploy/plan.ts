/**
 * `kgraph deploy --dry-run`: what the run will do (design/sdk.md §B6.2), from the same
 * decisions the run acts on (decide.ts) — create, update, unchanged, drift, conflict,
 * Job reruns — plus the prune list with protection and ownership applied, in wave
 * order. Writes nothing.
 */
import type { RestClient } from '../kube/rest.ts';
import type { KubeObject } from '../kube/types.ts';
import { type Manifest, type PlannedObject, planOrder } from '../sdk/index.ts';
import {
  decideObject,
  decidePrunes,
  FAILING_ACTIONS,
  isNoKind,
  type ObjectAction,
  type PruneAction,
} from './decide.ts';
import { DEFAULT_FIELD_MANAGER } from './deployer.ts';
import { entryKey, inventoryEntries, inventoryRef, keyName, readInventory } from './inventory.ts';
import { checkDeployName } from './ownership.ts';

export type PlanAction = ObjectAction;

export interface PlanStep {
  key: string;
  /** Display wave: 0 for objects without dependencies, else 1 + the deepest dependency. */
  wave: number;
  action: PlanAction;
  dependsOn: string[];
  detail?: string;
}

export interface PlanPrune {
  key: string;
  action: PruneAction;
  detail?: string;
}

export interface DeployPlan {
  name: string;
  inventory: string;
  steps: PlanStep[];
  prune: PlanPrune[];
  /** The run will ask before pruning: this name has never pruned before. */
  pruneNeedsConfirmation: boolean;
  /** The run would fail (a conflict, a refused Job, an object owned by another deploy, an unknown kind). */
  fails: boolean;
}

function definesKind(manifests: readonly Manifest[], apiVersion: string, kind: string): boolean {
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
  return manifests.some((m) => {
    const spec = m.spec as { group?: unknown; names?: { kind?: unknown } } | undefined;
    return m.kind === 'CustomResourceDefinition' && spec?.group === group && spec.names?.kind === kind;
  });
}

/**
 * Each object's wave (display only; the deployer starts an object as soon as its dependencies are
 * ready): 0 without dependencies, else one more than its deepest dependency. `plan` is planOrder's,
 * dependencies before dependents.
 */
export function planWaves(plan: readonly PlannedObject[]): Map<string, number> {
  const wave = new Map<string, number>();
  for (const p of plan)
    wave.set(
      p.key,
      p.dependsOn.reduce((m, d) => Math.max(m, (wave.get(d.key) ?? 0) + 1), 0),
    );
  return wave;
}

export async function planDeploy(
  client: RestClient,
  manifests: readonly Manifest[],
  opts: {
    name: string;
    inventoryNamespace: string;
    fieldManager?: string;
    force?: boolean;
    prune?: boolean;
    pruneProtected?: boolean;
  },
): Promise<DeployPlan> {
  const ref = inventoryRef(checkDeployName(opts.name), opts.inventoryNamespace);
  const plan = planOrder(manifests);
  const wave = planWaves(plan);
  const steps: (PlanStep & { order: number })[] = [];
  const decide = {
    ref,
    fieldManager: opts.fieldManager ?? DEFAULT_FIELD_MANAGER,
    force: opts.force ?? false,
  };
  const keyOf = new Map(
    plan.map((p) => [
      p.key,
      entryKey({
        apiVersion: p.manifest.apiVersion,
        kind: p.manifest.kind,
        namespace: p.manifest.metadata.namespace,
        name: p.manifest.metadata.name,
      }),
    ]),
  );
  for (const [order, p] of plan.entries()) {
    const w = wave.get(p.key) ?? 0;
    const key = keyOf.get(p.key)!;
    const base = { key, wave: w, order, dependsOn: p.dependsOn.map((d) => keyOf.get(d.key) ?? d.key) };
    let live: KubeObject | undefined;
    try {
      live = p.import
        ? undefined
        : await client.getOrUndefined({
            apiVersion: p.manifest.apiVersion,
            kind: p.manifest.kind,
            namespace: p.manifest.metadata.namespace,
            name: p.manifest.metadata.name,
          });
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (isNoKind(err) && definesKind(manifests, p.manifest.apiVersion, p.manifest.kind)) {
        steps.push({ ...base, action: 'create', detail: 'its CRD is created first' });
      } else steps.push({ ...base, action: 'unknown-kind', detail: message });
      continue;
    }
    const d = await decideObject(client, p, live, { ...decide, probeUpdates: true });
    steps.push({ ...base, action: d.action, ...(d.detail ? { detail: d.detail } : {}) });
  }
  // Waves in order; within a wave, apply order.
  steps.sort((a, b) => a.wave - b.wave || a.order - b.order);
  const fails = steps.some((s) => FAILING_ACTIONS.has(s.action));
  const inventory = await readInventory(client, ref);
  const prunes =
    opts.prune === false
      ? []
      : await decidePrunes(client, inventory.entries, inventoryEntries(plan), {
          ref,
          pruneProtected: opts.pruneProtected ?? false,
        });
  return {
    name: ref.deployName,
    inventory: `${ref.namespace}/${ref.name}`,
    steps: steps.map(({ order: _order, ...s }) => s),
    prune: prunes.map((d) => ({ key: d.key, action: d.action, ...(d.detail ? { detail: d.detail } : {}) })),
    pruneNeedsConfirmation: !inventory.pruneConfirmed && prunes.some((d) => d.action === 'prune'),
    fails,
  };
}

export function formatPlan(plan: DeployPlan): string {
  const lines = plan.steps.map(
    (s) =>
      `  wave ${s.wave}  ${s.action.padEnd(15)} ${keyName(s.key)}${s.detail ? `  (${s.detail})` : ''}${s.dependsOn.length ? `\n           after: ${s.dependsOn.map(keyName).join(', ')}` : ''}`,
  );
  const pruned = plan.prune.filter((p) => p.action === 'prune');
  const prune = plan.prune.map(
    (p) =>
      `  ${p.action === 'prune' ? 'prune' : p.action === 'gone' ? 'forget' : 'keep'}`.padEnd(25) +
      ` ${keyName(p.key)}${p.detail ? `  (${p.detail})` : ''}`,
  );
  const notes = [
    ...(plan.pruneNeedsConfirmation
      ? [
          `note: the first prune under the name ${plan.name}; deploy asks before deleting (pass --yes without a terminal)`,
        ]
      : []),
    ...(plan.fails ? ['the run would fail: see the conflict, refused or owned-elsewhere steps above'] : []),
  ];
  return `${[
    `plan for ${plan.name} (inventory ${plan.inventory}): ${plan.steps.length} objects, ${pruned.length} to prune`,
    ...lines,
    ...prune,
    ...notes,
  ].join('\n')}\n`;
}
