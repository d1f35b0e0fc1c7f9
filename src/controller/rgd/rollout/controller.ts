/**
 * The GraphRollout controller (design/rgd.md §19.8): one work queue of rollouts (named after their RGDs),
 * each round reading the fleet from the instance caches, judging health, planning (plan.ts) and writing:
 * first its own status (the recorded state a restarted controller continues from), then the instances'
 * assignments as the `kgraph.dev/rollout` field manager — `kgraph.dev/revision` and the time assigned,
 * or nothing (released: the instance follows what the rollout holds it at, revisionResolver.ts).
 *
 * Health at a revision is judged only from an instance version the instance pass at that revision wrote
 * (or later), so a status left by the previous revision never counts as ready. The passes are told to
 * this controller by the instance reconciler; after a restart every instance is reconciled again (the
 * informers' initial adds), which tells them anew.
 */

import type { Logger } from 'pino';
import {
  applyToExisting,
  Informer,
  type KubeObject,
  type RestClient,
  WorkQueue,
} from '../../../kube/index.ts';
import { errorMessage, failedPassLogger } from '../../core/errors.ts';
import type { EventRecord } from '../../core/events/recorder.ts';
import { rgdCacheTransforms } from '../caches.ts';
import type { InstanceApi } from '../instanceReconciler.ts';
import {
  ANNOTATION_OBSERVED_REVISION,
  ANNOTATION_REVISION,
  LABEL_REVISION,
  parseRevision,
  rolloutMayMove,
} from '../revisionPolicy.ts';
import {
  compileHealth,
  gateHolds,
  HealthExpressionError,
  type HealthPrograms,
  instanceHealth,
} from './health.ts';
import {
  ANNOTATION_ASSIGNED_AT,
  ROLLOUT_API_VERSION,
  ROLLOUT_KIND,
  ROLLOUT_MANAGER,
  ROLLOUT_PLURAL,
} from './names.ts';
import {
  defaultRevision,
  type FleetInstance,
  type Health,
  type Plan,
  planRollout,
  type RolloutSpec,
  type RolloutState,
  type Write,
} from './plan.ts';
import { rolloutEvents } from './rolloutEvents.ts';
import { type HealthSpec, RolloutSpecError, readRolloutSpec, readRolloutState } from './spec.ts';
import { rolloutStatus, sameStatus } from './status.ts';

/** What the rollout controller needs of the RGD controller it runs in. */
export interface RolloutHost {
  client: RestClient;
  log: Logger;
  resyncMs: number;
  servedApi(rgdName: string): InstanceApi | undefined;
  instancesOf(rgdName: string): KubeObject[];
  /**
   * Sharded coordinator: makes `instancesOf` answer every replica's instances from now on (started and
   * synced before a round plans), and stops that once the rollout is gone.
   */
  ensureFleet?(rgdName: string): Promise<void>;
  dropFleet?(rgdName: string): Promise<void>;
  reconcileInstances(rgdName: string, which?: (o: KubeObject) => boolean): void;
  /** Where the rollout's events go (core/observability.ts; rolloutEvents.ts). */
  event?: (rec: EventRecord) => void;
}

/** A rollout under way is looked at again this often (deadlines, pauses), besides its instances' news. */
const ROLLING_RECHECK_MS = 2_000;
const IDLE_RECHECK_MS = 10_000;
/** A pass at the target ended and the cache has not shown its status yet: look again this soon. */
const CACHE_LAG_RECHECK_MS = 100;
/** Assignments written in parallel. */
const WRITE_CONCURRENCY = 10;

interface Known {
  uid: string;
  state: RolloutState;
  spec?: RolloutSpec;
}

export interface RolloutStats {
  /** Instance writes (assign, release) made. */
  instanceWrites: number;
  statusWrites: number;
  /** Milliseconds each finished step took, from its start to the next step's start, per rollout. */
  steps: { rollout: string; step: number; ms: number }[];
}

export class RolloutController {
  readonly queue = new WorkQueue<string>();
  readonly stats: RolloutStats = { instanceWrites: 0, statusWrites: 0, steps: [] };
  private readonly host: RolloutHost;
  private readonly informer: Informer;
  private readonly known = new Map<string, Known>();
  private readonly programs = new Map<
    string,
    { generation: number; programs: HealthPrograms | HealthExpressionError }
  >();
  /** Per instance UID: its RGD, the revision of its last finished pass and the version that pass's status is in. */
  private readonly passes = new Map<string, { rgd: string; revision: number | undefined; rv: number }>();
  /** Per instance UID: our last write's answer, until the cache has caught up with it. */
  private readonly overlays = new Map<string, { rgd: string; obj: KubeObject }>();
  private running: Promise<void> | undefined;
  /** A sharded follower's: the informer runs for defaultFor/held, no round does. */
  private viewOnly = false;
  /** Set by a round's health judgement: some instance's finished pass is not in the cache yet. */
  private lagging = false;

  constructor(host: RolloutHost) {
    this.host = host;
    this.informer = new Informer(host.client, {
      target: { apiVersion: ROLLOUT_API_VERSION, plural: ROLLOUT_PLURAL },
      resyncMs: host.resyncMs,
      onError: (e) => host.log.debug({ err: String(e) }, 'graph rollout watch error'),
      transform: rgdCacheTransforms.graphRollout,
    });
    const enqueue = (o: KubeObject): void => {
      if (!this.viewOnly) this.queue.add(o.metadata.name ?? '');
    };
    this.informer.addHandlers({
      add: (o) => {
        enqueue(o);
        if (this.viewOnly) host.reconcileInstances(o.metadata.name ?? '');
      },
      update: (o, n) => {
        if (o === n || o.metadata.generation !== n.metadata.generation) enqueue(n);
        // A follower learns the holds from the status the coordinator wrote (its own rounds tell it in round()).
        if (this.viewOnly && holdsChanged(readRolloutState(o), readRolloutState(n)))
          host.reconcileInstances(n.metadata.name ?? '');
      },
      delete: (o) => {
        const name = o.metadata.name ?? '';
        this.known.delete(name);
        if (this.viewOnly) {
          host.reconcileInstances(name);
          return;
        }
        this.lastStatus.delete(name);
        this.programs.delete(name);
        // Its holds are gone: its assignments are released and the instances follow the latest revision again.
        void this.releaseAll(name).finally(() => {
          this.host.reconcileInstances(name);
          void this.host.dropFleet?.(name);
        });
      },
    });
  }

  async start(): Promise<void> {
    this.informer.start();
    await this.informer.waitForSync(10_000).catch(() => {
      this.host.log.warn('GraphRollouts not synced (is the GraphRollout CRD installed?)');
    });
    this.running = this.queue.run((name) => this.round(name), 1, failedPassLogger(this.host.log, 'rollout'));
  }

  /**
   * A sharded follower's view (design/sharding.md §6): the rollouts' holds, read from the status the
   * coordinator writes, so that its instances that name no revision stay where the rollout holds them.
   * It plans nothing and writes nothing.
   */
  async startView(): Promise<void> {
    this.viewOnly = true;
    this.informer.start();
    await this.informer.waitForSync(10_000).catch(() => {
      this.host.log.warn('GraphRollouts not synced (is the GraphRollout CRD installed?)');
    });
  }

  async stop(): Promise<void> {
    await this.queue.shutdown();
    await this.running;
    await this.informer.stop();
  }

  /** An instance pass ended (instanceReconciler.ts `onPass`). */
  notePass(api: InstanceApi, inst: KubeObject, rv: number): void {
    this.passes.set(inst.metadata.uid ?? '', { rgd: api.rgdName, revision: api.revision, rv });
    if (this.informer.get(undefined, api.rgdName)) this.queue.add(api.rgdName);
  }

  /** An instance of another replica changed (the sharded coordinator's fleet view): look again. */
  noteFleetChange(rgdName: string): void {
    if (this.informer.get(undefined, rgdName)) this.queue.add(rgdName);
  }

  /** Forgets what is kept of an RGD's instances that are gone (deleted, or no longer served). */
  private forgetGone(rgdName: string, present: KubeObject[]): void {
    const uids = new Set(present.map((o) => o.metadata.uid ?? ''));
    for (const [uid, p] of this.passes) if (p.rgd === rgdName && !uids.has(uid)) this.passes.delete(uid);
    for (const [uid, o] of this.overlays) if (o.rgd === rgdName && !uids.has(uid)) this.overlays.delete(uid);
  }

  /** How many instances the per-instance maps hold (tests). */
  retained(): { passes: number; overlays: number } {
    return { passes: this.passes.size, overlays: this.overlays.size };
  }

  /** Where the RGD's rollout holds an instance that names no revision (undefined: no rollout). */
  defaultFor(rgdName: string, inst: KubeObject): number | undefined {
    const k = this.stateOf(rgdName);
    if (!k) return undefined;
    return defaultRevision(
      k.state,
      k.spec ?? { newInstances: 'Stable' },
      inst.metadata.creationTimestamp ?? '',
    );
  }

  /** The revisions the RGD's rollout holds (retention keeps them). */
  held(rgdName: string): number[] {
    const s = this.stateOf(rgdName)?.state;
    return [s?.stableRevision, s?.targetRevision].filter((n): n is number => n !== undefined);
  }

  private stateOf(rgdName: string): Known | undefined {
    const ro = this.informer.get(undefined, rgdName);
    if (!ro) return undefined;
    const k = this.known.get(rgdName);
    if (k && k.uid === ro.metadata.uid) return k;
    const spec = readRolloutSpec(ro);
    return {
      uid: ro.metadata.uid ?? '',
      state: readRolloutState(ro),
      ...(spec instanceof RolloutSpecError ? {} : { spec: spec.spec }),
    };
  }

  private async round(name: string): Promise<{ requeueAfterMs: number } | undefined> {
    const ro = this.informer.get(undefined, name);
    if (!ro) {
      this.known.delete(name);
      return undefined;
    }
    const api = this.host.servedApi(name);
    // Not served here (another controller's RGD, or not active yet): nothing to plan.
    if (!api) return { requeueAfterMs: IDLE_RECHECK_MS };
    // Planned from every replica's instances, never from a partial view.
    await this.host.ensureFleet?.(name);
    const prior = this.stateOf(name) ?? { uid: ro.metadata.uid ?? '', state: readRolloutState(ro) };
    const read = readRolloutSpec(ro);
    if (read instanceof RolloutSpecError) {
      await this.writeStatus(ro, prior.state, undefined, { code: read.code, message: read.message });
      return undefined;
    }
    const programs = this.compiled(ro, read.health);
    if (programs instanceof HealthExpressionError) {
      await this.writeStatus(ro, prior.state, undefined, { code: programs.code, message: programs.message });
      return undefined;
    }
    if (api.revision === undefined) {
      await this.writeStatus(ro, prior.state, undefined, {
        code: 'RevisionsUnavailable',
        message: 'the RGD has no GraphRevisions yet (is the GraphRevision CRD installed?)',
      });
      return { requeueAfterMs: IDLE_RECHECK_MS };
    }
    const now = new Date().toISOString();
    this.lagging = false;
    const plan = planRollout({
      spec: read.spec,
      state: prior.state,
      latest: api.revision,
      instances: this.fleet(name, prior.state, read.spec, read.health, programs, api.revision, now),
      now,
      gate: (c) => gateHolds(programs, c),
    });
    this.noteSteps(name, prior.state, plan.state, now);
    for (const e of rolloutEvents({ name, uid: ro.metadata.uid }, prior.state, plan.state))
      this.host.event?.(e);
    // The state first: a restart continues from it, and never releases what it already moved.
    await this.writeStatus(ro, plan.state, plan);
    this.known.set(name, { uid: ro.metadata.uid ?? '', state: plan.state, spec: read.spec });
    if (holdsChanged(prior.state, plan.state)) this.host.reconcileInstances(name);
    await this.write(api, plan.writes, now);
    if (plan.state.phase === 'Completed') return { requeueAfterMs: IDLE_RECHECK_MS };
    const recheck = this.lagging ? CACHE_LAG_RECHECK_MS : ROLLING_RECHECK_MS;
    return { requeueAfterMs: Math.min(plan.recheckAfterMs ?? recheck, recheck) };
  }

  /** Releases every assignment of a deleted rollout (best effort: a failure is logged). */
  private async releaseAll(rgdName: string): Promise<void> {
    const api = this.host.servedApi(rgdName);
    if (!api) return;
    const writes: Write[] = this.host
      .instancesOf(rgdName)
      .filter((o) => o.metadata.annotations?.[ANNOTATION_ASSIGNED_AT] !== undefined)
      .map((o) => ({ kind: 'release', namespace: o.metadata.namespace ?? '', name: o.metadata.name ?? '' }));
    await this.write(api, writes, new Date().toISOString()).catch((e: unknown) =>
      this.host.log.warn({ rollout: rgdName, err: errorMessage(e) }, 'rollout assignments not released'),
    );
  }

  private compiled(ro: KubeObject, h: HealthSpec): HealthPrograms | HealthExpressionError {
    const gen = ro.metadata.generation ?? 0;
    const got = this.programs.get(ro.metadata.name ?? '');
    if (got && got.generation === gen) return got.programs;
    const programs = compileHealth(h);
    this.programs.set(ro.metadata.name ?? '', { generation: gen, programs });
    return programs;
  }

  /** The fleet as the planner sees it: our unseen writes overlaid, health judged at the target. */
  private fleet(
    rgdName: string,
    state: RolloutState,
    spec: RolloutSpec,
    health: HealthSpec,
    programs: HealthPrograms,
    latest: number,
    now: string,
  ): FleetInstance[] {
    const target =
      latest !== state.stableRevision && latest !== state.targetRevision ? latest : state.targetRevision;
    const present = this.host.instancesOf(rgdName);
    this.forgetGone(rgdName, present);
    return present.map((cached) => {
      const o = this.current(cached);
      const a = o.metadata.annotations ?? {};
      const assigned =
        a[ANNOTATION_ASSIGNED_AT] !== undefined ? parseRevision(a[ANNOTATION_REVISION]) : undefined;
      const assignedAt = assigned !== undefined ? a[ANNOTATION_ASSIGNED_AT] : undefined;
      const created = o.metadata.creationTimestamp ?? '';
      const base: FleetInstance = {
        namespace: o.metadata.namespace ?? '',
        name: o.metadata.name ?? '',
        created,
        labels: o.metadata.labels ?? {},
        pinned: !rolloutMayMove(o.metadata),
        ...(assigned !== undefined ? { assigned } : {}),
        ...(assignedAt !== undefined ? { assignedAt } : {}),
      };
      if (target === undefined || base.pinned) return base;
      const following =
        assigned !== undefined ? assigned === target : defaultRevision(state, spec, created) === target;
      if (!following) return base;
      // The deadline counts from the move: the assignment, or (following by default) the later of the
      // rollout's start and the instance's creation.
      const started = state.startedAt ?? created;
      const since =
        assignedAt ?? new Date(Math.max(Date.parse(started) || 0, Date.parse(created) || 0)).toISOString();
      return { ...base, health: this.health(o, target, programs, health, since, now) };
    });
  }

  private health(
    o: KubeObject,
    target: number,
    programs: HealthPrograms,
    h: HealthSpec,
    since: string,
    now: string,
  ): Health {
    const pass = this.passes.get(o.metadata.uid ?? '');
    const passed = pass?.revision === target;
    // Another replica's pass (sharded) is known by the revision it recorded, in this very version.
    const published = o.metadata.annotations?.[ANNOTATION_OBSERVED_REVISION] === String(target);
    const seen = published || (passed && Number(o.metadata.resourceVersion) >= pass.rv);
    if (passed && !seen) this.lagging = true;
    const atTarget = parseRevision(o.metadata.labels?.[LABEL_REVISION]) === target && seen;
    const judged = atTarget ? instanceHealth(programs, o) : 'Pending';
    if (judged !== 'Pending') return judged;
    return Date.parse(now) - Date.parse(since) > h.progressDeadlineMs ? 'Failed' : 'Pending';
  }

  /** The cached instance, or our newer write's answer while the cache lags it. */
  private current(cached: KubeObject): KubeObject {
    const uid = cached.metadata.uid ?? '';
    const mine = this.overlays.get(uid)?.obj;
    if (!mine) return cached;
    if (Number(cached.metadata.resourceVersion) >= Number(mine.metadata.resourceVersion)) {
      this.overlays.delete(uid);
      return cached;
    }
    return mine;
  }

  private async write(api: InstanceApi, writes: Write[], now: string): Promise<void> {
    const queue = [...writes];
    const worker = async (): Promise<void> => {
      for (let w = queue.shift(); w; w = queue.shift()) await this.writeOne(api, w, now);
    };
    await Promise.all(Array.from({ length: Math.min(WRITE_CONCURRENCY, queue.length) }, worker));
  }

  private async writeOne(api: InstanceApi, w: Write, now: string): Promise<void> {
    const cached = this.host
      .instancesOf(api.rgdName)
      .find((o) => (o.metadata.namespace ?? '') === w.namespace && o.metadata.name === w.name);
    if (!cached) return;
    const metadata: Record<string, unknown> = { name: w.name };
    if (api.namespaced) metadata.namespace = w.namespace;
    // A release applies no annotation: the fields this manager owned are removed.
    if (w.kind === 'assign')
      metadata.annotations = { [ANNOTATION_REVISION]: String(w.revision), [ANNOTATION_ASSIGNED_AT]: now };
    try {
      const res = await applyToExisting(
        this.host.client,
        { apiVersion: `${api.group}/${api.version}`, kind: api.kind, metadata } as unknown as KubeObject,
        cached.metadata.uid,
        { fieldManager: ROLLOUT_MANAGER, force: true },
      );
      this.stats.instanceWrites += 1;
      if (res) this.overlays.set(res.metadata.uid ?? '', { rgd: api.rgdName, obj: res });
    } catch (e) {
      this.host.log.warn(
        { instance: `${w.namespace}/${w.name}`, err: errorMessage(e) },
        'rollout write failed',
      );
      throw e;
    }
  }

  private async writeStatus(
    ro: KubeObject,
    state: RolloutState,
    plan: Plan | undefined,
    problem?: { code: string; message: string },
  ): Promise<void> {
    const status = rolloutStatus(ro, state, plan, problem, new Date().toISOString().replace(/\.\d+Z$/, 'Z'));
    const name = ro.metadata.name ?? '';
    // Our last write, while the cache may still hold the one before it.
    if (sameStatus(this.lastStatus.get(name) ?? ro.status, status)) return;
    await this.host.client.applyStatus(
      { apiVersion: ROLLOUT_API_VERSION, kind: ROLLOUT_KIND, metadata: { name }, status },
      { fieldManager: ROLLOUT_MANAGER, force: true },
    );
    this.lastStatus.set(name, status);
    this.stats.statusWrites += 1;
  }

  private readonly lastStatus = new Map<string, Record<string, unknown>>();

  private noteSteps(name: string, before: RolloutState, after: RolloutState, now: string): void {
    if (before.targetRevision === undefined || before.stepStartedAt === undefined) return;
    if (after.phase !== 'Completed' && after.targetRevision !== before.targetRevision) return;
    if (after.step > before.step || (after.phase === 'Completed' && before.phase !== 'Completed'))
      this.stats.steps.push({
        rollout: name,
        step: before.step,
        ms: Date.parse(now) - Date.parse(before.stepStartedAt),
      });
  }
}

/** What instances that name no revision resolve to changed (revisionResolver.ts asks `defaultFor`). */
function holdsChanged(a: RolloutState, b: RolloutState): boolean {
  return (
    a.stableRevision !== b.stableRevision || a.targetRevision !== b.targetRevision || a.phase !== b.phase
  );
}
