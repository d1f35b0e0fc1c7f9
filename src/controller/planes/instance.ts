/**
 * The instance reconcile algorithm (design/planes.md §11) for one (consumer cluster, namespace, name):
 *
 *   deleting → children on every plane over the recorded GVK union, the liveness record, the finalizer.
 *   no finalizer → add it and return (nothing is applied before it exists, design/planes.md §11 step 3).
 *   stamp the runtime copy (design/planes.md §8) → engine pass across planes (pass.ts) → prune per plane, only after a
 *   complete pass → in `finally`: the liveness record with the ever-applied union → status, every pass.
 */
import type { Logger } from 'pino';
import type { Plane } from '../../graph/model.ts';
import { applyToExisting, isNotFound, type KubeObject, type RestClient } from '../../kube/index.ts';
import { errorMessage } from '../core/errors.ts';
import { writeBoundedStatus } from '../core/oversizedStatus.ts';
import type { ClaimChecker } from './access.ts';
import { type ChainContext, childSelector, decorate } from './chain.ts';
import { deleteChildren } from './children.ts';
import {
  type InstanceStatusOut,
  instanceConditions,
  type Problem,
  previousConditions,
} from './instanceStatus.ts';
import {
  ANNOTATION_CONSUMER_CLUSTER,
  CHILD_MANAGER,
  FINALIZER_INSTANCE,
  type PlaneTimings,
} from './kropApi.ts';
import { gvkToken, parseGvkToken, readRecord, recordObject, writeRecord } from './liveness.ts';
import { livenessRecordName } from './naming.ts';
import { type AppliedChild, type PassOutcome, PLANES, runPass } from './pass.ts';
import { PruneStormGuard, stormMessage } from './pruneStorm.ts';
import type { Connection, PublishedBlueprint } from './published.ts';

export interface InstanceDeps {
  provider: RestClient;
  host: RestClient | undefined;
  controllerNamespace: string;
  access: ClaimChecker;
  timings: PlaneTimings;
  log: Logger;
  now: () => Date;
  maxCollectionSize?: number;
  /** design/planes.md §12.3 (default: 3 prunes of one object within 60 s hold the instance for 10 min). */
  pruneStorms?: PruneStormGuard;
}

export interface InstanceOutcome {
  kind: 'gone' | 'finalizerAdded' | 'reconciled' | 'deleted' | 'deleting';
  ready?: boolean;
  complete?: boolean;
  requeueAfterMs?: number;
  pass?: PassOutcome;
}

const rfc3339 = (d: Date): string => d.toISOString().replace(/\.\d+Z$/, 'Z');

export function chainContext(bp: PublishedBlueprint, conn: Connection, inst: KubeObject): ChainContext {
  return {
    clusterID: conn.clusterID,
    exportName: bp.exportName,
    instance: {
      apiVersion: `${bp.group}/${bp.version}`,
      kind: bp.kind,
      name: inst.metadata.name ?? '',
      namespace: bp.namespaced ? (inst.metadata.namespace ?? '') : '',
      uid: inst.metadata.uid ?? '',
    },
  };
}

/** design/planes.md §8: a deep copy carrying the cluster ID annotation; the stored object is never changed. */
export function stampedCopy(inst: KubeObject, clusterID: string): KubeObject {
  const copy = structuredClone(inst);
  copy.metadata.annotations = {
    ...(copy.metadata.annotations ?? {}),
    [ANNOTATION_CONSUMER_CLUSTER]: clusterID,
  };
  return copy;
}

function tokenOf(plane: Plane, c: AppliedChild): string {
  const t = gvkToken(c.apiVersion, c.kind);
  return plane === 'consumer' && c.namespace ? `${t}@${c.namespace}` : t;
}

export class InstanceReconciler {
  private readonly deps: InstanceDeps;
  /**
   * The status last written per instance UID, with the resourceVersion the write returned. A pass that
   * starts before the informer has seen that write (a child's watch event can wake it within the same
   * second) would otherwise take the older cached conditions as the previous ones and give an unchanged
   * condition a new lastTransitionTime (design/planes.md §15.2).
   */
  private readonly written = new Map<string, { rv: number; status: Record<string, unknown> }>();

  /** design/planes.md §12.3: instances whose prunes fight another writer. */
  readonly storms: PruneStormGuard;

  constructor(deps: InstanceDeps) {
    this.deps = deps;
    this.storms = deps.pruneStorms ?? new PruneStormGuard();
  }

  private planeClient(plane: Plane, conn: Connection): RestClient | undefined {
    return plane === 'consumer' ? conn.client : plane === 'provider' ? this.deps.provider : this.deps.host;
  }

  async reconcile(
    bp: PublishedBlueprint,
    conn: Connection,
    inst: KubeObject | undefined,
  ): Promise<InstanceOutcome> {
    if (!inst) return { kind: 'gone' };
    const ctx = chainContext(bp, conn, inst);
    const finalizers = inst.metadata.finalizers ?? [];
    if (inst.metadata.deletionTimestamp) {
      if (!finalizers.includes(FINALIZER_INSTANCE)) return { kind: 'gone' };
      return this.finalize(bp, conn, inst, ctx);
    }
    if (!finalizers.includes(FINALIZER_INSTANCE)) {
      await this.setFinalizer(bp, conn, inst, true);
      return { kind: 'finalizerAdded' };
    }

    return this.converge(bp, conn, inst, ctx);
  }

  /**
   * One pass of a live instance (design/planes.md §11): the engine across planes, pruning when the pass is
   * complete, the liveness record refreshed whatever happened, then the status.
   */
  private async converge(
    bp: PublishedBlueprint,
    conn: Connection,
    inst: KubeObject,
    ctx: ChainContext,
  ): Promise<InstanceOutcome> {
    const problems: Problem[] = [];
    let outcome: PassOutcome | undefined;
    const union: Record<Plane, Set<string>> = { consumer: new Set(), provider: new Set(), host: new Set() };
    try {
      const record = await readRecord(this.deps.provider, this.deps.controllerNamespace, ctx);
      for (const plane of PLANES) for (const t of record?.[plane] ?? []) union[plane].add(t);
      outcome = await this.runEngine(bp, conn, inst, ctx);
      for (const plane of PLANES)
        for (const c of outcome.applied[plane].values()) union[plane].add(tokenOf(plane, c));
      if (outcome.hardError)
        problems.push({ reason: outcome.hardError.reason, message: outcome.hardError.message });
      for (const [id, b] of outcome.blocked)
        problems.push({ reason: b.reason, message: `resource ${id}: ${b.message}` });
      if (outcome.complete) await this.pruneIfSafe(bp, conn, inst, ctx, outcome, union, problems);
      if (problems.length === 0 && !outcome.ready) {
        const soft = outcome.result.firstSoft;
        problems.push({
          reason: 'Progressing',
          message: soft ? `node ${soft.node}: ${soft.reason}` : 'waiting for resources to become ready',
        });
      }
    } catch (e) {
      problems.push({ reason: 'ApplyFailed', message: errorMessage(e) });
    } finally {
      await this.refreshRecord(inst, ctx, union);
    }
    const status = instanceConditions(
      previousConditions(this.freshest(inst)),
      problems,
      inst.metadata.generation ?? 0,
      () => rfc3339(this.deps.now()),
    );
    const fields = (outcome?.result.status ?? {}) as Record<string, unknown>;
    await this.writeStatus(bp, conn, inst, fields, status);
    return {
      kind: 'reconciled',
      ready: (outcome?.ready ?? false) && status.state === 'ACTIVE',
      complete: outcome?.complete ?? false,
      requeueAfterMs: this.deps.timings.heartbeatMs,
      ...(outcome ? { pass: outcome } : {}),
    };
  }

  /** The engine pass over the stamped copy of the instance, with this cluster's planes. */
  private runEngine(
    bp: PublishedBlueprint,
    conn: Connection,
    inst: KubeObject,
    ctx: ChainContext,
  ): Promise<PassOutcome> {
    return runPass({
      compiled: bp.compiled,
      instance: stampedCopy(inst, conn.clusterID),
      namespace: ctx.instance.namespace,
      planes: {
        clusterID: conn.clusterID,
        consumer: conn.client,
        provider: this.deps.provider,
        host: this.deps.host,
        access: this.deps.access,
        claims: bp.claims,
      },
      decorate: (obj, node) => decorate(ctx, obj, node),
      ...(this.deps.maxCollectionSize !== undefined
        ? { maxCollectionSize: this.deps.maxCollectionSize }
        : {}),
    });
  }

  /**
   * design/planes.md §12: per plane, over the ever-applied union; a GVK leaves the union once no labelled
   * object is left. Not while the instance is held for a prune storm (design/planes.md §12.3); a storm
   * detected now stops the planes not yet pruned.
   */
  private async pruneIfSafe(
    bp: PublishedBlueprint,
    conn: Connection,
    inst: KubeObject,
    ctx: ChainContext,
    outcome: PassOutcome,
    union: Record<Plane, Set<string>>,
    problems: Problem[],
  ): Promise<void> {
    const stormKey = `${conn.clusterID}|${ctx.instance.uid}`;
    const generation = inst.metadata.generation ?? 0;
    const held = this.storms.held(stormKey, generation, this.deps.now().getTime());
    if (held) {
      problems.push({ reason: 'PruneStorm', message: stormMessage(held) });
      return;
    }
    const selector = childSelector(ctx);
    const live = liveUids(outcome);
    for (const plane of PLANES) {
      const client = this.planeClient(plane, conn);
      if (!client) continue;
      const keep = new Set([...outcome.applied[plane].keys()]);
      // Another plane's children of this pass: one cluster may serve two planes (design/planes.md §12.1).
      const spare = new Set([...live].filter(([, p]) => p !== plane).map(([uid]) => uid));
      const pruned = await deleteChildren(
        client,
        [...union[plane]],
        selector,
        keep,
        (token, ns) =>
          plane === 'consumer' ? this.consumerDeleteAllowed(bp, conn, token, ns) : Promise.resolve(true),
        spare,
      );
      for (const d of pruned.deleted)
        this.deps.log.info({ plane, child: d, instance: inst.metadata.name }, 'pruned');
      for (const e of pruned.errors) problems.push({ reason: 'PruneFailed', message: e });
      if (pruned.errors.length === 0) {
        const applied = new Set([...outcome.applied[plane].values()].map((c) => tokenOf(plane, c)));
        union[plane] = new Set([...union[plane]].filter((t) => applied.has(t) || pruned.stillPresent.has(t)));
      }
      const { storm, repeated } = this.storms.record(
        stormKey,
        plane,
        pruned.deleted.map((k) => pruned.names.get(k) ?? k),
        generation,
        this.deps.now().getTime(),
      );
      if (repeated)
        problems.push({
          reason: 'Progressing',
          message: `${repeated} on the ${plane} plane was pruned again within the prune-storm window`,
        });
      if (storm) {
        this.deps.log.warn(
          { plane, child: storm.object, prunes: storm.prunes, instance: inst.metadata.name },
          'prune storm: pruning of this instance stopped',
        );
        problems.push({ reason: 'PruneStorm', message: stormMessage(storm) });
        return;
      }
    }
  }

  /** design/planes.md §11 step 7, design/planes.md §18.2: refreshed on every pass that reached the engine, errors included. */
  private async refreshRecord(
    inst: KubeObject,
    ctx: ChainContext,
    union: Record<Plane, Set<string>>,
  ): Promise<void> {
    try {
      await writeRecord(
        this.deps.provider,
        recordObject(
          this.deps.controllerNamespace,
          ctx,
          { provider: [...union.provider], host: [...union.host], consumer: [...union.consumer] },
          rfc3339(this.deps.now()),
        ),
      );
    } catch (e) {
      this.deps.log.warn(
        { err: errorMessage(e), instance: inst.metadata.name },
        'liveness record not written',
      );
    }
  }

  /** A consumer prune/delete runs only where the claim is still accepted (design/planes.md §11 step 2). */
  private async consumerDeleteAllowed(
    bp: PublishedBlueprint,
    conn: Connection,
    token: string,
    ns: string,
  ): Promise<boolean> {
    const t = parseGvkToken(token);
    if (!t) return false;
    const claim = bp.claims.find((c) => c.apiVersion === t.apiVersion && c.kind === t.kind);
    if (!claim) return false;
    const acc = await this.deps.access.check(
      conn.clusterID,
      conn.client,
      claim,
      claim.scope === 'Cluster' ? '' : ns,
      claim.verbs,
    );
    return acc.accepted;
  }

  private async finalize(
    bp: PublishedBlueprint,
    conn: Connection,
    inst: KubeObject,
    ctx: ChainContext,
  ): Promise<InstanceOutcome> {
    const selector = childSelector(ctx);
    const errors: string[] = [];
    const record = await readRecord(this.deps.provider, this.deps.controllerNamespace, ctx);
    const tokens: Record<Plane, string[]> = {
      consumer: record?.consumer ?? [],
      provider: record?.provider ?? [],
      host: record?.host ?? [],
    };
    for (const plane of PLANES) {
      const client = this.planeClient(plane, conn);
      if (!client || tokens[plane].length === 0) continue;
      const res = await deleteChildren(client, tokens[plane], selector, undefined, (token, ns) =>
        plane === 'consumer' ? this.consumerDeleteAllowed(bp, conn, token, ns) : Promise.resolve(true),
      );
      errors.push(...res.errors);
    }
    if (errors.length === 0) {
      try {
        await this.deps.provider.delete({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          namespace: this.deps.controllerNamespace,
          name: livenessRecordName(ctx.clusterID, ctx.instance.uid),
        });
      } catch (e) {
        if (!isNotFound(e)) errors.push(`delete liveness record: ${errorMessage(e)}`);
      }
    }
    if (errors.length > 0) {
      const status = instanceConditions(
        previousConditions(this.freshest(inst)),
        errors.map((message) => ({ reason: 'DeleteFailed' as const, message })),
        inst.metadata.generation ?? 0,
        () => rfc3339(this.deps.now()),
        true,
      );
      await this.writeStatus(bp, conn, inst, undefined, status).catch(() => undefined);
      return { kind: 'deleting', requeueAfterMs: 1_000 };
    }
    await this.setFinalizer(bp, conn, inst, false);
    this.written.delete(inst.metadata.uid ?? '');
    this.storms.forget(`${conn.clusterID}|${ctx.instance.uid}`);
    this.deps.log.info(
      { cluster: conn.name, instance: `${ctx.instance.namespace}/${ctx.instance.name}` },
      'instance deleted',
    );
    return { kind: 'deleted' };
  }

  /** The finalizer as a field of our own manager: applying without it removes ours only. */
  async setFinalizer(
    bp: PublishedBlueprint,
    conn: Connection,
    inst: KubeObject,
    present: boolean,
  ): Promise<void> {
    const metadata: Record<string, unknown> = {
      name: inst.metadata.name,
      ...(inst.metadata.namespace ? { namespace: inst.metadata.namespace } : {}),
      finalizers: present ? [FINALIZER_INSTANCE] : [],
    };
    const target = {
      apiVersion: `${bp.group}/${bp.version}`,
      kind: bp.kind,
      name: inst.metadata.name ?? '',
      ...(inst.metadata.namespace ? { namespace: inst.metadata.namespace } : {}),
    };
    try {
      // Never a creation: a consumer's instance deleted since the cache copy is not brought back.
      const res = await applyToExisting(
        conn.client,
        { apiVersion: target.apiVersion, kind: bp.kind, metadata } as KubeObject,
        inst.metadata.uid,
        { fieldManager: CHILD_MANAGER, force: true },
      );
      if (!res) return;
      const left = res.metadata.finalizers ?? [];
      if (!present && left.includes(FINALIZER_INSTANCE)) {
        // Our apply did not own the entry (another manager lists it too, or — kcp's virtual workspace —
        // the server kept no field ownership): remove it by value, guarded by the list we saw.
        this.deps.log.debug(
          { instance: target.name, managers: (res.metadata.managedFields ?? []).map((m) => m.manager) },
          'finalizer survived the apply; removing it by JSON patch',
        );
        await conn.client.patch(
          target,
          [
            { op: 'test', path: '/metadata/finalizers', value: left },
            {
              op: 'replace',
              path: '/metadata/finalizers',
              value: left.filter((f) => f !== FINALIZER_INSTANCE),
            },
          ],
          { type: 'json' },
        );
      }
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }

  private async writeStatus(
    bp: PublishedBlueprint,
    conn: Connection,
    inst: KubeObject,
    fields: Record<string, unknown> | undefined,
    out: InstanceStatusOut,
  ): Promise<void> {
    const current = (this.freshest(inst).status ?? {}) as Record<string, unknown>;
    const kept =
      fields ??
      Object.fromEntries(Object.entries(current).filter(([k]) => k !== 'conditions' && k !== 'state'));
    const status = { ...kept, conditions: out.conditions, state: out.state };
    if (JSON.stringify(sortKeys(status)) === JSON.stringify(sortKeys(current))) return;
    try {
      const metadata = inst.metadata.namespace
        ? { name: inst.metadata.name, namespace: inst.metadata.namespace }
        : { name: inst.metadata.name };
      const stored = await writeBoundedStatus({
        what: `${bp.kind} ${inst.metadata.namespace ? `${inst.metadata.namespace}/` : ''}${inst.metadata.name}`,
        object: this.freshest(inst),
        status,
        generation: inst.metadata.generation ?? 0,
        now: () => rfc3339(this.deps.now()),
        write: (s) =>
          conn.client.applyStatus(
            { apiVersion: `${bp.group}/${bp.version}`, kind: bp.kind, metadata, status: s } as KubeObject,
            { fieldManager: CHILD_MANAGER, force: true },
          ),
      });
      const uid = inst.metadata.uid ?? '';
      if (uid) this.written.set(uid, { rv: Number(stored.metadata.resourceVersion), status });
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }

  /** The instance with the status this reconciler last wrote, when the cached copy is older than it. */
  private freshest(inst: KubeObject): KubeObject {
    const w = this.written.get(inst.metadata.uid ?? '');
    if (!w || !(w.rv > Number(inst.metadata.resourceVersion))) return inst;
    return { ...inst, status: w.status };
  }
}

/** UID → plane of every object a pass applied or found agreeing, on any plane. */
function liveUids(outcome: PassOutcome): Map<string, Plane> {
  const out = new Map<string, Plane>();
  for (const plane of PLANES)
    for (const c of outcome.applied[plane].values()) if (c.uid) out.set(c.uid, plane);
  return out;
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (typeof v === 'object' && v !== null)
    return Object.fromEntries(
      Object.entries(v as Record<string, unknown>)
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([k, x]) => [k, sortKeys(x)]),
    );
  return v;
}
