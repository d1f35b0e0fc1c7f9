/**
 * GraphRevisions (design/rgd.md §19.5): each accepted change of an RGD's spec is recorded as an immutable
 * `GraphRevision` (internal.kro.run/v1alpha1), as kro records it, so kro's tooling and `kubectl get gr`
 * show an RGD's history.
 *
 *   normalised spec hash (revisionHash.ts) equal to the latest revision's snapshot → nothing issued;
 *   otherwise, and only for a spec that compiled (the registrar calls this after an accepted compile),
 *   revision max(status.lastIssuedRevision, newest live revision) + 1 is created as `<rgd>-r00001`,
 *   owned by the RGD (deleted with it), with the compiled graph's order and dependencies in its status;
 *   then revisions beyond the newest `maxRevisions` are deleted.
 *
 * Revisions are found by `spec.snapshot.name`, not by owner: revisions a deleted RGD left behind (deleted
 * with `--cascade=orphan`, or not yet collected) are adopted by the RGD re-created under that name, and
 * numbering continues after them, as kro does. While a revision of the RGD is being deleted nothing is
 * issued (the numbers would be decided on a list about to change); the pass is retried.
 *
 * A settled RGD (same uid, same hash as when last checked) costs no request: steady passes and
 * CRD-driven recompiles issue nothing and read nothing.
 */
import type { Logger } from 'pino';
import type { CompiledGraph } from '../../graph/model.ts';
import {
  isAlreadyExists,
  isNotFound,
  type KubeObject,
  NoKindMatchError,
  type RestClient,
} from '../../kube/index.ts';
import { errorMessage } from '../core/errors.ts';
import { CONTROLLER_MANAGER } from '../core/names.ts';
import type { Observability } from '../core/observability.ts';
import {
  GRAPH_REVISION_API_VERSION,
  GRAPH_REVISION_KIND,
  KGRAPH_VERSION,
  LABEL_GRAPH_REVISION_HASH,
  LABEL_KRO_VERSION,
  LABEL_OWNED,
  LABEL_RGD_NAME,
  RGD_API_VERSION,
  RGD_KIND,
} from './names.ts';
import { rgdSpecHash } from './revisionHash.ts';
import type { RevisionMetrics } from './revisionMetrics.ts';
import { graphRevisionName } from './revisionName.ts';
import { revisionIssuedEvent } from './rgdEvents.ts';
import { graphShape } from './rgdStatus.ts';

/** How long a pass waits for revisions being deleted before it decides again. */
const SETTLE_RETRY_MS = 1_000;

export type RevisionErrorCode = 'RevisionListFailed' | 'RevisionCreateFailed' | 'RevisionAdoptFailed';

/** A revision could not be read or written; the RGD pass is retried. */
export class RevisionError extends Error {
  readonly code: RevisionErrorCode;
  constructor(code: RevisionErrorCode, message: string) {
    super(message);
    this.name = 'RevisionError';
    this.code = code;
  }
}

export interface RevisionOutcome {
  /** What `status.lastIssuedRevision` says after this pass (0: none issued yet). */
  lastIssued: number;
  /** The revision this pass created. */
  issued?: number;
  /** Revisions are settling (being deleted): decide again after this long. */
  requeueAfterMs?: number;
}

export interface GraphRevisionsOptions {
  client: RestClient;
  log: Logger;
  /** Revisions kept per RGD, newest first; 0 or less keeps all (kro's `--rgd-max-graph-revisions`). */
  maxRevisions: number;
  /** kro's revision counters (revisionMetrics.ts). */
  metrics?: RevisionMetrics;
  /** Where the RGD's events go (core/observability.ts). */
  observe?: Observability;
  /** Revisions instances are reconciled at or a rollout holds as stable: retention never deletes them. */
  inUse?: (rgdName: string) => ReadonlySet<number> | Promise<ReadonlySet<number>>;
  now?: () => string;
}

interface Settled {
  uid: string;
  hash: string;
  lastIssued: number;
}

const target = { apiVersion: GRAPH_REVISION_API_VERSION, kind: GRAPH_REVISION_KIND };

export class GraphRevisions {
  private readonly opts: GraphRevisionsOptions;
  private readonly settled = new Map<string, Settled>();
  private missingApiLogged = false;

  constructor(opts: GraphRevisionsOptions) {
    this.opts = opts;
  }

  private now(): string {
    return (this.opts.now ?? (() => new Date().toISOString().replace(/\.\d+Z$/, 'Z')))();
  }

  /** The RGD is gone: the next RGD of that name lists its revisions again. */
  forget(name: string): void {
    this.settled.delete(name);
  }

  /**
   * The newest revision of this RGD (the last accepted spec), for serving after a restart while the RGD's
   * current spec is invalid (design/rgd.md §19.5); undefined when there is none or the API is not served.
   */
  async newest(rgd: KubeObject): Promise<{ revision: number; spec: Record<string, unknown> } | undefined> {
    const uid = rgd.metadata.uid ?? '';
    const listed = await this.list(rgd.metadata.name ?? '');
    let best: { revision: number; spec: Record<string, unknown> } | undefined;
    for (const r of listed ?? []) {
      if (r.metadata.deletionTimestamp) continue;
      // A revision of an earlier RGD of this name counts once adopted (owner = this uid), as issuance does.
      const owned = (r.metadata.ownerReferences ?? []).some((o) => o.uid === uid);
      const spec = r.spec as { revision?: unknown; snapshot?: { spec?: unknown } } | undefined;
      const n = typeof spec?.revision === 'number' ? spec.revision : undefined;
      const snap = spec?.snapshot?.spec;
      if (!owned || n === undefined || !snap || typeof snap !== 'object') continue;
      if (!best || n > best.revision) best = { revision: n, spec: snap as Record<string, unknown> };
    }
    return best;
  }

  /** Issues a revision for `rgd`'s spec when it differs from the latest; `compiled` is that spec's graph. */
  async ensure(rgd: KubeObject, compiled: CompiledGraph): Promise<RevisionOutcome> {
    const m = this.opts.metrics;
    try {
      const out = await this.decide(rgd, compiled);
      const result = out.issued !== undefined ? 'issue' : out.requeueAfterMs !== undefined ? 'wait' : 'serve';
      m?.resolutions.inc({ result });
      return out;
    } catch (e) {
      m?.resolutions.inc({ result: 'failed' });
      throw e;
    }
  }

  private async decide(rgd: KubeObject, compiled: CompiledGraph): Promise<RevisionOutcome> {
    const name = rgd.metadata.name ?? '';
    const uid = rgd.metadata.uid ?? '';
    const hash = rgdSpecHash(rgd.spec);
    const recorded = lastIssuedOf(rgd);
    const known = this.settled.get(name);
    if (known && known.uid === uid && known.hash === hash) {
      return { lastIssued: Math.max(known.lastIssued, recorded) };
    }

    const listed = await this.list(name);
    if (listed === undefined) return { lastIssued: recorded };
    if (listed.some((r) => r.metadata.deletionTimestamp)) {
      this.opts.metrics?.waits.inc({ reason: 'settling' });
      return { lastIssued: recorded, requeueAfterMs: SETTLE_RETRY_MS };
    }
    await this.adopt(rgd, listed);
    const latest = listed.reduce<KubeObject | undefined>(
      (best, r) => (best && revisionOf(best) >= revisionOf(r) ? best : r),
      undefined,
    );
    const lastIssued = Math.max(recorded, latest ? revisionOf(latest) : 0);
    if (latest && rgdSpecHash(snapshotSpecOf(latest)) === hash) {
      this.settled.set(name, { uid, hash, lastIssued });
      return { lastIssued };
    }

    const revision = lastIssued + 1;
    const created = await this.create(rgd, revision, hash, compiled);
    this.opts.metrics?.issued.inc({ reason: latest ? 'spec_changed' : 'no_revision' });
    this.opts.log.info(
      { rgd: name, revision, graphRevision: created.metadata.name },
      'graph revision issued',
    );
    this.opts.observe?.event(revisionIssuedEvent(rgd, revision, created.metadata.name ?? ''));
    await this.collect(name, [...listed, created]);
    this.settled.set(name, { uid, hash, lastIssued: revision });
    return { lastIssued: revision, issued: revision };
  }

  /** The RGD's live and terminating revisions; undefined when the GraphRevision API is not served. */
  private async list(rgdName: string): Promise<KubeObject[] | undefined> {
    try {
      const res = await this.opts.client.listAll(target, { fieldSelector: `spec.snapshot.name=${rgdName}` });
      return res.items;
    } catch (e) {
      if (e instanceof NoKindMatchError || isNotFound(e)) {
        if (!this.missingApiLogged) {
          this.missingApiLogged = true;
          this.opts.log.warn(
            'the GraphRevision CRD is not installed (kgraph install): no revisions are issued',
          );
        }
        return undefined;
      }
      throw new RevisionError('RevisionListFailed', `list graph revisions of ${rgdName}: ${errorMessage(e)}`);
    }
  }

  /** Points every revision of this RGD name at the current RGD (a re-created RGD takes over its history). */
  private async adopt(rgd: KubeObject, revisions: KubeObject[]): Promise<void> {
    const uid = rgd.metadata.uid ?? '';
    for (const r of revisions) {
      const refs = r.metadata.ownerReferences ?? [];
      if (refs.some((o) => o.uid === uid && o.controller === true)) continue;
      // An RGD reference (a deleted RGD's) is replaced; other owners are kept.
      const kept = refs.filter((o) => !(o.kind === RGD_KIND && o.apiVersion === RGD_API_VERSION));
      try {
        await this.opts.client.update({
          ...r,
          metadata: { ...r.metadata, ownerReferences: [...kept, ownerReference(rgd)] },
        });
      } catch (e) {
        throw new RevisionError(
          'RevisionAdoptFailed',
          `adopt graph revision ${r.metadata.name}: ${errorMessage(e)}`,
        );
      }
    }
  }

  private async create(
    rgd: KubeObject,
    revision: number,
    hash: string,
    compiled: CompiledGraph,
  ): Promise<KubeObject> {
    const rgdName = rgd.metadata.name ?? '';
    const name = graphRevisionName(rgdName, revision);
    let created: KubeObject;
    try {
      created = await this.opts.client.create(
        {
          ...target,
          metadata: {
            name,
            labels: {
              [LABEL_OWNED]: 'true',
              [LABEL_KRO_VERSION]: KGRAPH_VERSION,
              [LABEL_RGD_NAME]: rgdName,
              [LABEL_GRAPH_REVISION_HASH]: hash,
            },
            ownerReferences: [ownerReference(rgd)],
          },
          spec: {
            revision,
            snapshot: { name: rgdName, generation: rgd.metadata.generation ?? 0, spec: rgd.spec ?? {} },
          },
        },
        { fieldManager: CONTROLLER_MANAGER },
      );
    } catch (e) {
      // AlreadyExists: another writer issued this number since the list; the retried pass lists again.
      const why = isAlreadyExists(e) ? 'the revision number was taken' : errorMessage(e);
      throw new RevisionError('RevisionCreateFailed', `create graph revision ${name}: ${why}`);
    }
    // The graph was compiled before issuance (an invalid spec never becomes a revision): verified at once.
    const shape = graphShape(compiled);
    const at = this.now();
    const generation = created.metadata.generation ?? 1;
    try {
      return await this.opts.client.applyStatus(
        {
          ...target,
          metadata: { name },
          status: {
            topologicalOrder: shape.topologicalOrder,
            resources: shape.resources.filter((r) => r.dependencies.length > 0),
            conditions: [
              {
                type: 'GraphVerified',
                status: 'True',
                reason: 'Verified',
                message: 'graph revision compiled and verified',
                observedGeneration: generation,
                lastTransitionTime: at,
              },
              {
                type: 'Ready',
                status: 'True',
                reason: 'Ready',
                observedGeneration: generation,
                lastTransitionTime: at,
              },
            ],
          },
        },
        { fieldManager: CONTROLLER_MANAGER, force: true },
      );
    } catch (e) {
      // The revision exists; a missing status is cosmetic and must not re-issue it.
      this.opts.log.warn({ graphRevision: name, err: errorMessage(e) }, 'graph revision status not written');
      return created;
    }
  }

  /** Retention: deletes the revisions older than the newest `maxRevisions`. */
  private async collect(rgdName: string, revisions: KubeObject[]): Promise<void> {
    const max = this.opts.maxRevisions;
    if (max <= 0 || revisions.length <= max) return;
    const numbers = revisions.map(revisionOf).sort((a, b) => a - b);
    const floor = numbers[numbers.length - max] ?? 0;
    let used: ReadonlySet<number> | undefined;
    try {
      used = await this.opts.inUse?.(rgdName);
    } catch (e) {
      // Which revisions are in use is unknown: keep them all until the next issuance.
      this.opts.log.warn({ rgd: rgdName, err: errorMessage(e) }, 'graph revisions not collected');
      return;
    }
    for (const r of revisions) {
      if (revisionOf(r) >= floor || used?.has(revisionOf(r))) continue;
      try {
        await this.opts.client.delete(
          { ...target, name: r.metadata.name ?? '' },
          { preconditions: { uid: r.metadata.uid ?? '' } },
        );
        this.opts.metrics?.gcDeleted.inc();
      } catch (e) {
        // Best effort, as kro: the next issuance collects again.
        if (!isNotFound(e)) {
          this.opts.metrics?.gcErrors.inc();
          this.opts.log.warn(
            { rgd: rgdName, graphRevision: r.metadata.name, err: errorMessage(e) },
            'graph revision not collected',
          );
        }
      }
    }
  }
}

function ownerReference(rgd: KubeObject): Record<string, unknown> {
  return {
    apiVersion: RGD_API_VERSION,
    kind: RGD_KIND,
    name: rgd.metadata.name ?? '',
    uid: rgd.metadata.uid ?? '',
    controller: true,
  };
}

function revisionOf(r: KubeObject): number {
  const n = (r.spec as { revision?: unknown } | undefined)?.revision;
  return typeof n === 'number' ? n : 0;
}

function snapshotSpecOf(r: KubeObject): unknown {
  return (r.spec as { snapshot?: { spec?: unknown } } | undefined)?.snapshot?.spec;
}

/** `status.lastIssuedRevision` of an RGD (0 when unset). */
export function lastIssuedOf(rgd: KubeObject): number {
  const n = (rgd.status as { lastIssuedRevision?: unknown } | undefined)?.lastIssuedRevision;
  return typeof n === 'number' ? n : 0;
}
