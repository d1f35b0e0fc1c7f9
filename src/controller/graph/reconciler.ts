/**
 * The Graph reconciler (design/graph.md §2, §13, §21–§24): one Graph, one pass.
 *
 *   deletion? → finalize from status alone (deletion.ts)
 *   finalizer → compile (Accepted / InvalidGraph) → evaluate → write-ahead inventory → apply templates
 *   (per-Graph manager, not forced; reclaim from non-Graph managers) and patches (per-node managers;
 *   status forced, main never) → evaluate again while writes unlock dependents → prune what is no longer
 *   desired (never a pending node's resources) → release retired contributions → conditions → status.
 *
 * Every child write impersonates the Graph's ServiceAccount; reads come from the informer caches, each
 * handed to the evaluation only if the ServiceAccount may read it (readAccess.ts), else the Graph
 * writes nothing and reports ReadForbidden. An apply that would change nothing is skipped
 * (applyMemory.ts), and an unchanged status is not written, so a steady-state reconcile — also the
 * first one after a restart — makes no write request.
 */
import type { Logger } from 'pino';
import type { CompiledGraph } from '../../graph/model.ts';
import type { KubeObject, RestClient } from '../../kube/index.ts';
import { identityKey } from '../../runtime/observed.ts';
import type { NodeResult } from '../../runtime/types.ts';
import { ApplyMemory } from '../core/applyMemory.ts';
import { managerEntry } from '../core/applyNeeded.ts';
import { WaitBackoff } from '../core/backoff.ts';
import { bucketStamp } from '../core/bucket.ts';
import { foreignReads } from '../core/childScope.ts';
import { type Condition, conditionMarker } from '../core/conditions.ts';
import { type BeforeApply, type ConvergeOutcome, convergePasses } from '../core/converge.ts';
import { type DesiredObject, type DesiredPatch, idOf } from '../core/desired.ts';
import { diagnosticsMessage } from '../core/errors.ts';
import { type CompileOutcome, evaluateGraph, type GraphCompiler } from '../core/graphCompiler.ts';
import { type Contribution, contributionKey, type ManagedResource, resourceKey } from '../core/inventory.ts';
import { literalIdentities } from '../core/literalIdentities.ts';
import {
  CONTROLLER_MANAGER,
  graphImpersonation,
  isGraphManager,
  serviceAccountUser,
  templateManager,
} from '../core/names.ts';
import type { OutcomeKind, ReconcileOutcome } from '../core/outcome.ts';
import { writeBoundedStatus } from '../core/oversizedStatus.ts';
import { pruneRetired, releaseContributions } from '../core/prune.ts';
import type { ReadAccess } from '../core/readAccess.ts';
import { type Interest, newInterest, type WatchSet } from '../core/watches.ts';
import { finalizeGraph } from './deletion.ts';
import { addFinalizer } from './finalizer.ts';
import { GRAPH_FINALIZER } from './names.ts';
import { serviceAccountNameOf } from './serviceAccount.ts';
import { stampTemplate } from './stamp.ts';
import {
  type GraphStatus,
  MAX_MANAGED_RESOURCES,
  parseStatus,
  readyCondition,
  statusEqual,
  statusJson,
} from './status.ts';

export interface GraphLister {
  get(namespace: string, name: string): KubeObject | undefined;
}

export interface ReconcilerDeps {
  /** The controller's own identity: Graph status, finalizer, watches. */
  client: RestClient;
  watches: WatchSet;
  /** Decides which cached reads a Graph's ServiceAccount may see (design/graph.md §24). */
  reads: ReadAccess;
  compiler: GraphCompiler;
  graphs: GraphLister;
  log: Logger;
  maxCollectionSize?: number;
  /** Parallel applies within one collection (design/graph.md §25, default 20). */
  applyConcurrency?: number;
  now?: () => string;
}

const WAIT_BASE_MS = 1_000;
const WAIT_MAX_MS = 300_000;

/** One pass over an accepted Graph: the Graph, its identity, and the status carried through the pass. */
interface GraphPass {
  graph: KubeObject;
  /** The status as the pass found it (conditions keep their transition times from it). */
  prev: GraphStatus;
  /** Updated by the write-ahead before applies. */
  working: GraphStatus;
  generation: number;
  interest: Interest;
  namespace: string;
  uid: string;
  saName: string;
  saUser: string;
  /** The client impersonating the Graph's ServiceAccount: every child write goes through it. */
  writer: RestClient;
  templateManager: string;
}

/** The inventory after prune and release, with what could not be pruned or released. */
interface SettledInventory {
  inventory: ManagedResource[];
  contributions: Contribution[];
  pruneErrors: string[];
  releaseErrors: string[];
}

/** The ResourcesConverged condition of a pass and what the queue does next. */
interface Verdict {
  kind: OutcomeKind;
  converged: Condition;
  nodeCount: number;
  /** The pass wrote: a waiting Graph's backoff starts from its shortest delay again. */
  wroteAny: boolean;
}

/** The finalizer write of this reconcile, sent at its start: resolves false when the Graph is gone. */
interface Finalizing {
  written: Promise<boolean>;
}

export class GraphReconciler {
  private readonly deps: ReconcilerDeps;
  private readonly compiled = new Map<
    string,
    { generation: number; epoch: number; outcome: CompileOutcome }
  >();
  /** Status we wrote last, per Graph UID, used while the cache has not caught up with it. */
  private readonly lastStatus = new Map<string, { rv: number; status: GraphStatus }>();
  private readonly waits = new WaitBackoff(WAIT_BASE_MS, WAIT_MAX_MS);
  /** Decides, without writing, whether an apply would change anything (also after a restart). */
  readonly applies = new ApplyMemory();
  private epoch = 0;

  constructor(deps: ReconcilerDeps) {
    this.deps = deps;
  }

  /** Forget compiled graphs (a CRD changed): the next reconcile compiles again. */
  invalidateCompiled(): void {
    this.epoch += 1;
    this.deps.compiler.invalidate();
  }

  private now(): string {
    return (this.deps.now ?? (() => new Date().toISOString().replace(/\.\d+Z$/, 'Z')))();
  }

  async reconcile(namespace: string, name: string): Promise<ReconcileOutcome> {
    const interest = newInterest();
    const graph = this.deps.graphs.get(namespace, name);
    if (!graph) return { kind: 'gone', reason: 'NotFound', interest };
    const uid = graph.metadata.uid ?? '';
    const prev = this.currentStatus(graph);

    if (graph.metadata.deletionTimestamp) {
      if (!(graph.metadata.finalizers ?? []).includes(GRAPH_FINALIZER)) {
        return { kind: 'deleted', reason: 'Deleted', interest };
      }
      const r = await finalizeGraph(
        {
          client: this.deps.client,
          watches: this.deps.watches,
          log: this.deps.log,
          writeStatus: async (s) => {
            await this.writeStatus(graph as KubeObject, prev, s);
          },
          now: () => this.now(),
        },
        graph,
        prev,
        interest,
      );
      if (r.kind === 'deleted') {
        this.lastStatus.delete(uid);
        this.deps.watches.ownWrites.forget(graphWriteKey(graph));
        this.compiled.delete(uid);
        this.waits.reset(uid);
      }
      return r.kind === 'waiting' ? { ...r, requeueAfterMs: this.nextWait(uid) } : r;
    }

    // The finalizer goes out now and is waited for only before the first child write (beside the
    // write-ahead status, design/graph.md §22.1): compiling and evaluating overlap its round trip.
    let finalizer: Finalizing | undefined;
    if (!(graph.metadata.finalizers ?? []).includes(GRAPH_FINALIZER)) {
      const written = addFinalizer(this.deps.client, graph).then((updated) => {
        if (updated) this.noteOwnWrite(updated, updated.metadata.resourceVersion);
        return updated !== undefined;
      });
      written.catch(() => undefined); // awaited below; a failure surfaces there
      finalizer = { written };
    }
    const generation = graph.metadata.generation ?? 0;
    const outcome = await this.compile(graph);
    if (!outcome.accepted || !outcome.compiled) {
      if (finalizer && !(await finalizer.written)) return { kind: 'gone', reason: 'NotFound', interest };
      return this.rejected(graph, prev, outcome, interest);
    }
    const r = await this.converge(graph, prev, outcome.compiled, generation, interest, finalizer);
    if (finalizer && !(await finalizer.written)) return { kind: 'gone', reason: 'NotFound', interest };
    return r;
  }

  // ------------------------------------------------------------------ compile

  private async compile(graph: KubeObject): Promise<CompileOutcome> {
    const uid = graph.metadata.uid ?? '';
    const generation = graph.metadata.generation ?? 0;
    const hit = this.compiled.get(uid);
    if (hit && hit.generation === generation && hit.epoch === this.epoch) {
      if (!hit.outcome.unknownKind) return hit.outcome;
      // A kind was unknown: schemas may have been published since (CRD OpenAPI lags Established).
      this.deps.compiler.invalidate();
    }
    const epoch = this.epoch;
    const outcome = await this.deps.compiler.compile(graph);
    // The source text is for `kgraph ui`, not for reconciles: not kept per Graph.
    const { source: _source, ...kept } = outcome;
    this.compiled.set(uid, { generation, epoch, outcome: kept });
    return outcome;
  }

  private async rejected(
    graph: KubeObject,
    prev: GraphStatus,
    outcome: CompileOutcome,
    interest: Interest,
  ): Promise<ReconcileOutcome> {
    const gen = graph.metadata.generation ?? 0;
    const message = diagnosticsMessage(outcome.diagnostics, 'the graph was not accepted');
    const now = () => this.now();
    const mark = conditionMarker(prev.conditions, gen, now);
    const accepted = mark('Accepted', 'False', 'InvalidGraph', message);
    const converged = mark(
      'ResourcesConverged',
      'Unknown',
      'InvalidGraph',
      'nothing is applied while the graph is not accepted',
    );
    const status: GraphStatus = {
      ...prev,
      conditions: [accepted, converged, readyCondition(prev.conditions, accepted, converged, gen, now)],
      observedGeneration: gen,
    };
    await this.writeStatus(graph, prev, status);
    const uid = graph.metadata.uid ?? '';
    // An unknown kind may be a CRD on its way: retry with backoff besides the CRD watch.
    if (outcome.unknownKind)
      return { kind: 'invalid', reason: 'InvalidGraph', interest, requeueAfterMs: this.nextWait(uid) };
    this.waits.reset(uid);
    return { kind: 'invalid', reason: 'InvalidGraph', interest };
  }

  // ------------------------------------------------------------------ converge

  /**
   * An accepted Graph's pass, in named steps: prepare the watches → converge (evaluate, write ahead,
   * apply, until writes unlock nothing more) → settle the inventory (prune, release) → judge the
   * ResourcesConverged condition → write the status and say what the queue does next.
   */
  private async converge(
    graph: KubeObject,
    prev: GraphStatus,
    compiled: CompiledGraph,
    generation: number,
    interest: Interest,
    finalizer: Finalizing | undefined,
  ): Promise<ReconcileOutcome> {
    const pass = this.passOf(graph, prev, generation, interest);
    await this.prepareWatches(compiled, prev, pass.namespace);
    // Objects whose identity is literal are recorded with the first write-ahead even when their node
    // renders only in a later pass (it waits on a sibling's data): one write-ahead per reconcile.
    const foreseen = literalIdentities(compiled, pass.namespace);
    const passes = await convergePasses({
      watches: this.deps.watches,
      reads: this.deps.reads.forServiceAccount(pass.namespace, pass.saName),
      applier: {
        writer: pass.writer,
        watches: this.deps.watches,
        concurrency: this.deps.applyConcurrency ?? 20,
        memory: this.applies,
        owner: `${pass.namespace}/${graph.metadata.name ?? ''}`,
      },
      namespace: pass.namespace,
      interest,
      evaluate: (observed) => evaluateGraph(compiled, observed, pass.namespace, this.deps.maxCollectionSize),
      stamp: (value, item) =>
        stampTemplate(value, {
          nodePath: item.node.path,
          applyLayer: item.node.applyLayer,
          graphUid: pass.uid,
          ...(item.collection ? { collection: item.collection } : {}),
          ...bucketStamp(graph),
        }),
      patchOwner: pass.uid,
      policy: { manager: pass.templateManager, force: false, protectedManager: isGraphManager },
      beforeApply: (desired, patches) => this.writeAhead(pass, foreseen, finalizer, desired, patches),
    });
    if (passes.superseded) return { kind: 'waiting', reason: 'Superseded', interest };
    const settled = await this.settleInventory(pass, passes);
    const verdict = this.judgeConvergence(pass, passes, settled);
    return this.finish(pass, settled, verdict);
  }

  /** What every step of one pass needs to know about the Graph and its identity. */
  private passOf(graph: KubeObject, prev: GraphStatus, generation: number, interest: Interest): GraphPass {
    const namespace = graph.metadata.namespace ?? 'default';
    const uid = graph.metadata.uid ?? '';
    const saName = serviceAccountNameOf(graph);
    return {
      graph,
      prev,
      working: { ...prev },
      generation,
      interest,
      namespace,
      uid,
      saName,
      saUser: serviceAccountUser(namespace, saName),
      writer: this.deps.client.withImpersonation(graphImpersonation(namespace, saName)),
      templateManager: templateManager(uid),
    };
  }

  /** Informers for every kind the graph may touch and every kind its inventory holds. */
  private async prepareWatches(compiled: CompiledGraph, prev: GraphStatus, namespace: string): Promise<void> {
    const { watches } = this.deps;
    watches.declareForeign(foreignReads(compiled));
    await Promise.all(compiled.requiredKinds.map((k) => watches.prepare(k.apiVersion, k.kind, [namespace])));
    await Promise.all(
      prev.managedResources.map((r) => watches.prepare(r.apiVersion, r.kind, [r.namespace ?? namespace])),
    );
  }

  /**
   * Before a pass writes (design/graph.md §22.1): record what is about to be created, UID-less, and the new patch
   * contributions, in the status — beside the finalizer, both before any child exists.
   */
  private async writeAhead(
    pass: GraphPass,
    foreseen: ReturnType<typeof literalIdentities>,
    finalizer: Finalizing | undefined,
    desired: DesiredObject[],
    patches: DesiredPatch[],
  ): Promise<BeforeApply> {
    if (desired.length > MAX_MANAGED_RESOURCES) {
      // The inventory could not record them all, and nothing is applied without a record (design/graph.md §22.1).
      return {
        proceed: false,
        error: `the graph renders ${desired.length} resources; status.managedResources holds at most ${MAX_MANAGED_RESOURCES}`,
      };
    }
    const { working } = pass;
    const known = new Set(working.managedResources.map(resourceKey));
    const intents = desired.filter((d) => !known.has(d.key)).map((d) => entryOf(d, undefined));
    for (const d of desired) known.add(d.key);
    for (const f of foreseen) {
      const key = resourceKey(f.id);
      if (known.has(key)) continue;
      known.add(key);
      intents.push({ nodeID: f.nodeID, ...f.id });
    }
    const knownC = new Set(working.contributions.map(contributionKey));
    const newContribs = patches.map((p) => p.contribution).filter((c) => !knownC.has(contributionKey(c)));
    let wroteAhead: Promise<boolean> = Promise.resolve(true);
    let next: GraphStatus | undefined;
    if (intents.length > 0 || newContribs.length > 0 || working.appliedServiceAccount !== pass.saUser) {
      next = {
        ...working,
        managedResources: [...working.managedResources, ...intents].slice(0, MAX_MANAGED_RESOURCES),
        contributions: [...working.contributions, ...newContribs],
        appliedServiceAccount: pass.saUser,
      };
      wroteAhead = this.writeStatus(pass.graph, working, next);
    }
    // The finalizer and the write-ahead record, in one round trip, both before any child exists.
    const [held, recorded] = await Promise.all([finalizer?.written ?? true, wroteAhead]);
    // Gone, or superseded by a newer generation: never apply without the finalizer and the record.
    if (!held || !recorded) return { proceed: false, superseded: true };
    if (next) pass.working = next;
    return { proceed: true };
  }

  /**
   * The inventory after the passes, in apply order: what was applied (with the UIDs learnt), what
   * pending and held nodes keep, minus what was pruned; and the contributions minus those released.
   * An aborted pass (hard error, refused read) keeps everything.
   */
  private async settleInventory(pass: GraphPass, passes: ConvergeOutcome): Promise<SettledInventory> {
    const { working } = pass;
    const { result, state } = passes;
    if (state.hardError || state.forbidden) {
      return {
        inventory: working.managedResources.map((r) => withUid(r, state.uids.get(resourceKey(r)))),
        contributions: working.contributions,
        pruneErrors: [],
        releaseErrors: [],
      };
    }
    // Pending nodes, and dynamic nodes held because their type is not served, keep what they applied.
    const keeps = (n: NodeResult): boolean => n.state === 'pending' || n.held === true;
    const pendingPaths = result.nodes.filter(keeps).map((n) => n.path);
    const isPending = (nodeID: string): boolean =>
      pendingPaths.some((p) => nodeID === p || nodeID.startsWith(`${p}.`));
    const inventory = this.appliedInventory(pass, passes, keeps);
    const seen = new Set(inventory.map(resourceKey));
    // Entries under pending graph nodes (children not reported) are kept too.
    for (const r of working.managedResources) {
      if (!seen.has(resourceKey(r)) && isPending(r.nodeID)) {
        inventory.push(r);
        seen.add(resourceKey(r));
      }
    }
    const retired = working.managedResources.filter((r) => !seen.has(resourceKey(r)));
    const pruned = await pruneRetired(pass.writer, this.deps.watches, this.deps.log, retired);
    inventory.push(...pruned.kept);

    const wanted = new Set(passes.patches.map((p) => contributionKey(p.contribution)));
    const retiredC = working.contributions.filter(
      (c) => !wanted.has(contributionKey(c)) && !(c.nodeID && isPending(c.nodeID)),
    );
    const released = await releaseContributions(pass.writer, this.deps.watches, retiredC);
    const retiredKeys = new Set(retiredC.map(contributionKey));
    const keptKeys = new Set(released.kept.map(contributionKey));
    return {
      inventory,
      contributions: working.contributions.filter(
        (c) => !retiredKeys.has(contributionKey(c)) || keptKeys.has(contributionKey(c)),
      ),
      pruneErrors: pruned.errors,
      releaseErrors: released.errors,
    };
  }

  /** Template nodes' entries in apply order: kept ones for pending/held nodes, else what was desired. */
  private appliedInventory(
    pass: GraphPass,
    passes: ConvergeOutcome,
    keeps: (n: NodeResult) => boolean,
  ): ManagedResource[] {
    const { working } = pass;
    const oldByKey = new Map(working.managedResources.map((r) => [resourceKey(r), r]));
    const inventory: ManagedResource[] = [];
    const seen = new Set<string>();
    const view = this.deps.watches.view(pass.interest);
    for (const n of passes.result.nodes) {
      if (n.kind !== 'template') continue;
      if (keeps(n)) {
        for (const r of working.managedResources)
          if (r.nodeID === n.path && !seen.has(resourceKey(r))) {
            inventory.push(r);
            seen.add(resourceKey(r));
          }
        continue;
      }
      for (const d of passes.desired.filter((x) => x.node === n)) {
        if (seen.has(d.key)) continue;
        seen.add(d.key);
        const uidNow = passes.state.uids.get(d.key) ?? oldByKey.get(d.key)?.uid;
        const observed = view.get(d.id);
        const observedUid = (observed?.metadata as { uid?: unknown } | undefined)?.uid;
        const okUid =
          uidNow ?? (observed && managerEntry(observed, pass.templateManager) ? observedUid : undefined);
        inventory.push(entryOf(d, typeof okUid === 'string' ? okUid : undefined));
      }
    }
    return inventory;
  }

  /** ResourcesConverged, and what the queue does with the Graph: the first of these that holds wins. */
  private judgeConvergence(pass: GraphPass, passes: ConvergeOutcome, settled: SettledInventory): Verdict {
    const { state, result } = passes;
    const mark = conditionMarker(pass.prev.conditions, pass.generation, () => this.now());
    const facts = { nodeCount: result.nodes.length, wroteAny: state.wroteAny };
    const notConverged = (kind: OutcomeKind, reason: string, message: string): Verdict => ({
      kind,
      converged: mark('ResourcesConverged', 'False', reason, message),
      ...facts,
    });
    // Waiting, not failed: a grant (seen through the RBAC watch) reconciles the Graph again.
    if (state.forbidden) return notConverged('waiting', 'ReadForbidden', state.forbidden);
    if (state.hardError) return notConverged('failed', state.hardReason ?? 'ApplyFailed', state.hardError);
    if (settled.pruneErrors.length > 0)
      return notConverged('failed', 'PruneFailed', settled.pruneErrors.join('; '));
    if (settled.releaseErrors.length > 0)
      return notConverged('failed', 'ReleaseFailed', settled.releaseErrors.join('; '));
    if (state.conflicts.length > 0)
      return notConverged('waiting', 'FieldManagerConflict', state.conflicts.join('; '));
    const soft = result.firstSoft;
    if (soft) {
      const reason = soft.state === 'pending' ? 'DataPending' : 'WaitingForReadiness';
      return notConverged('waiting', reason, `node ${soft.node}: ${soft.reason}`);
    }
    return {
      kind: 'converged',
      converged: mark(
        'ResourcesConverged',
        'True',
        'Applied',
        `${settled.inventory.length} resources applied`,
      ),
      ...facts,
    };
  }

  /** Writes the status (Accepted, ResourcesConverged, Ready; the inventory) and the queue's next step. */
  private async finish(
    pass: GraphPass,
    settled: SettledInventory,
    verdict: Verdict,
  ): Promise<ReconcileOutcome> {
    const { prev, generation, interest, uid } = pass;
    const now = () => this.now();
    const mark = conditionMarker(prev.conditions, generation, now);
    const accepted = mark('Accepted', 'True', 'Compiled', `compiled ${verdict.nodeCount} nodes`);
    const { kind, converged } = verdict;
    const status: GraphStatus = {
      conditions: [
        accepted,
        converged,
        readyCondition(prev.conditions, accepted, converged, generation, now),
      ],
      managedResources: settled.inventory.slice(0, MAX_MANAGED_RESOURCES),
      contributions: settled.contributions,
      appliedServiceAccount: pass.saUser,
      observedGeneration: generation,
    };
    await this.writeStatus(pass.graph, pass.working, status);
    for (const r of status.managedResources) interest.gets.add(identityKey(idOf(r)));
    for (const c of status.contributions) interest.gets.add(identityKey(idOf(c)));

    const reason = converged.reason;
    if (kind === 'failed') {
      return { kind, reason, interest, error: new Error(`${reason}: ${converged.message}`) };
    }
    if (kind === 'waiting') {
      // Progress (this reconcile wrote): wait from the shortest delay again, the events of the writes
      // and of what they wait on come through the watches anyway.
      if (verdict.wroteAny) this.waits.reset(uid);
      return { kind, reason, interest, requeueAfterMs: this.nextWait(uid) };
    }
    this.waits.reset(uid);
    return { kind, reason, interest };
  }

  private nextWait(uid: string): number {
    return this.waits.next(uid);
  }

  // ------------------------------------------------------------------ status

  private currentStatus(graph: KubeObject): GraphStatus {
    const uid = graph.metadata.uid ?? '';
    const cached = this.lastStatus.get(uid);
    const rv = Number(graph.metadata.resourceVersion);
    if (cached && Number.isFinite(rv) && cached.rv > rv) return cached.status;
    // The cache has caught up with our last write: its copy is needed no more.
    if (cached) this.lastStatus.delete(uid);
    return parseStatus(graph);
  }

  /**
   * Writes the status unless unchanged. Returns false, writing nothing, when the status was computed for
   * an older generation than the cache holds (design/graph.md §21.1): the newer generation will be reconciled.
   */
  private async writeStatus(graph: KubeObject, prev: GraphStatus, next: GraphStatus): Promise<boolean> {
    if (statusEqual(prev, next)) return true;
    const ns = graph.metadata.namespace ?? '';
    const name = graph.metadata.name ?? '';
    const latest = this.deps.graphs.get(ns, name);
    if (
      latest &&
      latest.metadata.uid === graph.metadata.uid &&
      (latest.metadata.generation ?? 0) > (graph.metadata.generation ?? 0)
    ) {
      return false;
    }
    // An inventory the server cannot store is never written; the stored one stays (design/graph.md §22.1).
    const res = await writeBoundedStatus({
      what: `Graph ${ns}/${name}`,
      object: graph,
      status: statusJson(next),
      keep: statusJson(prev),
      generation: graph.metadata.generation ?? 0,
      now: () => this.now(),
      write: (status) =>
        this.deps.client.applyStatus(
          { apiVersion: graph.apiVersion, kind: graph.kind, metadata: { name, namespace: ns }, status },
          { fieldManager: CONTROLLER_MANAGER, force: true },
        ),
    });
    this.lastStatus.set(graph.metadata.uid ?? '', { rv: Number(res.metadata.resourceVersion), status: next });
    this.noteOwnWrite(graph, res.metadata.resourceVersion);
    return true;
  }

  /** Records a Graph version our own write (a status, the finalizer) produced: its echo is no news. */
  private noteOwnWrite(graph: KubeObject, rv: string | undefined): void {
    this.deps.watches.ownWrites.note(graphWriteKey(graph), rv, graphKeyOf(graph));
  }

  /**
   * True when `graph` is exactly the object one of our own writes (a status, the finalizer) left: an
   * echo with nothing to reconcile, since the reconcile that wrote it went on from the write's answer.
   */
  isOwnStatusEcho(graph: KubeObject): boolean {
    // Every Graph update passes here: once the cache holds our last status write, its copy goes.
    const uid = graph.metadata.uid ?? '';
    const copy = this.lastStatus.get(uid);
    if (copy && Number(graph.metadata.resourceVersion) >= copy.rv) this.lastStatus.delete(uid);
    return (
      this.deps.watches.ownWrites.writerOf(graphWriteKey(graph), graph.metadata.resourceVersion) ===
      graphKeyOf(graph)
    );
  }
}

// -------------------------------------------------------------------- helpers

/** The Graph's queue key, `<namespace>/<name>`: the owner of its writes. */
function graphKeyOf(graph: KubeObject): string {
  return `${graph.metadata.namespace ?? ''}/${graph.metadata.name ?? ''}`;
}

/** The Graph's record in OwnWrites (the same identity key its children have there). */
function graphWriteKey(graph: KubeObject): string {
  return identityKey({
    apiVersion: graph.apiVersion,
    kind: graph.kind,
    namespace: graph.metadata.namespace ?? '',
    name: graph.metadata.name ?? '',
  });
}

function entryOf(d: DesiredObject, uid: string | undefined): ManagedResource {
  const e: ManagedResource = {
    nodeID: d.node.path,
    apiVersion: d.id.apiVersion,
    kind: d.id.kind,
    name: d.id.name,
  };
  if (d.id.namespace) e.namespace = d.id.namespace;
  if (uid) e.uid = uid;
  return e;
}

function withUid(r: ManagedResource, uid: string | undefined): ManagedResource {
  return uid && !r.uid ? { ...r, uid } : r;
}
