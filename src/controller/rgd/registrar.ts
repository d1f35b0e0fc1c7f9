/**
 * The RGD reconciler ("registrar", design/rgd.md §19, design/graph.md §21.2): one ResourceGraphDefinition, one pass.
 *
 *   gone? → stop serving its kind (and delete its CRD only when the controller was told to).
 *   spec hash unchanged? → reuse the compiled graph (no compile, no restart).
 *   compile against the live cluster's schemas → GraphAccepted / InvalidResourceGraph
 *   generate the instance CRD (status types from the compiler) → ownership (one RGD per CRD) →
 *   breaking-change check (unless `kro.run/allow-breaking-changes: "true"`) → server-side apply (skipped
 *   when it agrees: a hand-edited CRD is put back, a deleted one recreated) → Established → KindReady
 *   serve the kind on the compiled graph → ControllerReady → Ready, state Active | Inactive.
 *
 * A spec that fails to compile leaves the last accepted graph serving, as kro keeps its last good revision
 * (design/rgd.md §19.5): GraphAccepted=False, Ready=False, the kind and its controller still up.
 */
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import type { CompiledGraph } from '../../graph/model.ts';
import { statusFieldTypes } from '../../graph/typecheck.ts';
import type { KubeObject, RestClient } from '../../kube/index.ts';
import { allowsBreakingChanges, compareCrds } from '../../schema/crd/compat.ts';
import { type GeneratedCrd, generateCrd } from '../../schema/crd/generate.ts';
import { appliedFieldsAgree } from '../core/applyNeeded.ts';
import { WaitBackoff } from '../core/backoff.ts';
import type { Condition } from '../core/conditions.ts';
import { established, waitForCrd } from '../core/crdReady.ts';
import { diagnosticsMessage, errorMessage } from '../core/errors.ts';
import type { CompileOutcome, GraphCompiler } from '../core/graphCompiler.ts';
import { CONTROLLER_MANAGER } from '../core/names.ts';
import type { Observability } from '../core/observability.ts';
import type { InstanceApi } from './instanceReconciler.ts';
import type { InstanceServer } from './instanceServer.ts';
import { parseConditions } from './instanceStatus.ts';
import { KRO_MESSAGES } from './kroMessages.ts';
import { ANNOTATION_ALLOW_BREAKING, LABEL_OWNED, LABEL_RGD_ID, LABEL_RGD_NAME } from './names.ts';
import { type GraphRevisions, lastIssuedOf } from './revisions.ts';
import { breakingChangeEvent } from './rgdEvents.ts';
import { ensureRgdFinalizer, removeRgdFinalizer } from './rgdFinalizer.ts';
import {
  graphShape,
  type Part,
  type RgdStatus,
  rgdConditions,
  rgdStatusJson,
  rgdStatusMatches,
} from './rgdStatus.ts';

/** The spec hash the CRD was generated from (tells drift from an RGD change). */
export const ANNOTATION_SPEC_HASH = 'internal.kro.run/rgd-spec-hash';

export interface Lister {
  get(name: string): KubeObject | undefined;
  list(): KubeObject[];
}

export interface RegistrarDeps {
  client: RestClient;
  compiler: GraphCompiler;
  server: InstanceServer;
  rgds: Lister;
  crds: Lister;
  log: Logger;
  /** Issues GraphRevisions for accepted specs (design/rgd.md §19.5); without it none are issued. */
  revisions?: GraphRevisions;
  /**
   * Serve instances of RGDs another replica registers (design/sharding.md §6): no finalizer, CRD or
   * status writes; an RGD is served once its CRD, as this replica would generate it, is established.
   * @default false
   */
  follower?: boolean;
  /** Delete the generated CRD (and so every instance) when its RGD is deleted (default false, design/rgd.md §19.4). */
  deleteCrds?: boolean;
  /** Where the RGD's events go (core/observability.ts). */
  observe?: Observability;
  now?: () => string;
}

export interface RgdOutcome {
  kind: 'active' | 'inactive' | 'gone';
  reason: string;
  requeueAfterMs?: number;
}

interface Known {
  uid: string;
  hash: string;
  epoch: number;
  outcome: CompileOutcome;
  /** The CRD this RGD generated and owns (when it got that far). */
  crdName?: string;
  api?: InstanceApi;
  /** The API last served for this RGD (same uid), kept through invalid edits (design/rgd.md §19.5). */
  lastGood?: InstanceApi;
  /** The newest revision was tried as the last good graph for this spec (after a restart). */
  recoveryTried?: boolean;
}

export class RgdRegistrar {
  private readonly deps: RegistrarDeps;
  private readonly known = new Map<string, Known>();
  private readonly lastStatus = new Map<string, { rv: number; status: RgdStatus }>();
  private readonly waits = new WaitBackoff();
  /** The last revision issued per RGD uid, for status writes the RGD in hand predates. */
  private readonly lastIssued = new Map<string, number>();
  /** RGD uids whose issuance waits for revisions being deleted (GraphRevisionsResolved=Unknown). */
  private readonly settling = new Set<string>();
  private epoch = 0;

  constructor(deps: RegistrarDeps) {
    this.deps = deps;
  }

  private now(): string {
    return (this.deps.now ?? (() => new Date().toISOString().replace(/\.\d+Z$/, 'Z')))();
  }

  /** Schemas changed (a CRD event): the next pass compiles again; unchanged results are kept. */
  invalidate(): void {
    this.epoch += 1;
    this.deps.compiler.invalidate();
    // A CRD change is what an RGD waiting on an unknown kind waits for, so its backoff starts over.
    // Without this, each CRD event seen before the API server publishes the new kind's OpenAPI (it lags
    // Established) doubled the wait: an RGD applied together with the RGDs whose kinds it uses counted
    // ten or so failed attempts and then slept the 5-minute cap after the last CRD event.
    this.waits.resetAll();
  }

  /** The RGD names a CRD event concerns: its owner, and RGDs whose last compile may depend on it. */
  concernedBy(crd: KubeObject): string[] {
    const group = (crd.spec as { group?: string } | undefined)?.group ?? '';
    const out: string[] = [];
    for (const [name, k] of this.known) {
      const g = k.outcome.compiled;
      const uses = g?.requiredKinds.some((r) => r.apiVersion.startsWith(`${group}/`)) ?? false;
      if (
        k.crdName === crd.metadata.name ||
        uses ||
        k.outcome.unknownKind ||
        !k.outcome.accepted ||
        g?.hasDynamic
      )
        out.push(name);
    }
    const owner = crd.metadata.labels?.[LABEL_RGD_NAME];
    if (owner) out.push(owner);
    return [...new Set(out)];
  }

  isOwnStatusEcho(rgd: KubeObject): boolean {
    const last = this.lastStatus.get(rgd.metadata.uid ?? '');
    return last !== undefined && last.rv === Number(rgd.metadata.resourceVersion);
  }

  async reconcile(name: string): Promise<RgdOutcome> {
    const cached = this.deps.rgds.get(name);
    if (!cached) {
      await this.retire(name);
      return { kind: 'gone', reason: 'NotFound' };
    }
    if (cached.metadata.deletionTimestamp) {
      // Deleting (design/rgd.md §19.6): stop serving, wait for the instance reconciles in flight, clean up,
      // and only then let the RGD go.
      await this.retire(name);
      if (!this.deps.follower) await removeRgdFinalizer(this.deps.client, cached);
      return { kind: 'gone', reason: 'Deleted' };
    }
    // kro marks every RGD it reconciles as managed before anything else.
    const rgd = this.deps.follower ? cached : await ensureRgdFinalizer(this.deps.client, cached);
    if (!rgd) return { kind: 'gone', reason: 'NotFound' };
    const uid = rgd.metadata.uid ?? '';
    const gen = rgd.metadata.generation ?? 0;
    const hash = specHash(rgd);
    let k = this.known.get(name);
    // An unknown kind is compiled again on every pass, the timer's retries included: the kind may be a
    // CRD whose OpenAPI the API server published after the last CRD event (publishing lags Established),
    // and a cached rejection would wait for some other CRD to change — the RGD stayed invalid for good.
    if (!k || k.uid !== uid || k.hash !== hash || k.epoch !== this.epoch || k.outcome.unknownKind) {
      const outcome = await this.deps.compiler.compile(rgd as unknown as Record<string, unknown>);
      const previous = k && k.uid === uid && k.hash === hash ? k : undefined;
      const lastGood = k && k.uid === uid ? k.lastGood : undefined;
      // Same spec, same result: keep the old compiled graph so instances are not all re-reconciled.
      const same =
        previous?.outcome.compiled &&
        outcome.compiled &&
        sameGraph(previous.outcome.compiled, outcome.compiled);
      k = {
        uid,
        hash,
        epoch: this.epoch,
        outcome: same && previous ? previous.outcome : outcome,
        ...(previous?.crdName ? { crdName: previous.crdName } : {}),
        ...(same && previous?.api ? { api: previous.api } : {}),
        ...(lastGood ? { lastGood } : {}),
      };
      this.known.set(name, k);
    }
    const compiled = k.outcome.accepted ? k.outcome.compiled : undefined;
    // Restarted while the spec is invalid: the newest revision is the last good graph (as kro serves it).
    if (!compiled?.rgd && !k.lastGood && !k.outcome.unknownKind) await this.recoverLastGood(rgd, k);
    if (!compiled?.rgd && k.lastGood) {
      // As kro: the last good revision keeps serving; only the new spec is refused.
      const served = await this.serveLastGood(rgd, gen, k, k.lastGood);
      return k.outcome.unknownKind ? { ...served, requeueAfterMs: this.waits.next(uid) } : served;
    }
    if (!compiled?.rgd) {
      await this.deps.server.stop(name);
      const message = diagnosticsMessage(k.outcome.diagnostics, 'the resource graph was not accepted');
      await this.writeStatus(rgd, gen, undefined, {
        accepted: { status: 'False', reason: 'InvalidResourceGraph', message },
        kind: {
          status: 'Unknown',
          reason: 'InvalidResourceGraph',
          message: 'no CRD is generated for an invalid resource graph',
        },
        controller: {
          status: 'False',
          reason: 'InvalidResourceGraph',
          message: 'instances are not reconciled',
        },
      });
      // An unknown kind may be a CRD (another RGD's) on its way: retry besides the CRD watch.
      return k.outcome.unknownKind
        ? { kind: 'inactive', reason: 'InvalidResourceGraph', requeueAfterMs: this.waits.next(uid) }
        : { kind: 'inactive', reason: 'InvalidResourceGraph' };
    }
    const accepted: Part = {
      status: 'True',
      reason: 'Valid',
      message: KRO_MESSAGES.graphAccepted,
    };

    // Only an accepted spec becomes a revision; an unchanged (normalised) spec issues nothing.
    const revision = this.deps.revisions ? await this.deps.revisions.ensure(rgd, compiled) : undefined;
    if (revision) this.lastIssued.set(uid, Math.max(this.lastIssued.get(uid) ?? 0, revision.lastIssued));
    const settle = revision?.requeueAfterMs;
    // The revision number the compiled graph is (instances resolve through it, design/rgd.md §19.7).
    const latestRevision =
      revision && settle === undefined && revision.lastIssued > 0 ? revision.lastIssued : undefined;
    if (settle !== undefined) this.settling.add(uid);
    else this.settling.delete(uid);

    // The instance CRD.
    const kindPart = await this.ensureCrd(rgd, compiled, hash, k);
    if (kindPart.status !== 'True' || !k.api) {
      await this.deps.server.stop(name);
      k.lastGood = undefined; // nothing is served now, so a later invalid edit has nothing to keep
      await this.writeStatus(rgd, gen, compiled, {
        accepted,
        kind: kindPart,
        controller: {
          status: 'False',
          reason: 'WaitingForKind',
          message: 'instances are not reconciled until the kind is ready',
        },
      });
      return {
        kind: 'inactive',
        reason: kindPart.reason,
        ...(kindPart.reason === 'FailedToApply' || kindPart.reason === 'CRDTerminating'
          ? { requeueAfterMs: this.waits.next(uid) }
          : {}),
      };
    }

    if (k.api.revision !== latestRevision) {
      const { revision: _old, ...rest } = k.api;
      k.api = latestRevision !== undefined ? { ...rest, revision: latestRevision } : rest;
    }

    // Serve the instances.
    let controller: Part;
    try {
      await this.deps.server.serve(name, k.api);
      controller = { status: 'True', reason: 'Running', message: KRO_MESSAGES.controllerRunning };
    } catch (e) {
      controller = { status: 'False', reason: 'FailedToStart', message: errorMessage(e) };
    }
    await this.writeStatus(rgd, gen, compiled, { accepted, kind: kindPart, controller });
    if (controller.status === 'True') k.lastGood = k.api;
    if (controller.status !== 'True')
      return { kind: 'inactive', reason: 'FailedToStart', requeueAfterMs: this.waits.next(uid) };
    this.waits.reset(uid);
    return { kind: 'active', reason: 'Ready', ...(settle !== undefined ? { requeueAfterMs: settle } : {}) };
  }

  /**
   * No graph served yet for this RGD (a restart) and its spec does not compile: compile the newest
   * GraphRevision's snapshot and, when its CRD is the one in place and established, keep it as the last
   * good graph (design/rgd.md §19.5). Tried once per spec: `lastGood` stays unset when it fails.
   */
  private async recoverLastGood(rgd: KubeObject, k: Known): Promise<void> {
    if (this.deps.follower || !this.deps.revisions || k.recoveryTried) return;
    k.recoveryTried = true;
    try {
      const newest = await this.deps.revisions.newest(rgd);
      if (!newest) return;
      const snapshot: KubeObject = { ...rgd, spec: newest.spec };
      const outcome = await this.deps.compiler.compile(snapshot as unknown as Record<string, unknown>);
      const graph = outcome.accepted ? outcome.compiled : undefined;
      if (!graph?.rgd) return;
      const scratch: Known = { uid: k.uid, hash: specHash(snapshot), epoch: k.epoch, outcome };
      const kind = await this.ensureCrd(snapshot, graph, scratch.hash, scratch);
      if (kind.status !== 'True' || !scratch.api) return;
      k.lastGood = { ...scratch.api, revision: newest.revision };
      if (scratch.crdName) k.crdName = scratch.crdName;
    } catch (e) {
      this.deps.log.warn({ rgd: rgd.metadata.name, err: errorMessage(e) }, 'last revision not served');
    }
  }

  /** An invalid edit of a served RGD: the last accepted graph goes on serving, the new spec is refused. */
  private async serveLastGood(
    rgd: KubeObject,
    generation: number,
    k: Known,
    lastGood: InstanceApi,
  ): Promise<RgdOutcome> {
    const name = rgd.metadata.name ?? '';
    let controller: Part;
    try {
      await this.deps.server.serve(name, lastGood);
      controller = { status: 'True', reason: 'Running', message: KRO_MESSAGES.controllerRunning };
    } catch (e) {
      controller = { status: 'False', reason: 'FailedToStart', message: errorMessage(e) };
    }
    await this.writeStatus(rgd, generation, undefined, {
      accepted: {
        status: 'False',
        reason: 'InvalidResourceGraph',
        message: diagnosticsMessage(k.outcome.diagnostics, 'the resource graph was not accepted'),
      },
      kind: { status: 'True', reason: 'Ready', message: KRO_MESSAGES.kindReady(lastGood.kind) },
      controller,
    });
    return { kind: 'inactive', reason: 'InvalidResourceGraph' };
  }

  // ------------------------------------------------------------------ the CRD

  /**
   * The instance CRD, in steps: generate it, refuse a CRD another RGD or nobody manages
   * (design/rgd.md §19.4), wait out one being deleted, block a breaking change unless allowed, apply it
   * when it differs, wait until it is established, and record the instance API it serves.
   */
  private async ensureCrd(rgd: KubeObject, compiled: CompiledGraph, hash: string, k: Known): Promise<Part> {
    const name = rgd.metadata.name ?? '';
    const info = compiled.rgd;
    if (!info) return { status: 'False', reason: 'InvalidResourceGraph', message: 'not an RGD' };
    const generated = generateCrd(rgd, { statusTypes: statusFieldTypes(compiled) });
    if (!generated.crd) {
      return {
        status: 'False',
        reason: 'InvalidSchema',
        message: diagnosticsMessage(generated.diagnostics, 'the schema does not generate a CRD'),
      };
    }
    const crd = stampedCrd(generated.crd, rgd, hash);
    const crdName = crd.metadata.name;
    const existing = this.deps.crds.get(crdName);
    const refused = this.ownershipRefusal(name, crdName, existing);
    if (refused) return refused;
    k.crdName = crdName;
    if (existing?.metadata.deletionTimestamp) {
      // Deleted by someone: it is recreated once it is gone (its delete event brings us back).
      return {
        status: 'False',
        reason: 'CRDTerminating',
        message: `CRD ${crdName} is being deleted; it is recreated once gone`,
      };
    }
    const breaking = breakingChangeRefusal(rgd, existing, crd, hash);
    if (breaking) {
      this.deps.observe?.event(breakingChangeEvent(rgd, breaking.message));
      return breaking;
    }
    const notEstablished = await this.applyEstablished(name, crd, existing);
    if (notEstablished) return notEstablished;
    const api: InstanceApi = {
      rgdName: name,
      rgdUid: rgd.metadata.uid ?? '',
      compiled,
      group: info.group,
      version: info.apiVersion,
      kind: info.kind,
      plural: crd.spec.names.plural,
      namespaced: info.scope !== 'Cluster',
    };
    if (!k.api || !sameApi(k.api, api)) k.api = api;
    return { status: 'True', reason: 'Ready', message: KRO_MESSAGES.kindReady(info.kind) };
  }

  /** One RGD per CRD (design/rgd.md §19.4): another live RGD's CRD, or a CRD no RGD manages, is never taken over. */
  private ownershipRefusal(
    name: string,
    crdName: string,
    existing: KubeObject | undefined,
  ): Part | undefined {
    const owner = existing?.metadata.labels?.[LABEL_RGD_NAME];
    const claimant = [...this.known].find(
      ([n, other]) => n !== name && other.crdName === crdName && this.deps.rgds.get(n),
    );
    if (claimant) {
      return {
        status: 'False',
        reason: 'CRDOwnedByAnotherRGD',
        message: `CRD ${crdName} is owned by ResourceGraphDefinition ${claimant[0]}`,
      };
    }
    if (existing && owner !== name && owner !== undefined && this.deps.rgds.get(owner)) {
      return {
        status: 'False',
        reason: 'CRDOwnedByAnotherRGD',
        message: `CRD ${crdName} is owned by ResourceGraphDefinition ${owner}`,
      };
    }
    if (existing && owner === undefined) {
      return {
        status: 'False',
        reason: 'CRDNotManaged',
        message: `CRD ${crdName} exists and is not managed by a ResourceGraphDefinition`,
      };
    }
    return undefined;
  }

  /** Applies the CRD unless the stored one agrees, then waits until it is established; why not, if not. */
  private async applyEstablished(
    name: string,
    crd: InstanceCrd,
    existing: KubeObject | undefined,
  ): Promise<Part | undefined> {
    const crdName = crd.metadata.name;
    let current = existing;
    const agrees = appliedFieldsAgree(
      crd as unknown as Record<string, unknown>,
      existing as unknown as Record<string, unknown> | undefined,
      CONTROLLER_MANAGER,
    );
    if (this.deps.follower) {
      // The coordinator applies it; its CRD event brings this RGD back.
      return agrees && current && established(current)
        ? undefined
        : { status: 'False', reason: 'WaitingForCoordinator', message: `CRD ${crdName} is not applied yet` };
    }
    if (
      !appliedFieldsAgree(
        crd as unknown as Record<string, unknown>,
        existing as unknown as Record<string, unknown> | undefined,
        CONTROLLER_MANAGER,
      )
    ) {
      try {
        current = await this.deps.client.apply(crd as unknown as KubeObject, {
          fieldManager: CONTROLLER_MANAGER,
          force: true,
        });
        this.deps.log.info({ rgd: name, crd: crdName }, existing ? 'CRD updated' : 'CRD created');
      } catch (e) {
        return {
          status: 'False',
          reason: 'FailedToApply',
          message: `apply CRD ${crdName}: ${errorMessage(e)}`,
        };
      }
    }
    if (current && established(current)) return undefined;
    try {
      await waitForCrd(this.deps.client, crdName, 30_000);
      return undefined;
    } catch (e) {
      return { status: 'False', reason: 'NotEstablished', message: errorMessage(e) };
    }
  }

  // ------------------------------------------------------------------ retire

  private async retire(name: string): Promise<void> {
    await this.deps.server.stop(name);
    this.deps.revisions?.forget(name);
    const k = this.known.get(name);
    if (k) {
      this.lastIssued.delete(k.uid);
      this.settling.delete(k.uid);
    }
    this.known.delete(name);
    if (!k?.crdName || !this.deps.deleteCrds || this.deps.follower) return;
    const crd = this.deps.crds.get(k.crdName);
    if (crd?.metadata.labels?.[LABEL_RGD_NAME] !== name) return;
    try {
      await this.deps.client.delete(
        { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name: k.crdName },
        { preconditions: { uid: crd.metadata.uid ?? '' } },
      );
      this.deps.log.info({ rgd: name, crd: k.crdName }, 'CRD deleted with its RGD');
    } catch (e) {
      this.deps.log.warn({ rgd: name, crd: k.crdName, err: errorMessage(e) }, 'could not delete the CRD');
    }
  }

  // ------------------------------------------------------------------ status

  private async writeStatus(
    rgd: KubeObject,
    generation: number,
    compiled: CompiledGraph | undefined,
    parts: { accepted: Part; kind: Part; controller: Part },
  ): Promise<void> {
    if (this.deps.follower) return; // the coordinator's
    const uid = rgd.metadata.uid ?? '';
    const cached = this.lastStatus.get(uid);
    const rv = Number(rgd.metadata.resourceVersion);
    const prevConditions: Condition[] =
      cached && cached.rv > rv
        ? cached.status.conditions
        : parseConditions(rgd as unknown as Record<string, unknown>);
    // Kept on every write (an invalid spec too): the count survives until the RGD is deleted.
    const lastIssuedRevision = Math.max(lastIssuedOf(rgd), this.lastIssued.get(uid) ?? 0);
    const settling = this.settling.has(uid);
    const revisions: Part | undefined = settling
      ? {
          status: 'Unknown',
          reason: 'WaitingForGraphRevisionSettlement',
          message: KRO_MESSAGES.revisionsSettling,
        }
      : lastIssuedRevision > 0
        ? { status: 'True', reason: 'Resolved', message: KRO_MESSAGES.revisionResolved(lastIssuedRevision) }
        : undefined;
    const conditions = rgdConditions(
      prevConditions,
      { ...parts, ...(revisions ? { revisions } : {}) },
      generation,
      () => this.now(),
    );
    const active = conditions.every((c) => c.status === 'True');
    const status: RgdStatus = {
      state: active ? 'Active' : 'Inactive',
      ...graphShape(compiled),
      conditions,
      ...(lastIssuedRevision > 0 ? { lastIssuedRevision } : {}),
    };
    if (
      cached &&
      cached.rv > rv &&
      JSON.stringify(rgdStatusJson(cached.status)) === JSON.stringify(rgdStatusJson(status))
    )
      return;
    if (rgdStatusMatches(rgd as unknown as Record<string, unknown>, status)) return;
    const res = await this.deps.client.applyStatus(
      {
        apiVersion: rgd.apiVersion,
        kind: rgd.kind,
        metadata: { name: rgd.metadata.name },
        status: rgdStatusJson(status),
      },
      { fieldManager: CONTROLLER_MANAGER, force: true },
    );
    this.lastStatus.set(uid, { rv: Number(res.metadata.resourceVersion), status });
  }
}

// -------------------------------------------------------------------- helpers

/** What decides a recompile: the spec and the breaking-change opt-in. */
export function specHash(rgd: KubeObject): string {
  const allow = rgd.metadata.annotations?.[ANNOTATION_ALLOW_BREAKING] ?? '';
  return createHash('sha256')
    .update(JSON.stringify([rgd.spec ?? null, allow]))
    .digest('hex')
    .slice(0, 16);
}

function sameGraph(a: CompiledGraph, b: CompiledGraph): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function sameApi(a: InstanceApi, b: InstanceApi): boolean {
  return (
    a.compiled === b.compiled &&
    a.group === b.group &&
    a.version === b.version &&
    a.kind === b.kind &&
    a.plural === b.plural &&
    a.namespaced === b.namespaced &&
    a.rgdUid === b.rgdUid
  );
}

/** The instance CRD an RGD generates. */
type InstanceCrd = NonNullable<GeneratedCrd['crd']>;

/**
 * The generated CRD as applied: `priority: 0` dropped from printer columns (the API server omits it, so
 * applying it would never agree with what is stored), the RGD's labels and the spec hash.
 */
function stampedCrd(crd: InstanceCrd, rgd: KubeObject, hash: string): InstanceCrd {
  for (const v of crd.spec.versions) {
    v.additionalPrinterColumns = v.additionalPrinterColumns.map((c) => {
      if (c.priority !== 0) return c;
      const { priority: _zero, ...rest } = c;
      return rest;
    });
  }
  crd.metadata.labels = {
    ...(crd.metadata.labels ?? {}),
    [LABEL_OWNED]: 'true',
    [LABEL_RGD_NAME]: rgd.metadata.name ?? '',
    [LABEL_RGD_ID]: rgd.metadata.uid ?? '',
  };
  crd.metadata.annotations = { ...(crd.metadata.annotations ?? {}), [ANNOTATION_SPEC_HASH]: hash };
  return crd;
}

/**
 * Breaking changes (design/rgd.md §19.4): blocked unless the RGD allows them, and judged only when the RGD
 * changed since the CRD was generated (not for drift).
 */
function breakingChangeRefusal(
  rgd: KubeObject,
  existing: KubeObject | undefined,
  crd: InstanceCrd,
  hash: string,
): Part | undefined {
  if (
    !existing ||
    existing.metadata.annotations?.[ANNOTATION_SPEC_HASH] === hash ||
    allowsBreakingChanges(rgd)
  )
    return undefined;
  const report = compareCrds(existing, crd);
  if (report.breaking.length === 0) return undefined;
  const list = report.breaking.map((c) => `${c.path}: ${c.message}`).join('; ');
  return {
    status: 'False',
    reason: 'BreakingChange',
    message: `the CRD update is blocked (set annotation ${ANNOTATION_ALLOW_BREAKING}: "true" to allow it): ${list}`,
  };
}
