/**
 * `kgraph deploy --dry-run`: what a deploy would do, computed with server-side
 * dry-run applies (sdk.md B6.2) — create, update, unchanged, drift, conflict — plus
 * the prune list from the inventory. Writes nothing.
 */
import { isApiError } from '../kube/errors.ts';
import type { RestClient } from '../kube/rest.ts';
import type { KubeObject } from '../kube/types.ts';
import { type Manifest, planOrder } from '../sdk/index.ts';
import { DEFAULT_FIELD_MANAGER, HASH_ANNOTATION, sameContent } from './deployer.ts';
import { entryKey, inventoryEntries, inventoryRef, pruneCandidates, readInventory } from './inventory.ts';

export type PlanAction = 'create' | 'update' | 'unchanged' | 'drift' | 'conflict' | 'import' | 'unknown-kind';

export interface PlanStep {
  key: string;
  /** Display wave: 0 for objects without dependencies, else 1 + the deepest dependency. */
  wave: number;
  action: PlanAction;
  dependsOn: string[];
  detail?: string;
}

export interface DeployPlan {
  steps: PlanStep[];
  prune: string[];
}

export async function planDeploy(
  client: RestClient,
  manifests: readonly Manifest[],
  opts: { name: string; inventoryNamespace: string; fieldManager?: string; force?: boolean },
): Promise<DeployPlan> {
  const plan = planOrder(manifests);
  const wave = new Map<string, number>();
  const steps: PlanStep[] = [];
  for (const p of plan) {
    const w = p.dependsOn.reduce((m, d) => Math.max(m, (wave.get(d.key) ?? 0) + 1), 0);
    wave.set(p.key, w);
    const key = entryKey({
      apiVersion: p.manifest.apiVersion,
      kind: p.manifest.kind,
      namespace: p.manifest.metadata.namespace,
      name: p.manifest.metadata.name,
    });
    const dependsOn = p.dependsOn.map((d) => d.key);
    if (p.import) {
      steps.push({ key, wave: w, action: 'import', dependsOn });
      continue;
    }
    const desired = structuredClone(p.manifest) as unknown as KubeObject;
    desired.metadata.annotations = { ...(desired.metadata.annotations ?? {}), [HASH_ANNOTATION]: p.hash };
    const target = {
      apiVersion: desired.apiVersion,
      kind: desired.kind,
      namespace: desired.metadata.namespace,
      name: desired.metadata.name,
    };
    let live: KubeObject | undefined;
    try {
      live = await client.getOrUndefined(target);
    } catch (err) {
      steps.push({ key, wave: w, action: 'unknown-kind', dependsOn, detail: (err as Error).message });
      continue;
    }
    if (!live) {
      steps.push({ key, wave: w, action: 'create', dependsOn });
      continue;
    }
    try {
      const dry = await client.apply(desired, {
        fieldManager: opts.fieldManager ?? DEFAULT_FIELD_MANAGER,
        dryRun: true,
        force: opts.force ?? false,
      });
      const same = sameContent(dry, live);
      const intentUnchanged = live.metadata.annotations?.[HASH_ANNOTATION] === p.hash;
      steps.push({
        key,
        wave: w,
        action: same ? 'unchanged' : intentUnchanged ? 'drift' : 'update',
        dependsOn,
      });
    } catch (err) {
      if (isApiError(err) && err.isApplyConflict) {
        steps.push({
          key,
          wave: w,
          action: 'conflict',
          dependsOn,
          detail: `owned by ${err.conflictingManagers.join(', ')}`,
        });
      } else throw err;
    }
  }
  const previous = await readInventory(client, inventoryRef(opts.name, opts.inventoryNamespace));
  return { steps, prune: pruneCandidates(previous, inventoryEntries(plan)).map(entryKey) };
}

export function formatPlan(plan: DeployPlan): string {
  const lines = plan.steps.map(
    (s) =>
      `  wave ${s.wave}  ${s.action.padEnd(12)} ${s.key}${s.detail ? `  (${s.detail})` : ''}${s.dependsOn.length ? `\n           after: ${s.dependsOn.join(', ')}` : ''}`,
  );
  const prune = plan.prune.map((k) => `  prune        ${k}`);
  return (
    [`plan (${plan.steps.length} objects, ${plan.prune.length} to prune):`, ...lines, ...prune].join('\n') +
    '\n'
  );
}
