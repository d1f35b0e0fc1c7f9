/**
 * One pass over one RGD instance (design/rgd.md §20, design/graph.md §21–§23), on the reconcile core shared with Graphs:
 *
 *   deleting? → children in waves (deletion.ts), then the finalizer goes (suspended or not).  suspended? → nothing.
 *   parent metadata (design/graph.md §23.3 labels, finalizer, ApplySet inventory = recorded ∪ desired) → evaluate with the
 *   instance as `schema` (ready-gated) → apply children as `kro.run/applyset`, forced → evaluate again
 *   while writes unlock dependents → prune the ApplySet (only after every apply succeeded; never what a
 *   pending node rendered earlier) → shrink the inventory → status.
 *
 * Whose identity (docs/rgd.md, "Trust model"): without `spec.defaultServiceAccounts` on the RGD, the
 * controller's own, as kro. With it, the ServiceAccount it maps the instance to (names.ts): children are
 * applied, pruned and deleted impersonating it (as a Graph's children are), and every cached object the
 * evaluation reads (externalRefs, observed children) is handed over only if that ServiceAccount may read
 * it (readAccess.ts); a refused read writes nothing and reports `ResourcesReady=False`, `ReadForbidden`.
 * Status and parent metadata are always the controller's.
 *
 * Reads come from the shared informer caches; an apply whose fields already agree is skipped and an
 * unchanged status or parent is not written, so a steady-state pass makes no write request.
 */
import type { Logger } from 'pino';
import type { CompiledGraph } from '../../graph/model.ts';
import { applyToExisting, type KubeObject, type RestClient } from '../../kube/index.ts';
import { withSpan } from '../../kube/tracing/tracing.ts';
import { customConditionsWith, evaluate } from '../../runtime/evaluate.ts';
import type { EvaluationResult, NodeResult } from '../../runtime/types.ts';
import { appliedFieldsAgree } from '../core/applyNeeded.ts';
import { WaitBackoff } from '../core/backoff.ts';
import { bucketStamp } from '../core/bucket.ts';
import { foreignReads } from '../core/childScope.ts';
import type { ConditionStatus } from '../core/conditions.ts';
import { type BeforeApply, type ConvergeOutcome, convergePasses } from '../core/converge.ts';
import type { DesiredObject } from '../core/desired.ts';
import { describeIdentity } from '../core/errors.ts';
import { resourceKey } from '../core/inventory.ts';
import { CONTROLLER_MANAGER, graphImpersonation, LABEL_NODE_ID, labelValue } from '../core/names.ts';
import type { ReconcileOutcome } from '../core/outcome.ts';
import { writeBoundedStatus } from '../core/oversizedStatus.ts';
import { passReport } from '../core/passReport.ts';
import { pruneRetired } from '../core/prune.ts';
import type { ReadScope } from '../core/readAccess.ts';
import { type Interest, newInterest, type WatchSet } from '../core/watches.ts';
import {
  groupKindOf,
  type Inventory,
  inventoryAnnotations,
  inventoryOf,
  readInventory,
  unionInventory,
} from './applyset.ts';
import { type Child, type GroupKindVersions, listChildren } from './children.ts';
import { applyOrderOf, deleteNextWave } from './deletion.ts';
import {
  builtinsForConditions,
  customInstanceConditions,
  type InstanceState,
  type InstanceStatus,
  instanceConditions,
  instanceStatusJson,
  instanceStatusMatches,
  parseConditions,
} from './instanceStatus.ts';
import { KRO_MESSAGES } from './kroMessages.ts';
import {
  APPLYSET_MANAGER,
  applySetId,
  INSTANCE_FINALIZER,
  instanceServiceAccount,
  isSuspended,
  LABEL_APPLYSET_PART_OF,
  PARENT_MANAGER,
} from './names.ts';
import { revisionErrorStatus } from './revisionErrorStatus.ts';
import { ANNOTATION_OBSERVED_REVISION, LABEL_REVISION, RevisionResolutionError } from './revisionPolicy.ts';
import { type InstanceIdentity, instanceLabels, stampChild } from './stamp.ts';
import { firstTerminating, type TerminatingChild, terminatingMessage } from './terminating.ts';
import { watchesHealthyInput, withWatchesHealthy } from './watchesHealthy.ts';

/** The generated API an instance belongs to, and the graph it is reconciled with. */
export interface InstanceApi {
  rgdName: string;
  rgdUid: string;
  compiled: CompiledGraph;
  group: string;
  version: string;
  kind: string;
  plural: string;
  namespaced: boolean;
  /** The GraphRevision `compiled` is (design/rgd.md §19.7); undefined while revisions are not issued. */
  revision?: number;
}

/** The work-queue key of an instance: `<rgd>|<namespace>/<name>` (namespace empty when cluster-scoped). */
export function instanceKey(rgdName: string, namespace: string, name: string): string {
  return `${rgdName}|${namespace}/${name}`;
}

export interface InstanceLister {
  get(api: InstanceApi, namespace: string, name: string): KubeObject | undefined;
}

export interface InstanceReconcilerDeps {
  /** The controller's own identity: status and parent metadata, children unless the RGD maps a ServiceAccount. */
  client: RestClient;
  /** The reads of a ServiceAccount (readAccess.ts), for RGDs with `spec.defaultServiceAccounts`. */
  reads?: (namespace: string, serviceAccount: string) => ReadScope;
  watches: WatchSet;
  versions: GroupKindVersions;
  instances: InstanceLister;
  log: Logger;
  maxCollectionSize?: number;
  applyConcurrency?: number;
  now?: () => string;
  /** The revision a pass is reconciled at (revisionResolver.ts); without it, always `api` as given. */
  resolveRevision?: (api: InstanceApi, inst: KubeObject) => Promise<InstanceApi | RevisionResolutionError>;
  /**
   * A pass at `api.revision` ended with its status written; `rv` is the instance version that status is
   * in (or later). A rollout judges an instance's health at a revision only from such a version.
   */
  onPass?: (api: InstanceApi, inst: KubeObject, rv: number) => void;
  /**
   * Sharded: record the revision of each ended pass on the instance (`kgraph.dev/observed-revision`),
   * for the coordinator's rollout, which sees no pass of another replica (design/sharding.md §6).
   */
  publishPasses?: boolean;
}

/** An instance stopped on an unavailable revision is looked at again after this long (or when it changes). */
const REVISION_WAIT_MS = 30_000;

/** Instances waiting for data or readiness are looked at again after this long (design/graph.md §25). */
const WAIT_MS = 3_000;
/** Versions of an instance our own writes produced that are still recognised as echoes. */
const OWN_VERSIONS = 8;
/** A deletion wave waiting for its objects to go (their events usually come first). */
const WAVE_WAIT_MS = 1_000;
/** Who an instance's pass writes and reads as: its ServiceAccount where the RGD maps one (docs/rgd.md). */
interface ActingAs {
  writer: RestClient;
  reads?: ReadScope;
}

/** A refused read is retried with backoff up to this; a grant (the RBAC watch) requeues at once. */
const FORBIDDEN_MAX_MS = 300_000;

export class InstanceReconciler {
  private readonly deps: InstanceReconcilerDeps;
  /**
   * Per instance UID: the resourceVersion and status of our last write, and the versions our recent
   * writes (parent metadata, status) produced — an echo of any of them changes nothing, also when it
   * arrives after the next write's answer.
   */
  private readonly lastWrite = new Map<string, { rv: number; rvs: number[]; status?: InstanceStatus }>();
  private readonly waits = new WaitBackoff(WAIT_MS, WAIT_MS);
  private readonly forbiddenWaits = new WaitBackoff(WAIT_MS, FORBIDDEN_MAX_MS);

  constructor(deps: InstanceReconcilerDeps) {
    this.deps = deps;
  }

  private now(): string {
    return (this.deps.now ?? (() => new Date().toISOString().replace(/\.\d+Z$/, 'Z')))();
  }

  /** True when `obj` is the echo of our own last write on it. */
  isOwnEcho(obj: KubeObject): boolean {
    return (
      this.lastWrite.get(obj.metadata.uid ?? '')?.rvs.includes(Number(obj.metadata.resourceVersion)) === true
    );
  }

  /** Drops what is remembered of an instance (its write echoes and wait backoffs): it is gone. */
  forget(uid: string): void {
    this.lastWrite.delete(uid);
    this.waits.reset(uid);
    this.forbiddenWaits.reset(uid);
  }

  /** How many instances each per-instance map holds (tests, benchmarks). */
  retained(): { lastWrites: number; waits: number; forbiddenWaits: number } {
    return {
      lastWrites: this.lastWrite.size,
      waits: this.waits.size,
      forbiddenWaits: this.forbiddenWaits.size,
    };
  }

  /**
   * Whose identity an instance's children are written and its reads checked with: the RGD's
   * ServiceAccount for the instance (names.ts), or (none mapped) the controller's own, unchecked.
   */
  private actingAs(api: InstanceApi, identity: InstanceIdentity): ActingAs {
    const sa = instanceServiceAccount(api.compiled.rgd?.defaultServiceAccounts, identity.namespace);
    if (sa === undefined) return { writer: this.deps.client };
    if (!this.deps.reads)
      throw new Error('internal: an RGD maps a ServiceAccount and no read access is wired');
    return {
      writer: this.deps.client.withImpersonation(graphImpersonation(sa.namespace, sa.name)),
      reads: this.deps.reads(sa.namespace, sa.name),
    };
  }

  /**
   * One instance, one pass, in named steps (kro's instance controller: reconcileNodes → applyResources
   * → pruneIfSafe → finalizeState): deletion? → converge the children with the parent's metadata →
   * prune what the inventory no longer wants, only after a clean apply → status and the queue's next step.
   */
  async reconcile(served: InstanceApi, namespace: string, name: string): Promise<ReconcileOutcome> {
    const interest = newInterest();
    const inst = this.deps.instances.get(served, namespace, name);
    if (!inst) return { kind: 'gone', reason: 'NotFound', interest };
    // Deletion first: a suspended instance that is deleted still deletes its children (kro's order).
    if (inst.metadata.deletionTimestamp) {
      const identity = identityOf(served, inst);
      return this.finalize(served, inst, identity, interest, this.actingAs(served, identity).writer);
    }
    if (isSuspended(inst.metadata.annotations)) {
      await this.markSuspended(served, inst);
      return { kind: 'converged', reason: 'Suspended', interest };
    }
    // The revision of this pass (design/rgd.md §19.7): an unavailable one stops the instance, no fallback.
    const api = this.deps.resolveRevision ? await this.deps.resolveRevision(served, inst) : served;
    if (api instanceof RevisionResolutionError) {
      await this.writeStatus(
        served,
        inst,
        revisionErrorStatus(inst, api, () => this.now()),
      );
      return { kind: 'waiting', reason: api.code, interest, requeueAfterMs: REVISION_WAIT_MS };
    }
    const identity = identityOf(api, inst);
    const acting = this.actingAs(api, identity);

    const startedAt = Date.now();
    const converged = await withSpan('converge', {}, () =>
      this.convergeChildren(api, inst, identity, acting, interest),
    );
    if (!converged) return { kind: 'gone', reason: 'NotFound', interest };
    const { passes, terminating } = converged;
    const convergedAt = Date.now();
    // A child held in deletion: nothing was applied, nothing is pruned; the status says which (terminating.ts).
    const pruned = terminating
      ? { parent: converged.parent, errors: [], pruned: [] }
      : await withSpan('prune', {}, () =>
          this.pruneIfSafe(api, converged.parent, identity, acting.writer, passes),
        );
    const prunedAt = Date.now();
    const { outcome, status } = await withSpan('status', {}, () =>
      this.finalizeState(api, inst, pruned.parent, identity, passes, pruned.errors, interest, terminating),
    );
    // What the pass did, for its events, history and trace (core/passReport.ts).
    const before = parseConditions(inst as unknown as Record<string, unknown>);
    outcome.report = passReport({
      startedAt,
      generation: inst.metadata.generation ?? 0,
      previousGeneration: before.find((c) => c.type === 'Ready')?.observedGeneration ?? 0,
      revision: api.revision,
      result: passes.result,
      state: passes.state,
      pruned: pruned.pruned,
      pruneErrors: pruned.errors,
      conditionsBefore: before,
      conditionsAfter: status.conditions,
      phases: {
        converge: convergedAt - startedAt,
        prune: prunedAt - convergedAt,
        status: Date.now() - prunedAt,
      },
    });
    return outcome;
  }

  /**
   * The engine's passes with their applies. The parent metadata (labels, finalizer, ApplySet
   * inventory) is written once, by the first pass that applies, with that pass's union
   * (design/graph.md §22.2 step 2) — not once before evaluating and again with the union. Undefined: the instance vanished.
   */
  private async convergeChildren(
    api: InstanceApi,
    inst: KubeObject,
    identity: InstanceIdentity,
    acting: ActingAs,
    interest: Interest,
  ): Promise<{ parent: KubeObject; passes: ConvergeOutcome; terminating?: TerminatingChild } | undefined> {
    let parent: KubeObject = inst;
    let parentWritten = false;
    let vanished = false;
    let terminating: TerminatingChild | undefined;
    this.deps.watches.declareForeign(foreignReads(api.compiled));
    const passes = await convergePasses({
      watches: this.deps.watches,
      ...(acting.reads ? { reads: acting.reads } : {}),
      applier: {
        writer: acting.writer,
        watches: this.deps.watches,
        concurrency: this.deps.applyConcurrency ?? 20,
        // The children's watch events of these writes are this instance's echoes, not news to it.
        owner: instanceKey(api.rgdName, inst.metadata.namespace ?? '', inst.metadata.name ?? ''),
      },
      namespace: identity.namespace || 'default',
      interest,
      // The latest parent: once the first applying pass wrote the labels and ApplySet annotations,
      // later passes see them in `schema.metadata`, as kro's instances carry them before any resolve.
      evaluate: (observed) =>
        evaluate(api.compiled, {
          instance: parent as unknown as Record<string, unknown>,
          observed,
          ...(identity.namespace ? { namespace: identity.namespace } : {}),
          ...(this.deps.maxCollectionSize !== undefined
            ? { maxCollectionSize: this.deps.maxCollectionSize }
            : {}),
        }),
      stamp: (value, item) => stampChild(value, item, identity),
      patchOwner: identity.uid,
      policy: {
        manager: APPLYSET_MANAGER,
        force: true,
        refuse: (d, observed) => otherApplySet(d, observed, identity.applySetId),
      },
      beforeApply: async (desired): Promise<BeforeApply> => {
        terminating = firstTerminating(desired, this.deps.watches.view(interest));
        if (terminating) return { proceed: false, error: terminatingMessage(terminating) };
        // Record every GroupKind and namespace about to be written before writing it (design/graph.md §22.2 step 2).
        const recorded = readInventory(parent.metadata.annotations);
        const union = unionInventory(
          recorded,
          inventoryOf(
            desired.map((d) => d.id),
            identity.namespace,
          ),
        );
        for (const d of desired)
          this.deps.versions.remember(groupKindOf(d.id.apiVersion, d.id.kind), d.id.apiVersion);
        const next = await this.ensureParent(api, parent, identity, union, true);
        if (!next) {
          vanished = true;
          return { proceed: false, error: 'the instance disappeared' };
        }
        parent = next;
        parentWritten = true;
        return { proceed: true };
      },
    });
    if (vanished) return undefined;
    if (!parentWritten) {
      // No pass applied (all pending, an error, a refused read): the labels and finalizer still go on.
      const next = await this.ensureParent(
        api,
        parent,
        identity,
        readInventory(parent.metadata.annotations),
        true,
      );
      if (!next) return undefined;
      parent = next;
    }
    return terminating ? { parent, passes, terminating } : { parent, passes };
  }

  /**
   * Prune (design/graph.md §22.2 steps 4–5): only after a clean apply (a refused read applied nothing:
   * keep all); then the inventory shrinks to what is kept.
   */
  private async pruneIfSafe(
    api: InstanceApi,
    parent: KubeObject,
    identity: InstanceIdentity,
    writer: RestClient,
    passes: ConvergeOutcome,
  ): Promise<{ parent: KubeObject; errors: string[]; pruned: string[] }> {
    const { result, state, desired } = passes;
    if (state.hardError || state.forbidden || state.conflicts.length > 0)
      return { parent, errors: [], pruned: [] };
    const recorded = readInventory(parent.metadata.annotations);
    const children = await listChildren(
      this.deps.watches,
      this.deps.versions,
      identity.applySetId,
      recorded,
      identity.namespace,
    );
    const keep = keepSet(result, desired, state.uids, children);
    const retired = children
      .filter((c) => !keep.has(c.uid))
      .sort((a, b) => applyOrderOf(a) - applyOrderOf(b));
    const pruned = await pruneRetired(writer, this.deps.watches, this.deps.log, retired);
    const notKept = new Set(pruned.kept.map((c) => c.uid));
    const gone = retired.filter((c) => !notKept.has(c.uid)).map((c) => resourceKey(c));
    if (pruned.errors.length > 0) return { parent, errors: pruned.errors, pruned: gone };
    const kept = children.filter((c) => keep.has(c.uid));
    const shrunk = inventoryOf([...desired.map((d) => d.id), ...kept], identity.namespace);
    return {
      parent: (await this.ensureParent(api, parent, identity, shrunk, true)) ?? parent,
      errors: [],
      pruned: gone,
    };
  }

  /** Writes the status (state, conditions, projected fields) and says what the queue does next. */
  private async finalizeState(
    api: InstanceApi,
    inst: KubeObject,
    parent: KubeObject,
    identity: InstanceIdentity,
    passes: ConvergeOutcome,
    pruneErrors: string[],
    interest: Interest,
    terminating?: TerminatingChild,
  ): Promise<{ outcome: ReconcileOutcome; status: InstanceStatus }> {
    const { result, state } = passes;
    const status = state.forbidden
      ? this.forbiddenStatus(inst, result, state.forbidden)
      : terminating
        ? this.instanceStatus(api.compiled, inst, result, undefined, [], [], terminating)
        : this.instanceStatus(api.compiled, inst, result, state.hardError, state.conflicts, pruneErrors);
    status.conditions = withWatchesHealthy(
      status.conditions,
      parseConditions(inst as unknown as Record<string, unknown>),
      watchesHealthyInput(this.deps.watches.watchHealth(interest.kinds.values())),
      inst.metadata.generation ?? 0,
      () => this.now(),
    );
    await this.writeStatus(api, parent, status);
    if (this.deps.publishPasses && api.revision !== undefined)
      parent =
        (await this.ensureParent(
          api,
          parent,
          identity,
          readInventory(parent.metadata.annotations),
          true,
          api.revision,
        )) ?? parent;

    const uid = identity.uid;
    this.deps.onPass?.(
      api,
      inst,
      Math.max(this.lastWrite.get(uid)?.rv ?? 0, Number(parent.metadata.resourceVersion)),
    );
    if (state.forbidden) {
      // Waiting, not failed: a grant (seen through the RBAC watch) reconciles the instance again.
      this.waits.reset(uid);
      return {
        outcome: {
          kind: 'waiting',
          reason: 'ReadForbidden',
          interest,
          requeueAfterMs: this.forbiddenWaits.next(uid),
        },
        status,
      };
    }
    this.forbiddenWaits.reset(uid);
    if (status.state === 'ERROR') {
      const reason = state.hardError
        ? 'ApplyFailed'
        : pruneErrors.length > 0
          ? 'PruneFailed'
          : 'ResolutionFailed';
      const message = state.hardError ?? pruneErrors.join('; ') ?? '';
      return {
        outcome: { kind: 'failed', reason, interest, error: new Error(`${reason}: ${message}`) },
        status,
      };
    }
    if (status.state === 'IN_PROGRESS') {
      return {
        outcome: { kind: 'waiting', reason: 'NotReady', interest, requeueAfterMs: this.waits.next(uid) },
        status,
      };
    }
    this.waits.reset(uid);
    return { outcome: { kind: 'converged', reason: 'Ready', interest }, status };
  }

  // ------------------------------------------------------------------ status

  /**
   * A read was refused to the RGD's ServiceAccount: the evaluation saw less than the cluster holds, so
   * nothing derived from it is written — the projected fields stay as they were, custom conditions are
   * not evaluated (the four built-ins say why), and the state is ERROR until a grant.
   */
  private forbiddenStatus(inst: KubeObject, result: EvaluationResult, message: string): InstanceStatus {
    const gen = inst.metadata.generation ?? 0;
    const prev = parseConditions(inst as unknown as Record<string, unknown>);
    const evalErrors = result.errors.map((e) => `node ${e.node}: ${e.message}`);
    const conditions = instanceConditions(
      prev,
      {
        managed: { status: 'True', reason: 'Managed', message: KRO_MESSAGES.managed },
        resolved:
          evalErrors.length > 0
            ? { status: 'False', reason: 'ResolutionFailed', message: evalErrors.join('; ') }
            : { status: 'True', reason: 'Resolved', message: KRO_MESSAGES.resolved },
        resourcesReady: { status: 'False', reason: 'ReadForbidden', message },
      },
      gen,
      () => this.now(),
    );
    return { fields: previousFields(inst), conditions, state: 'ERROR' };
  }

  private instanceStatus(
    compiled: CompiledGraph,
    inst: KubeObject,
    result: EvaluationResult,
    hardError: string | undefined,
    conflicts: string[],
    pruneErrors: string[],
    terminating?: TerminatingChild,
  ): InstanceStatus {
    const gen = inst.metadata.generation ?? 0;
    const prev = parseConditions(inst as unknown as Record<string, unknown>);
    const now = () => this.now();
    const evalErrors = result.errors.map((e) => `node ${e.node}: ${e.message}`);
    const resolved =
      evalErrors.length > 0
        ? { status: 'False' as ConditionStatus, reason: 'ResolutionFailed', message: evalErrors.join('; ') }
        : { status: 'True' as ConditionStatus, reason: 'Resolved', message: KRO_MESSAGES.resolved };
    let ready: { status: ConditionStatus; reason: string; message: string };
    let state: InstanceState;
    const applyProblem =
      evalErrors.length > 0
        ? undefined
        : (hardError ?? (pruneErrors.length > 0 ? pruneErrors.join('; ') : undefined));
    if (evalErrors.length > 0) {
      ready = { status: 'Unknown', reason: 'ResolutionFailed', message: 'the graph did not resolve' };
      state = 'ERROR';
    } else if (terminating) {
      ready = { status: 'False', reason: 'ResourceDeleting', message: terminatingMessage(terminating) };
      state = 'IN_PROGRESS';
    } else if (applyProblem) {
      ready = {
        status: 'False',
        reason: 'NotReady',
        message: `${KRO_MESSAGES.reconcileFailed}${applyProblem}`,
      };
      state = 'ERROR';
    } else if (conflicts.length > 0) {
      ready = {
        status: 'False',
        reason: 'NotReady',
        message: `${KRO_MESSAGES.reconcileFailed}${conflicts.join('; ')}`,
      };
      state = 'IN_PROGRESS';
    } else if (!result.ready || result.firstSoft) {
      const soft = result.firstSoft;
      ready = {
        status: 'False',
        reason: 'NotReady',
        message: `${KRO_MESSAGES.awaitingReadiness}${soft ? `${soft.state === 'pending' ? KRO_MESSAGES.unresolved : ''}node ${soft.node}: ${soft.reason}` : 'not all resources are ready'}`,
      };
      state = 'IN_PROGRESS';
    } else {
      ready = { status: 'True', reason: 'AllResourcesReady', message: KRO_MESSAGES.allReady };
      state = 'ACTIVE';
    }
    const conditions = instanceConditions(
      prev,
      {
        managed: { status: 'True', reason: 'Managed', message: KRO_MESSAGES.managed },
        resolved,
        resourcesReady: ready,
      },
      gen,
      now,
    );
    if (state === 'ACTIVE' && result.statusErrors.length > 0) state = 'ERROR';
    const fields = (result.status ?? {}) as Record<string, unknown>;
    // Custom conditions (design/rgd.md §20.3): evaluated against this pass's built-ins, written instead of them.
    const custom = customConditionsWith(
      compiled,
      inst as unknown as Record<string, unknown>,
      result,
      builtinsForConditions(conditions),
    );
    if (custom === undefined) return { fields, conditions, state };
    const authored = customInstanceConditions(prev, custom, gen, now);
    if (authored.degraded) state = 'ERROR';
    return { fields, conditions: authored.conditions, state };
  }

  /**
   * A suspended instance (design/rgd.md §20.4) says so as kro does: ResourcesReady and Ready False with
   * reason ReconciliationSuspended, state IN_PROGRESS, the projected fields as they were. Nothing else
   * is read or written; once written, the status matches and a pass writes nothing.
   */
  private async markSuspended(api: InstanceApi, inst: KubeObject): Promise<void> {
    const prev = parseConditions(inst as unknown as Record<string, unknown>);
    const conditions = instanceConditions(
      prev,
      {
        managed: { status: 'True', reason: 'Managed', message: KRO_MESSAGES.managed },
        resolved: { status: 'True', reason: 'Resolved', message: KRO_MESSAGES.resolved },
        resourcesReady: {
          status: 'False',
          reason: 'ReconciliationSuspended',
          message: KRO_MESSAGES.suspended,
        },
      },
      inst.metadata.generation ?? 0,
      () => this.now(),
    );
    await this.writeStatus(api, inst, { fields: previousFields(inst), conditions, state: 'IN_PROGRESS' });
  }

  private async writeStatus(api: InstanceApi, inst: KubeObject, status: InstanceStatus): Promise<void> {
    const uid = inst.metadata.uid ?? '';
    if (instanceStatusMatches(inst as unknown as Record<string, unknown>, status)) return;
    const last = this.lastWrite.get(uid);
    if (last?.status && last.rv >= Number(inst.metadata.resourceVersion) && jsonSame(last.status, status))
      return;
    const metadata = inst.metadata.namespace
      ? { name: inst.metadata.name, namespace: inst.metadata.namespace }
      : { name: inst.metadata.name };
    const res = await writeBoundedStatus({
      what: `${api.kind} ${inst.metadata.namespace ? `${inst.metadata.namespace}/` : ''}${inst.metadata.name}`,
      object: inst,
      status: instanceStatusJson(status),
      generation: inst.metadata.generation ?? 0,
      now: () => this.now(),
      write: (s) =>
        this.deps.client.applyStatus(
          { apiVersion: `${api.group}/${api.version}`, kind: api.kind, metadata, status: s },
          { fieldManager: CONTROLLER_MANAGER, force: true },
        ),
    });
    this.noteWrite(uid, Number(res.metadata.resourceVersion), status);
  }

  private noteWrite(uid: string, rv: number, status: InstanceStatus | undefined): void {
    const rvs = [...(this.lastWrite.get(uid)?.rvs ?? []), rv].slice(-OWN_VERSIONS);
    this.lastWrite.set(uid, status ? { rv, rvs, status } : { rv, rvs });
  }

  // ------------------------------------------------------------------ parent

  /**
   * Applies the instance's own metadata as the parent manager: the design/graph.md §23.3 labels, the ApplySet
   * annotations for `inv`, and (while `finalizer`) the finalizer. Skipped when already so.
   */
  private async ensureParent(
    api: InstanceApi,
    inst: KubeObject,
    identity: InstanceIdentity,
    inv: Inventory,
    finalizer: boolean,
    passedRevision?: number,
  ): Promise<KubeObject | undefined> {
    // The observed revision stays as recorded (leaving it out would remove it) until a pass publishes another.
    const observed = this.deps.publishPasses
      ? (passedRevision?.toString() ?? inst.metadata.annotations?.[ANNOTATION_OBSERVED_REVISION])
      : undefined;
    const metadata: Record<string, unknown> = {
      name: inst.metadata.name,
      labels: {
        ...instanceLabels(identity, { uid: api.rgdUid, name: api.rgdName }),
        ...(api.revision !== undefined ? { [LABEL_REVISION]: String(api.revision) } : {}),
      },
      annotations: {
        ...inventoryAnnotations(identity.applySetId, inv),
        ...(observed !== undefined ? { [ANNOTATION_OBSERVED_REVISION]: observed } : {}),
      },
      ...(finalizer ? { finalizers: [INSTANCE_FINALIZER] } : {}),
    };
    if (inst.metadata.namespace) metadata.namespace = inst.metadata.namespace;
    const desired = { apiVersion: `${api.group}/${api.version}`, kind: api.kind, metadata };
    if (appliedFieldsAgree(desired, inst as unknown as Record<string, unknown>, PARENT_MANAGER)) return inst;
    // Never a creation: an instance deleted since the cache copy was taken is not brought back.
    const res = await applyToExisting(this.deps.client, desired as unknown as KubeObject, inst.metadata.uid, {
      fieldManager: PARENT_MANAGER,
      force: true,
    });
    if (!res) return undefined;
    const uid = res.metadata.uid ?? '';
    this.noteWrite(uid, Number(res.metadata.resourceVersion), this.lastWrite.get(uid)?.status);
    return res;
  }

  // ------------------------------------------------------------------ deletion

  private async finalize(
    api: InstanceApi,
    inst: KubeObject,
    identity: InstanceIdentity,
    interest: Interest,
    writer: RestClient,
  ): Promise<ReconcileOutcome> {
    if (!(inst.metadata.finalizers ?? []).includes(INSTANCE_FINALIZER)) {
      this.forget(identity.uid);
      return { kind: 'deleted', reason: 'Deleted', interest };
    }
    const inv = readInventory(inst.metadata.annotations);
    const children = await listChildren(
      this.deps.watches,
      this.deps.versions,
      identity.applySetId,
      inv,
      identity.namespace,
    );
    const wave = await deleteNextWave(writer, this.deps.watches, this.deps.log, children, interest);
    const gen = inst.metadata.generation ?? 0;
    const prev = parseConditions(inst as unknown as Record<string, unknown>);
    const now = () => this.now();
    // kro's words while deleting: Unknown/UnderDeletion, "deleting resources" or "deletion blocked: …".
    const resourcesReady = {
      status: 'Unknown' as ConditionStatus,
      reason: 'UnderDeletion',
      message:
        wave.errors.length > 0
          ? `${KRO_MESSAGES.deletionBlocked}${wave.errors.join('; ')}`
          : KRO_MESSAGES.deleting,
    };
    const fields = previousFields(inst);
    const conditions = instanceConditions(
      prev,
      {
        managed: { status: 'True', reason: 'Managed', message: KRO_MESSAGES.managed },
        resolved: prev.find((c) => c.type === 'GraphResolved') ?? {
          status: 'Unknown',
          reason: 'UnderDeletion',
          message: 'not evaluated while deleting',
        },
        resourcesReady,
      },
      gen,
      now,
    );
    if (!wave.done) {
      await this.writeStatus(api, inst, { fields, conditions, state: 'DELETING' });
      if (wave.errors.length > 0) {
        return {
          kind: 'failed',
          reason: 'DeleteFailed',
          interest,
          error: new Error(`DeleteFailed: ${wave.errors.join('; ')}`),
        };
      }
      return {
        kind: 'waiting',
        reason: `deleting wave ${wave.wave}`,
        interest,
        requeueAfterMs: WAVE_WAIT_MS,
      };
    }
    // Everything is gone: drop the finalizer (our parent manager stops owning it).
    await this.ensureParent(api, inst, identity, inv, false);
    this.deps.log.info(
      { instance: `${identity.namespace}/${identity.name}`, kind: api.kind },
      'instance deleted',
    );
    this.forget(identity.uid);
    return { kind: 'deleted', reason: 'Deleted', interest };
  }
}

// -------------------------------------------------------------------- helpers

/** The projected status fields the instance carries now (without conditions and state). */
function previousFields(inst: KubeObject): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries((inst.status ?? {}) as Record<string, unknown>).filter(
      ([k]) => k !== 'conditions' && k !== 'state',
    ),
  );
}

function identityOf(api: InstanceApi, inst: KubeObject): InstanceIdentity {
  const name = inst.metadata.name ?? '';
  const namespace = api.namespaced ? (inst.metadata.namespace ?? '') : '';
  return {
    uid: inst.metadata.uid ?? '',
    name,
    namespace,
    group: api.group,
    version: api.version,
    kind: api.kind,
    applySetId: applySetId(name, namespace, api.kind, api.group),
    // The instance's bucket label, which its children carry too (design/sharding.md §2).
    ...bucketStamp(inst),
  };
}

/** design/graph.md §22.2: an object already in another ApplySet is never taken over. */
function otherApplySet(
  d: DesiredObject,
  observed: Record<string, unknown>,
  ours: string,
): string | undefined {
  const labels = (observed.metadata as { labels?: Record<string, string> } | undefined)?.labels;
  const theirs = labels?.[LABEL_APPLYSET_PART_OF];
  if (theirs === undefined || theirs === ours) return undefined;
  // kro's words up to the colon (its ErrApplySetConflict, which users may match on); the object kubectl-style.
  return `resource belongs to a different ApplySet: ${describeIdentity(d.id)} is part of ${theirs}`;
}

/**
 * What pruning keeps (design/graph.md §22.2 step 4): the objects applied (or agreeing) this pass, and the objects of
 * nodes that are pending (or held) — found by their node-id label. Excluded nodes keep nothing.
 */
function keepSet(
  result: EvaluationResult,
  desired: DesiredObject[],
  uids: Map<string, string>,
  children: Child[],
): Set<string> {
  const keep = new Set<string>();
  for (const d of desired) {
    const u = uids.get(d.key);
    if (u) keep.add(u);
  }
  const keeps = (n: NodeResult): boolean => n.state === 'pending' || n.held === true;
  const pending = new Set(result.nodes.filter(keeps).map((n) => labelValue(n.path).value));
  for (const c of children) {
    const node = c.obj.metadata.labels?.[LABEL_NODE_ID];
    if (node !== undefined && pending.has(node)) keep.add(c.uid);
  }
  return keep;
}

function jsonSame(a: InstanceStatus, b: InstanceStatus): boolean {
  return JSON.stringify(instanceStatusJson(a)) === JSON.stringify(instanceStatusJson(b));
}
