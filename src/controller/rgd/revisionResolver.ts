/**
 * Instances resolve through GraphRevisions (design/rgd.md §19.7): a pass is reconciled at the revision
 * revisionPolicy.ts chooses. The latest revision is the RGD's compiled graph itself (the registrar issues
 * it from that very spec, so nothing is compiled twice); an older one is its `spec.snapshot.spec`, compiled
 * once per revision name, uid and generation and kept until schemas change. A missing or rejected
 * revision is an error value: the instance stops with that condition, never falling back to another.
 */
import type { Logger } from 'pino';
import type { CompiledGraph } from '../../graph/model.ts';
import { Informer, type KubeObject, type RestClient } from '../../kube/index.ts';
import { diagnosticsMessage } from '../core/errors.ts';
import type { GraphCompiler } from '../core/graphCompiler.ts';
import { rgdCacheTransforms } from './caches.ts';
import type { InstanceApi } from './instanceReconciler.ts';
import { GRAPH_REVISION_API_VERSION, GRAPH_REVISION_PLURAL, RGD_API_VERSION, RGD_KIND } from './names.ts';
import { graphRevisionName } from './revisionName.ts';
import { chooseRevision, RevisionResolutionError } from './revisionPolicy.ts';

/** Where an RGD's rollout holds an instance that names no revision (rollout/defaults.ts). */
export type RolloutDefault = (rgdName: string, inst: KubeObject) => number | undefined;

export interface RevisionResolverOptions {
  client: RestClient;
  compiler: GraphCompiler;
  log: Logger;
  resyncMs: number;
  /** Told when a revision appears or goes (its instances are reconciled again). */
  onRevision?: (rgdName: string, revision: number) => void;
}

export class RevisionResolver {
  private readonly opts: RevisionResolverOptions;
  private readonly compiled = new Map<string, CompiledGraph | RevisionResolutionError>();
  private rolloutDefault: RolloutDefault | undefined;
  readonly informer: Informer;

  constructor(opts: RevisionResolverOptions) {
    this.opts = opts;
    this.informer = new Informer(opts.client, {
      target: { apiVersion: GRAPH_REVISION_API_VERSION, plural: GRAPH_REVISION_PLURAL },
      resyncMs: opts.resyncMs,
      onError: (e) => opts.log.debug({ err: String(e) }, 'graph revision watch error'),
      transform: rgdCacheTransforms.graphRevision,
    });
    const told = (r: KubeObject): void => {
      const spec = r.spec as { revision?: number; snapshot?: { name?: string } } | undefined;
      if (spec?.snapshot?.name && typeof spec.revision === 'number')
        opts.onRevision?.(spec.snapshot.name, spec.revision);
    };
    this.informer.addHandlers({ add: told, delete: told });
  }

  /** The rollouts' answer for instances that name no revision (wired once the rollout controller runs). */
  useRolloutDefault(fn: RolloutDefault): void {
    this.rolloutDefault = fn;
  }

  start(): void {
    this.informer.start();
  }

  async waitForSync(timeoutMs: number): Promise<void> {
    await this.informer.waitForSync(timeoutMs);
  }

  async stop(): Promise<void> {
    await this.informer.stop();
  }

  /** Schemas changed: revisions are compiled again when next used. */
  invalidate(): void {
    this.compiled.clear();
  }

  /** The GraphRevision object of an RGD's revision, as cached. */
  revisionObject(rgdName: string, revision: number): KubeObject | undefined {
    const r = this.informer.get(undefined, graphRevisionName(rgdName, revision));
    const spec = r?.spec as { revision?: number; snapshot?: { name?: string } } | undefined;
    return spec?.snapshot?.name === rgdName && spec.revision === revision ? r : undefined;
  }

  /** The revision numbers an RGD has, ascending. */
  revisionsOf(rgdName: string): number[] {
    const out: number[] = [];
    for (const r of this.informer.list()) {
      const spec = r.spec as { revision?: number; snapshot?: { name?: string } } | undefined;
      if (
        spec?.snapshot?.name === rgdName &&
        typeof spec.revision === 'number' &&
        !r.metadata.deletionTimestamp
      )
        out.push(spec.revision);
    }
    return out.sort((a, b) => a - b);
  }

  /** The instance API of one pass: `api` itself at the latest revision, else one on the revision's graph. */
  async resolve(api: InstanceApi, inst: KubeObject): Promise<InstanceApi | RevisionResolutionError> {
    const rolloutDefault = this.rolloutDefault?.(api.rgdName, inst);
    const choice = chooseRevision({
      meta: inst.metadata,
      latest: api.revision,
      ...(rolloutDefault !== undefined ? { rolloutDefault } : {}),
    });
    if (choice instanceof RevisionResolutionError) return choice;
    if (choice.kind === 'latest') return api;
    const compiled = await this.compiledRevision(api.rgdName, choice.revision);
    if (compiled instanceof RevisionResolutionError) return compiled;
    return { ...api, compiled, revision: choice.revision };
  }

  private async compiledRevision(
    rgdName: string,
    revision: number,
  ): Promise<CompiledGraph | RevisionResolutionError> {
    const r = this.revisionObject(rgdName, revision);
    if (!r && this.informer.list().length === 0 && !this.informer.hasSynced())
      return new RevisionResolutionError(
        'RevisionsUnavailable',
        `revision ${revision} is asked for and no GraphRevision is readable (is the GraphRevision CRD installed?)`,
      );
    if (!r)
      return new RevisionResolutionError(
        'RevisionNotFound',
        `GraphRevision ${graphRevisionName(rgdName, revision)} (revision ${revision} of ${rgdName}) does not exist`,
      );
    // A revision's spec is immutable: its name, uid and generation name one compile.
    const key = `${r.metadata.name}|${r.metadata.uid}|${r.metadata.generation ?? 0}`;
    const cached = this.compiled.get(key);
    if (cached) return cached;
    const conditions = (r.status as { conditions?: { type: string; status: string; message?: string }[] })
      ?.conditions;
    const failed = conditions?.find((c) => c.type === 'GraphVerified' && c.status === 'False');
    if (failed)
      return new RevisionResolutionError(
        'RevisionInvalid',
        `GraphRevision ${r.metadata.name} failed verification: ${failed.message ?? 'no message'}`,
      );
    const snapshot = (r.spec as { snapshot?: { spec?: unknown } }).snapshot?.spec ?? {};
    const outcome = await this.opts.compiler.compile({
      apiVersion: RGD_API_VERSION,
      kind: RGD_KIND,
      metadata: { name: rgdName },
      spec: snapshot,
    });
    const compiled = outcome.accepted ? outcome.compiled : undefined;
    if (compiled?.rgd) {
      this.compiled.set(key, compiled);
      return compiled;
    }
    const err = new RevisionResolutionError(
      'RevisionInvalid',
      `GraphRevision ${r.metadata.name} does not compile: ${diagnosticsMessage(outcome.diagnostics, 'rejected')}`,
    );
    // An unknown kind may be a CRD on its way: compiled again next time.
    if (!outcome.unknownKind) this.compiled.set(key, err);
    return err;
  }
}
