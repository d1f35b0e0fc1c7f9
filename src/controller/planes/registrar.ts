/**
 * The blueprint registrar (design/planes.md §14.1): one krop ResourceGraphDefinition, one pass.
 *
 *   deleting → withdraw (stop serving, release instance finalizers, purge) → drop the finalizer.
 *   finalizer first → spec hash (design/planes.md §2.5) → targets (design/planes.md §2.3 InvalidTarget) → compile against the management
 *   cluster (cached per (name, hash)) → explicit namespaces on provider/host (BuildFailed) → claims
 *   (ClaimTypeUnresolved, BuildFailed for dynamic consumer nodes) → export name, ExportConflict (older
 *   blueprint wins) → generated roles → registry, then (changed) restart serving → status Published.
 *
 * A follower (a sharded replica that is not the coordinator, design/sharding.md §6) goes through the
 * same steps but writes nothing: no finalizer, no status. It registers a blueprint once the
 * coordinator's status says it published this very spec hash, unpublishes one the coordinator refused
 * at its current generation, and otherwise keeps what it serves until the coordinator has decided. A
 * blueprint being deleted (or gone) releases the follower's own instances; the coordinator drops the
 * finalizer after releasing its own.
 */
import type { Logger } from 'pino';
import { kubectlName } from '../../diag/objectName.ts';
import type { CompiledGraph, ValueNode } from '../../graph/model.ts';
import { statusFieldTypes } from '../../graph/typecheck.ts';
import { applyToExisting, isNotFound, type KubeObject, type RestClient } from '../../kube/index.ts';
import { crdNames, generateCrd } from '../../schema/crd/generate.ts';
import { type Condition, condition } from '../core/conditions.ts';
import { diagnosticsMessage, errorMessage } from '../core/errors.ts';
import type { GraphCompiler } from '../core/graphCompiler.ts';
import { deriveClaims, generatedRoles, publishedClaim, roleNames, type TypedClaim } from './claims.ts';
import {
  ANNOTATION_BLUEPRINT,
  ANNOTATION_SPEC_HASH,
  BLUEPRINT_KIND,
  FINALIZER_BLUEPRINT,
  KROP_API_VERSION,
  REGISTRAR_MANAGER,
} from './kropApi.ts';
import type { PublishedBlueprint } from './published.ts';
import { blueprintSpecHash, splitRouting } from './specHash.ts';

export type BlueprintReason =
  | 'Published'
  | 'HashFailed'
  | 'BuildFailed'
  | 'InvalidTarget'
  | 'ClaimTypeUnresolved'
  | 'ClaimIdentityUnresolved'
  | 'ExportConflict'
  | 'PublishFailed';

/**
 * What a backend's publication may answer: a refusal with its reason (kcp: `ClaimIdentityUnresolved`),
 * and status fields of its own, which replace the plain-cluster role names (`rbac`) and may override
 * `claims` (kcp: with identity hashes).
 */
export interface PublishAnswer {
  refused?: { reason: BlueprintReason; message: string };
  status?: Record<string, unknown>;
}

export interface RegistrarHooks {
  /** A blueprint is published (again); `changed`: its spec hash differs from what was served. */
  published(bp: PublishedBlueprint, changed: boolean): Promise<PublishAnswer | undefined>;
  /** A blueprint is no longer published (failed, conflicting or withdrawn). */
  unpublished(name: string): Promise<void>;
  /** The blueprint is being deleted: release its instances in every reachable consumer cluster. */
  withdraw(name: string): Promise<void>;
}

export interface RegistrarDeps {
  client: RestClient;
  compiler: GraphCompiler;
  blueprints: { get(name: string): KubeObject | undefined; list(): KubeObject[] };
  hooks: RegistrarHooks;
  log: Logger;
  now?: () => string;
  /**
   * The reason for a consumer-target type that does not resolve (default `ClaimTypeUnresolved`; kcp:
   * `ClaimIdentityUnresolved`, the type's export is not bound in the provider workspace).
   */
  unresolvedTypeReason?: BlueprintReason;
  /**
   * Read, don't write: serve what the coordinator published (see the file comment).
   * @default false: this registrar registers (finalizer and status)
   */
  follower?: boolean;
}

export interface BlueprintOutcome {
  reason: BlueprintReason | 'Gone' | 'Withdrawn' | 'FinalizerAdded' | 'AwaitingCoordinator';
  message?: string;
}

interface CacheEntry {
  hash: string;
  compiled: CompiledGraph | undefined;
  diagnostics: string;
  unknownKinds: string[];
}

/** Why a blueprint is not published. */
interface Refusal {
  reason: BlueprintReason;
  message: string;
}

/**
 * The generated instance CRD as the consumer cluster is given it: priority-0 printer columns without the
 * redundant field, kgraph's managed-by label, the blueprint's name and spec hash as annotations.
 */
function servedCrd(crd: KubeObject, blueprint: string, hash: string): KubeObject {
  for (const v of (crd.spec as { versions: { additionalPrinterColumns?: { priority?: number }[] }[] })
    .versions) {
    v.additionalPrinterColumns = (v.additionalPrinterColumns ?? []).map((c) => {
      if (c.priority !== 0) return c;
      const { priority: _p, ...rest } = c;
      return rest;
    });
  }
  crd.metadata.labels = { ...(crd.metadata.labels ?? {}), 'app.kubernetes.io/managed-by': 'kgraph' };
  crd.metadata.annotations = {
    ...(crd.metadata.annotations ?? {}),
    [ANNOTATION_BLUEPRINT]: blueprint,
    [ANNOTATION_SPEC_HASH]: hash,
  };
  return crd;
}

/** The export name `<plural>.<group>` of a blueprint spec (the instance CRD name). */
export function exportNameOf(spec: unknown): string | undefined {
  const schema = (spec as { schema?: { kind?: unknown; group?: unknown } } | undefined)?.schema;
  if (typeof schema?.kind !== 'string') return undefined;
  const group =
    typeof schema.group === 'string' && schema.group !== '' ? schema.group : 'krop.opendefense.cloud';
  return crdNames(schema.kind, group).name;
}

export class BlueprintRegistrar {
  private readonly deps: RegistrarDeps;
  private readonly cache = new Map<string, CacheEntry>();
  readonly registry = new Map<string, PublishedBlueprint>();
  /** Serving starts per blueprint (tests: the change-detected restart happens once per edit). */
  readonly publishCount = new Map<string, number>();

  constructor(deps: RegistrarDeps) {
    this.deps = deps;
  }

  private now(): string {
    return (this.deps.now ?? (() => new Date().toISOString().replace(/\.\d+Z$/, 'Z')))();
  }

  /** Forget cached compiles (a CRD changed in the management cluster). */
  invalidate(): void {
    this.cache.clear();
    this.deps.compiler.invalidate();
  }

  async reconcile(name: string): Promise<BlueprintOutcome> {
    const bp = this.deps.blueprints.get(name);
    if (!bp) {
      // A follower may see a deletion only once the coordinator has let the blueprint go.
      if (this.deps.follower && this.registry.delete(name)) await this.deps.hooks.withdraw(name);
      await this.unpublish(name);
      return { reason: 'Gone' };
    }
    if (bp.metadata.deletionTimestamp && this.deps.follower) {
      if (this.registry.delete(name)) await this.deps.hooks.withdraw(name);
      await this.unpublish(name);
      return { reason: 'Withdrawn' };
    }
    if (bp.metadata.deletionTimestamp) {
      if ((bp.metadata.finalizers ?? []).includes(FINALIZER_BLUEPRINT)) {
        // Out of the registry first: no instance reconcile or cluster resync serves it from here on
        // (either would put back the instance finalizers the withdrawal releases).
        this.registry.delete(name);
        await this.deps.hooks.withdraw(name);
        await this.unpublish(name);
        await this.setFinalizer(bp, false);
      }
      return { reason: 'Withdrawn' };
    }
    if (!(bp.metadata.finalizers ?? []).includes(FINALIZER_BLUEPRINT)) {
      if (this.deps.follower) return { reason: 'AwaitingCoordinator' };
      await this.setFinalizer(bp, true);
      return { reason: 'FinalizerAdded' };
    }
    const outcome = await this.publish(bp);
    if (outcome.reason !== 'Published' && outcome.reason !== 'AwaitingCoordinator')
      await this.unpublish(name);
    return outcome;
  }

  private async unpublish(name: string): Promise<void> {
    if (this.registry.delete(name) || !this.cache.has(name)) await this.deps.hooks.unpublished(name);
    this.cache.delete(name);
  }

  /**
   * Publishes a blueprint in steps (design/planes.md §14.1): hash and routing, compile (cached), derive
   * the claims, refuse a rival export name, generate the instance CRD, register and hand it to the
   * serving hooks. The first step that refuses writes `Ready=False` with its reason.
   */
  private async publish(bp: KubeObject): Promise<BlueprintOutcome> {
    const name = bp.metadata.name ?? '';
    const prepared = await this.prepare(bp, name);
    if ('reason' in prepared) return this.fail(bp, prepared.reason, prepared.message);
    const { hash, compiled } = prepared;
    const claimed = this.claimsOf(compiled);
    if ('reason' in claimed) return this.fail(bp, claimed.reason, claimed.message);
    const { info, plural, exportName, claims } = claimed;
    const rival = this.rivalFor(bp, exportName);
    if (rival) return this.fail(bp, rival.reason, rival.message);
    const generated = generateCrd(bp, { statusTypes: statusFieldTypes(compiled) });
    if (!generated.crd)
      return this.fail(bp, 'BuildFailed', diagnosticsMessage(generated.diagnostics, 'no CRD'));
    const published: PublishedBlueprint = {
      name,
      uid: bp.metadata.uid ?? '',
      specHash: hash,
      compiled,
      exportName,
      group: info.group,
      version: info.apiVersion,
      kind: info.kind,
      plural,
      namespaced: info.scope !== 'Cluster',
      claims,
      crd: servedCrd(generated.crd as unknown as KubeObject, name, hash),
      labels: bp.metadata.labels ?? {},
    };
    if (this.deps.follower) {
      const verdict = coordinatorVerdict(bp, hash);
      if (verdict === 'pending') return { reason: 'AwaitingCoordinator' };
      if (verdict !== 'published') return verdict;
    }
    return this.register(bp, published);
  }

  /** The spec hash and the compiled graph (compiled once per hash), or why the blueprint is refused. */
  private async prepare(
    bp: KubeObject,
    name: string,
  ): Promise<{ hash: string; compiled: CompiledGraph } | Refusal> {
    let hash: string;
    try {
      hash = blueprintSpecHash(bp.spec);
    } catch (e) {
      return { reason: 'HashFailed', message: errorMessage(e) };
    }
    const { invalid, routing } = splitRouting(bp.spec);
    if (invalid.length > 0) {
      return {
        reason: 'InvalidTarget',
        message: invalid
          .map((i) => `resource ${i.id}: target "${i.target}" must be one of consumer, provider, host`)
          .join('; '),
      };
    }
    // Compile (a performance cache only, keyed by name and hash).
    let entry = this.cache.get(name);
    if (!entry || entry.hash !== hash) {
      const out = await this.deps.compiler.compile(bp as unknown as Record<string, unknown>);
      entry = {
        hash,
        compiled: out.accepted ? out.compiled : undefined,
        diagnostics: diagnosticsMessage(out.diagnostics, 'the blueprint was not accepted'),
        unknownKinds: out.diagnostics
          .filter((d) => d.severity === 'error' && d.code === 'KG3001' && d.node)
          .map((d) => d.node ?? ''),
      };
      this.cache.set(name, entry);
    }
    if (!entry.compiled) {
      const consumerUnknown = entry.unknownKinds.filter(
        (id) => (routing.get(id) ?? 'consumer') === 'consumer',
      );
      if (consumerUnknown.length > 0 && consumerUnknown.length === entry.unknownKinds.length) {
        this.cache.delete(name); // retried at the next resync or CRD event
        return {
          reason: this.deps.unresolvedTypeReason ?? 'ClaimTypeUnresolved',
          message: entry.diagnostics,
        };
      }
      if (entry.unknownKinds.length > 0) this.cache.delete(name);
      return { reason: 'BuildFailed', message: entry.diagnostics };
    }
    const compiled = entry.compiled;
    if (!compiled.rgd) return { reason: 'BuildFailed', message: 'not a ResourceGraphDefinition' };
    const missingNs = explicitNamespaceProblems(compiled);
    if (missingNs.length > 0) return { reason: 'BuildFailed', message: missingNs.join('; ') };
    return { hash, compiled };
  }

  /** The instance API's names and the permission claims derived from the graph (design/planes.md §10). */
  private claimsOf(compiled: CompiledGraph):
    | {
        info: NonNullable<CompiledGraph['rgd']>;
        plural: string;
        exportName: string;
        claims: TypedClaim[];
      }
    | Refusal {
    const info = compiled.rgd;
    if (!info) return { reason: 'BuildFailed', message: 'not a ResourceGraphDefinition' };
    const names = crdNames(info.kind, info.group);
    const { claims, problems } = deriveClaims(compiled, {
      group: info.group,
      plural: names.plural,
      kind: info.kind,
    });
    const build = problems.filter((p) => p.reason === 'BuildFailed');
    if (build.length > 0) return { reason: 'BuildFailed', message: build.map((p) => p.message).join('; ') };
    if (problems.length > 0)
      return {
        reason: this.deps.unresolvedTypeReason ?? 'ClaimTypeUnresolved',
        message: problems.map((p) => p.message).join('; '),
      };
    return { info, plural: names.plural, exportName: names.name, claims };
  }

  /** design/planes.md §14.1 step 6, design/planes.md §18.7: the older blueprint keeps the export name. */
  private rivalFor(bp: KubeObject, exportName: string): Refusal | undefined {
    const rival = this.deps.blueprints
      .list()
      .filter(
        (o) =>
          o.metadata.name !== bp.metadata.name &&
          !o.metadata.deletionTimestamp &&
          exportNameOf(o.spec) === exportName,
      )
      .find((o) => older(o, bp));
    if (!rival) return undefined;
    return {
      reason: 'ExportConflict',
      message: `${kubectlName({ apiVersion: KROP_API_VERSION, kind: BLUEPRINT_KIND, name: rival.metadata.name ?? '' })} already produces ${exportName}`,
    };
  }

  /** Registers the published blueprint, tells the serving hooks (changed or not) and writes `Ready=True`. */
  private async register(bp: KubeObject, published: PublishedBlueprint): Promise<BlueprintOutcome> {
    const { name, specHash: hash, exportName, claims } = published;
    const status = (bp.status ?? {}) as { observedSpecHash?: string };
    const previous = this.registry.get(name);
    const changed =
      status.observedSpecHash !== hash || (previous !== undefined && previous.specHash !== hash);
    this.registry.set(name, published);
    if (!previous || previous.specHash !== hash || changed) {
      this.publishCount.set(name, (this.publishCount.get(name) ?? 0) + 1);
    }
    let answer: PublishAnswer | undefined;
    try {
      answer = await this.deps.hooks.published(published, changed || !previous || previous.specHash !== hash);
    } catch (e) {
      return this.fail(bp, 'PublishFailed', errorMessage(e));
    }
    if (answer?.refused) return this.fail(bp, answer.refused.reason, answer.refused.message);
    await this.writeStatus(bp, 'True', 'Published', `serving ${exportName}`, {
      exportedAPI: exportName,
      observedSpecHash: hash,
      claims: claims.map(publishedClaim),
      ...(answer?.status ?? { rbac: roleNames(exportName) }),
    });
    return { reason: 'Published' };
  }

  /** The roles a consumer applies and binds for a published blueprint (`kgraph rbac`, tests). */
  rolesOf(name: string): KubeObject[] {
    const bp = this.registry.get(name);
    if (!bp) return [];
    return generatedRoles(bp.exportName, bp, bp.claims) as unknown as KubeObject[];
  }

  private async fail(bp: KubeObject, reason: BlueprintReason, message: string): Promise<BlueprintOutcome> {
    this.deps.log.info({ blueprint: bp.metadata.name, reason, message }, 'blueprint not published');
    await this.writeStatus(bp, 'False', reason, message, {});
    return { reason, message };
  }

  private async writeStatus(
    bp: KubeObject,
    st: 'True' | 'False',
    reason: string,
    message: string,
    fields: Record<string, unknown>,
  ): Promise<void> {
    if (this.deps.follower) return; // the coordinator's to write
    const prev = (((bp.status ?? {}) as { conditions?: Condition[] }).conditions ?? []) as Condition[];
    const gen = bp.metadata.generation ?? 0;
    const ready = condition(prev, 'Ready', st, reason, message, gen, () => this.now());
    const current = (bp.status ?? {}) as Record<string, unknown>;
    const keep =
      st === 'True'
        ? fields
        : {
            ...(current.exportedAPI !== undefined ? { exportedAPI: current.exportedAPI } : {}),
            ...(current.observedSpecHash !== undefined ? { observedSpecHash: current.observedSpecHash } : {}),
          };
    const status = { ...keep, conditions: [ready] };
    if (
      JSON.stringify(status) ===
      JSON.stringify({ ...pick(current, Object.keys(keep)), conditions: current.conditions })
    )
      return;
    try {
      await this.deps.client.applyStatus(
        {
          apiVersion: KROP_API_VERSION,
          kind: BLUEPRINT_KIND,
          metadata: { name: bp.metadata.name },
          status,
        } as KubeObject,
        { fieldManager: REGISTRAR_MANAGER, force: true },
      );
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }

  private async setFinalizer(bp: KubeObject, present: boolean): Promise<void> {
    // Never a creation: a blueprint deleted since the cache copy is not brought back.
    await applyToExisting(
      this.deps.client,
      {
        apiVersion: KROP_API_VERSION,
        kind: BLUEPRINT_KIND,
        metadata: { name: bp.metadata.name, finalizers: present ? [FINALIZER_BLUEPRINT] : [] },
      } as KubeObject,
      bp.metadata.uid,
      { fieldManager: REGISTRAR_MANAGER, force: true },
    );
  }
}

/**
 * What the coordinator decided about a blueprint whose spec hashes to `hash` (read from the status it
 * wrote): `published` (Ready=True/Published for this hash), a refusal of the current generation, or
 * `pending` (it has not decided on this spec yet).
 */
export function coordinatorVerdict(
  bp: KubeObject,
  hash: string,
): 'published' | 'pending' | { reason: BlueprintReason; message: string } {
  const status = (bp.status ?? {}) as { observedSpecHash?: unknown; conditions?: unknown };
  const conditions = Array.isArray(status.conditions) ? (status.conditions as Condition[]) : [];
  const ready = conditions.find((c) => c.type === 'Ready');
  if (!ready) return 'pending';
  if (ready.status === 'True' && ready.reason === 'Published')
    return status.observedSpecHash === hash ? 'published' : 'pending';
  if (ready.status === 'False' && ready.observedGeneration === (bp.metadata.generation ?? 0))
    return { reason: ready.reason as BlueprintReason, message: ready.message };
  return 'pending';
}

function pick(o: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((k) => o[k] !== undefined).map((k) => [k, o[k]]));
}

/** `a` was created before `b` (then by name): `a` keeps a contested export name. */
function older(a: KubeObject, b: KubeObject): boolean {
  const ta = a.metadata.creationTimestamp ?? '';
  const tb = b.metadata.creationTimestamp ?? '';
  if (ta !== tb) return ta < tb;
  return (a.metadata.name ?? '') < (b.metadata.name ?? '');
}

/** design/planes.md §2.3: provider/host namespaced templates and single external refs must set metadata.namespace. */
export function explicitNamespaceProblems(compiled: CompiledGraph): string[] {
  const out: string[] = [];
  for (const n of compiled.root.nodes) {
    if (n.target === 'consumer' || !n.payload) continue;
    if (n.kind !== 'template' && n.kind !== 'externalRef') continue;
    if (n.resolved?.scope !== 'Namespaced') continue;
    const meta = entry(n.payload, 'metadata');
    if (n.kind === 'externalRef' && meta && entry(meta, 'selector')) continue;
    const ns = meta ? entry(meta, 'namespace') : undefined;
    const empty = !ns || (ns.t === 'literal' && (ns.value === '' || ns.value === null));
    if (empty)
      out.push(`resource ${n.id}: a ${n.target}-target ${n.resolved.kind} must set metadata.namespace`);
  }
  return out;
}

function entry(v: ValueNode, key: string): ValueNode | undefined {
  if (v.t === 'object') return v.entries.find(([k]) => k === key)?.[1];
  if (v.t === 'literal' && typeof v.value === 'object' && v.value !== null && !Array.isArray(v.value)) {
    const x = (v.value as Record<string, unknown>)[key];
    return x === undefined ? undefined : { t: 'literal', value: x as never };
  }
  return undefined;
}

export type { TypedClaim };
