/**
 * The ordered deployer (design/sdk.md §B6): applies synthesized manifests with
 * server-side apply as a DAG — an object starts as soon as all of its
 * dependencies are ready, so a slow object never blocks unrelated ones — waits
 * for readiness per kind, reruns Jobs on request, honours ceded fields, reports
 * drift, and prunes what a later build no longer contains through an inventory.
 */
import { ApiError, isApiError } from '../kube/errors.ts';
import type { RestClient } from '../kube/rest.ts';
import type { KubeObject } from '../kube/types.ts';
import { type Manifest, type PlannedObject, planOrder } from '../sdk/index.ts';
import { cededPaths, ownedByOthers, payloadAt, stripCeded, valueAt } from './cede.ts';
import { decideObject, decidePrunes, intentOf, isNoKind, keepsEntry, type PruneDecision } from './decide.ts';
import {
  entryKey,
  type InventoryEntry,
  inventoryEntries,
  inventoryRef,
  keyName,
  readInventory,
  writeInventory,
} from './inventory.ts';
import { checkDeployName } from './ownership.ts';
import { readinessOf } from './readiness.ts';

export const DEFAULT_FIELD_MANAGER = 'kix';
export const CEDED_FIELD_MANAGER = 'kix-ceded';

export type DeployEventType =
  | 'waiting-deps'
  | 'waiting-ready'
  | 'applying'
  | 'applied'
  | 'unchanged'
  | 'drift'
  | 'rerun'
  | 'ready'
  | 'failed'
  | 'skipped'
  | 'pruned';

export interface DeployEvent {
  type: DeployEventType;
  key: string;
  message?: string;
  /** Milliseconds since the run started. */
  at: number;
}

export interface DeployOptions {
  /** Names the inventory (`kix-inventory-<name>`). */
  name: string;
  /** Namespace holding the inventory ConfigMap. */
  inventoryNamespace: string;
  fieldManager?: string;
  /** Force server-side apply (take fields over from other managers). */
  force?: boolean;
  /** Wait for readiness (default true). Without it, dependents start once their dependencies are applied. */
  wait?: boolean;
  /** Per-object readiness timeout (default 10 min). */
  timeoutMs?: number;
  pollMs?: number;
  /** Prune what the previous inventory holds and this build does not (default true). */
  prune?: boolean;
  /** Also prune CRDs, Namespaces and objects marked `kix.run/holds-data`. */
  pruneProtected?: boolean;
  /**
   * Asked, before anything is applied, when this name has never pruned before and the
   * run would prune (the list is what the run will delete). `false` stops the run with
   * nothing written. Without it the run goes ahead.
   */
  confirmPrune?: (prunes: readonly PruneDecision[]) => Promise<boolean>;
  onEvent?: (e: DeployEvent) => void;
}

export interface DeployResult {
  ok: boolean;
  order: string[];
  applied: string[];
  unchanged: string[];
  pruned: string[];
  drift: string[];
  failed: { key: string; message: string }[];
  events: DeployEvent[];
}

function objectKeyOf(m: Manifest | KubeObject): string {
  return entryKey({
    apiVersion: m.apiVersion,
    kind: m.kind,
    namespace: m.metadata.namespace as string | undefined,
    name: m.metadata.name as string,
  });
}

function conflictError(key: string, err: ApiError): ApiError {
  return new ApiError({
    code: 409,
    reason: 'Conflict',
    message: `${keyName(key)}: fields are owned by ${err.conflictingManagers.join(', ')} (${err.conflicts.map((c) => c.field).join(', ')}); deploy with --force to take them over`,
    details: err.details,
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class Deployer {
  private readonly started = Date.now();
  private readonly events: DeployEvent[] = [];
  private readonly manager: string;

  constructor(
    private readonly client: RestClient,
    private readonly opts: DeployOptions,
  ) {
    this.manager = opts.fieldManager ?? DEFAULT_FIELD_MANAGER;
  }

  private emit(type: DeployEventType, key: string, message?: string): void {
    const e: DeployEvent = { type, key, at: Date.now() - this.started, ...(message ? { message } : {}) };
    this.events.push(e);
    this.opts.onEvent?.(e);
  }

  async run(manifests: readonly Manifest[]): Promise<DeployResult> {
    const plan = planOrder(manifests);
    const ref = inventoryRef(checkDeployName(this.opts.name), this.opts.inventoryNamespace);
    const previous = await readInventory(this.client, ref);
    const current = inventoryEntries(plan);
    const result: DeployResult = {
      ok: true,
      order: plan.map((p) => objectKeyOf(p.manifest)),
      applied: [],
      unchanged: [],
      pruned: [],
      drift: [],
      failed: [],
      events: this.events,
    };
    const pruning = this.opts.prune !== false;
    const pruneOpts = { ref, pruneProtected: this.opts.pruneProtected ?? false };
    let confirmed = previous.pruneConfirmed;
    if (pruning && !confirmed && this.opts.confirmPrune) {
      const preview = (await decidePrunes(this.client, previous.entries, current, pruneOpts)).filter(
        (d) => d.action === 'prune',
      );
      if (preview.length > 0) {
        if (!(await this.opts.confirmPrune(preview))) {
          result.ok = false;
          result.failed.push({
            key: ref.name,
            message: `the first prune under the name ${ref.deployName} was not confirmed; nothing was applied`,
          });
          return result;
        }
        confirmed = true;
      }
    }

    const done = new Map<PlannedObject, Promise<boolean>>();
    const byKey = new Map(plan.map((p) => [p.key, p]));
    for (const p of plan) {
      // Plan order is topological, so every dependency's promise exists already.
      const deps = p.dependsOn.map((d) => done.get(byKey.get(d.key)!)!);
      done.set(p, this.deployOne(p, deps, result));
    }
    const outcomes = await Promise.all(done.values());
    result.ok = outcomes.every(Boolean);

    if (!result.ok) {
      // A failed run prunes nothing, but remembers what it applied so a later run can prune it.
      const merged = new Map(previous.entries.map((e) => [entryKey(e), e]));
      for (const e of current)
        if (result.applied.includes(entryKey(e)) || result.unchanged.includes(entryKey(e)))
          merged.set(entryKey(e), e);
      await writeInventory(this.client, ref, [...merged.values()], this.manager, confirmed);
      return result;
    }
    const kept: InventoryEntry[] = [];
    if (pruning) {
      // Decided again now: ownership is checked right before each delete.
      for (const d of await decidePrunes(this.client, previous.entries, current, pruneOpts)) {
        if (d.action !== 'prune') {
          if (keepsEntry(d)) kept.push(d.entry);
          if (d.action !== 'gone') this.emit('skipped', d.key, d.detail);
          continue;
        }
        const e = d.entry;
        try {
          await this.client.delete(
            { apiVersion: e.apiVersion, kind: e.kind, namespace: e.namespace, name: e.name },
            { propagationPolicy: 'Background' },
          );
        } catch (err) {
          if (!(isApiError(err) && err.code === 404)) {
            result.ok = false;
            result.failed.push({ key: d.key, message: `prune: ${(err as Error).message}` });
            kept.push(e);
            continue;
          }
        }
        confirmed = true;
        result.pruned.push(d.key);
        this.emit('pruned', d.key);
      }
    } else {
      const keep = new Set(current.map(entryKey));
      kept.push(...previous.entries.filter((e) => !keep.has(entryKey(e))));
    }
    await writeInventory(this.client, ref, [...current, ...kept], this.manager, confirmed);
    return result;
  }

  private async deployOne(
    p: PlannedObject,
    deps: Promise<boolean>[],
    result: DeployResult,
  ): Promise<boolean> {
    const key = objectKeyOf(p.manifest);
    if (deps.length > 0) {
      this.emit('waiting-deps', key);
      const depOk = await Promise.all(deps);
      if (!depOk.every(Boolean)) {
        this.emit('skipped', key, 'a dependency failed');
        result.failed.push({ key, message: 'skipped: a dependency failed' });
        return false;
      }
    }
    try {
      if (!p.import) await this.applyOne(p, key, result);
      // CRDs are always waited for: their instances cannot be applied before the kind is served.
      if (this.opts.wait === false && !p.import && p.kind !== 'CustomResourceDefinition') {
        this.emit('ready', key, 'not waited for (--no-wait)');
        return true;
      }
      await this.waitReady(p, key);
      return true;
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      this.emit('failed', key, message);
      result.failed.push({ key, message });
      return false;
    }
  }

  private target(m: Manifest | KubeObject) {
    return {
      apiVersion: m.apiVersion,
      kind: m.kind,
      namespace: m.metadata.namespace as string | undefined,
      name: m.metadata.name as string,
    };
  }

  private async applyOne(p: PlannedObject, key: string, result: DeployResult): Promise<void> {
    this.emit('applying', key);
    const ref = inventoryRef(this.opts.name, this.opts.inventoryNamespace);
    let desired = intentOf(p, ref);
    let live = await this.getLive(desired);
    const decision = await decideObject(this.client, p, live, {
      ref,
      fieldManager: this.manager,
      force: this.opts.force ?? false,
      probeUpdates: false,
    });
    switch (decision.action) {
      case 'refused':
      case 'owned-elsewhere':
        throw new ApiError({ code: 422, reason: 'Refused', message: `${keyName(key)}: ${decision.detail}` });
      case 'conflict':
        // Someone else wrote our fields (kubectl edit, another controller): drift owned by them.
        result.drift.push(key);
        this.emit(
          'drift',
          key,
          `changed out of band by ${decision.conflict!.managers.join(', ')} at ${decision.conflict!.fields.join(', ')}`,
        );
        throw new ApiError({ code: 409, reason: 'Conflict', message: `${keyName(key)}: ${decision.detail}` });
      case 'unchanged':
        result.unchanged.push(key);
        this.emit('unchanged', key);
        return;
      case 'drift':
        result.drift.push(key);
        this.emit('drift', key, 'live object differs from the unchanged intent; repairing');
        break;
      case 'rerun': {
        this.emit('rerun', key, decision.detail);
        const uid = live!.metadata.uid!;
        await this.client.delete(this.target(live!), {
          propagationPolicy: 'Background',
          preconditions: { uid },
        });
        for (;;) {
          const now = await this.getLive(desired);
          if (!now || now.metadata.uid !== uid) break;
          await sleep(this.opts.pollMs ?? 300);
        }
        live = undefined;
        break;
      }
      default:
        break;
    }

    const ceded = cededPaths(desired);
    if (live && ceded.length > 0) {
      for (const steps of ceded) {
        const value = valueAt(live, steps);
        if (value === undefined) continue;
        if (!ownedByOthers(live, steps, [this.manager, CEDED_FIELD_MANAGER])) {
          // Hand over before dropping the path from our intent, or SSA would delete the field.
          await this.client.apply(payloadAt(desired, steps, value), { fieldManager: CEDED_FIELD_MANAGER });
        }
      }
      desired = stripCeded(desired, ceded);
    }
    try {
      await this.client.apply(desired, { fieldManager: this.manager, force: this.opts.force ?? false });
    } catch (err) {
      if (isApiError(err) && err.isApplyConflict) throw conflictError(key, err);
      throw err;
    }
    result.applied.push(key);
    this.emit('applied', key);
  }

  private async getLive(m: Manifest | KubeObject): Promise<KubeObject | undefined> {
    try {
      return await this.client.getOrUndefined(this.target(m));
    } catch (err) {
      // The kind may not be served yet (a CR whose CRD was just created).
      if (isNoKind(err)) return undefined;
      throw err;
    }
  }

  private async waitReady(p: PlannedObject, key: string): Promise<void> {
    const deadline = Date.now() + (this.opts.timeoutMs ?? 600_000);
    let last = '';
    for (;;) {
      const live = await this.getLive(p.manifest);
      const r = readinessOf(live);
      if (r.failed) throw new Error(`${keyName(key)}: ${r.failed}`);
      if (r.ready) {
        if (p.kind === 'CustomResourceDefinition') await this.waitServed(p.manifest);
        this.emit('ready', key, r.reason);
        return;
      }
      if (r.reason !== last) {
        last = r.reason;
        this.emit('waiting-ready', key, r.reason);
      }
      if (Date.now() > deadline) {
        throw new Error(
          `${keyName(key)}: not ready after ${Math.round((this.opts.timeoutMs ?? 600_000) / 1000)} s: ${r.reason}; last status ${JSON.stringify(live?.status ?? null)}`,
        );
      }
      await sleep(this.opts.pollMs ?? 500);
    }
  }

  /** A CRD is ready for its instances only when discovery serves its plural. */
  private async waitServed(crd: Manifest): Promise<void> {
    const spec = crd.spec as
      | { group?: string; names?: { plural?: string }; versions?: { name?: string; served?: boolean }[] }
      | undefined;
    const group = spec?.group;
    const plural = spec?.names?.plural;
    const versions = (spec?.versions ?? []).filter((v) => v.served !== false).map((v) => v.name);
    for (const v of versions) {
      if (!group || !plural || !v) continue;
      for (;;) {
        const res = (await this.client
          .request({ method: 'GET', path: `/apis/${group}/${v}` })
          .catch(() => undefined)) as { resources?: { name: string }[] } | undefined;
        if (res?.resources?.some((r) => r.name === plural)) break;
        await sleep(this.opts.pollMs ?? 300);
      }
      this.client.discovery.invalidate(`${group}/${v}`);
    }
  }
}
