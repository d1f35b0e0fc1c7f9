/**
 * What the deployer will do with each object and each prune candidate. One set of
 * decisions serves both `deploy --dry-run` (which prints them) and the real run
 * (which acts on them), so the plan is what the run does: same intent
 * (hash, Job spec hash, ownership stamp), same ceded-field handling, same drift rule,
 * same protection and ownership rules for prunes. Only server-side dry runs and GETs
 * happen here; nothing is written.
 */
import { NoKindMatchError } from '../kube/discovery.ts';
import { isApiError } from '../kube/errors.ts';
import type { RestClient } from '../kube/rest.ts';
import type { KubeObject } from '../kube/types.ts';
import type { PlannedObject } from '../sdk/index.ts';
import { cededPaths, stripCeded } from './cede.ts';
import { entryKey, type InventoryEntry, type InventoryRef, pruneCandidates } from './inventory.ts';
import { decideJob, jobSpecHash, SPEC_HASH } from './jobs.ts';
import { ownerOf, stampOwner } from './ownership.ts';

export const HASH_ANNOTATION = 'kix.run/hash';

/** The kind is not served (yet: its CRD is applied in this run; or no more: its CRD was deleted). */
export function isNoKind(err: unknown): boolean {
  return (
    err instanceof NoKindMatchError ||
    (err instanceof Error && /no kind|NoKindMatch|not found in discovery/i.test(err.message))
  );
}

export type ObjectAction =
  | 'create'
  | 'update'
  | 'unchanged'
  /** Intent unchanged, live object differs: the run re-applies it. */
  | 'drift'
  /** Another field manager owns fields the intent sets: the run fails without --force. */
  | 'conflict'
  /** A changed Job annotated `kix.run/rerun: on-change`: deleted and run again. */
  | 'rerun'
  /** A changed Job without the rerun annotation: the run fails. */
  | 'refused'
  /** The live object belongs to another deploy name: the run fails without --force. */
  | 'owned-elsewhere'
  | 'import'
  /** The kind is not served and no CRD in this deploy defines it: the run fails. */
  | 'unknown-kind';

/** Actions after which the run fails: a dry run with any of them exits non-zero. */
export const FAILING_ACTIONS: ReadonlySet<ObjectAction> = new Set([
  'conflict',
  'refused',
  'owned-elsewhere',
  'unknown-kind',
]);

export interface ObjectDecision {
  action: ObjectAction;
  detail?: string;
  /** Conflicting managers and fields, for a `conflict`. */
  conflict?: { managers: string[]; fields: string[] };
}

/** The object as the run applies it: the manifest plus the identity hash, Job spec hash and ownership stamp. */
export function intentOf(p: PlannedObject, ref: InventoryRef): KubeObject {
  const desired = structuredClone(p.manifest) as unknown as KubeObject;
  desired.metadata.annotations = { ...(desired.metadata.annotations ?? {}), [HASH_ANNOTATION]: p.hash };
  if (p.kind === 'Job') desired.metadata.annotations[SPEC_HASH] = jobSpecHash(desired);
  return stampOwner(desired, ref);
}

type Obj = Record<string, unknown>;

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v !== null && typeof v === 'object') {
    const out: Obj = {};
    for (const k of Object.keys(v as Obj).sort()) out[k] = sortKeys((v as Obj)[k]);
    return out;
  }
  return v;
}

/** Whether applying `desired` changed nothing visible compared to `live` (metadata noise ignored). */
export function sameContent(a: KubeObject, b: KubeObject): boolean {
  const strip = (o: KubeObject) => {
    const { metadata, status: _status, ...rest } = o;
    return JSON.stringify(
      sortKeys({ ...rest, labels: metadata.labels ?? {}, annotations: metadata.annotations ?? {} }),
    );
  };
  return strip(a) === strip(b);
}

export interface DecideOptions {
  ref: InventoryRef;
  fieldManager: string;
  force: boolean;
  /**
   * Dry-run apply changed intents too, to see conflicts before the run (the plan does;
   * the run applies them for real and meets the conflict there).
   */
  probeUpdates: boolean;
}

function conflictOf(err: unknown): ObjectDecision['conflict'] | undefined {
  if (!(isApiError(err) && err.isApplyConflict)) return undefined;
  return { managers: err.conflictingManagers, fields: err.conflicts.map((c) => c.field) };
}

/**
 * Decides one object against its live state (`undefined`: absent). Ceded paths are
 * left out of the comparison on both sides: the run hands them over before applying,
 * and afterwards they are no longer kgraph's to compare.
 */
export async function decideObject(
  client: RestClient,
  p: PlannedObject,
  live: KubeObject | undefined,
  opts: DecideOptions,
): Promise<ObjectDecision> {
  if (p.import) return { action: 'import' };
  if (!live) return { action: 'create' };
  const owner = ownerOf(live, opts.ref);
  if (owner.kind === 'other' && !opts.force) {
    return {
      action: 'owned-elsewhere',
      detail: `applied by deploy ${owner.owner}; remove it from one of the two packages, or pass --force to take it over`,
    };
  }
  const desired = intentOf(p, opts.ref);
  if (p.kind === 'Job') {
    const job = decideJob(desired, live);
    if (job === 'refuse') {
      return {
        action: 'refused',
        detail:
          "the Job spec changed but a Job's pod template is immutable; give the Job a content-hashed name or annotate it kix.run/rerun: on-change",
      };
    }
    if (job === 'rerun')
      return { action: 'rerun', detail: 'spec changed: the old Job is deleted and run again' };
  }
  const ceded = cededPaths(desired);
  const intent = stripCeded(desired, ceded);
  const intentUnchanged = live.metadata.annotations?.[HASH_ANNOTATION] === p.hash;
  if (!intentUnchanged && !opts.probeUpdates) return { action: 'update' };
  let dry: KubeObject;
  try {
    dry = await client.apply(intent, { fieldManager: opts.fieldManager, dryRun: true, force: opts.force });
  } catch (err) {
    const conflict = conflictOf(err);
    if (!conflict) throw err;
    return {
      action: 'conflict',
      conflict,
      detail: `${intentUnchanged ? 'changed out of band' : 'fields owned'} by ${conflict.managers.join(', ')} at ${conflict.fields.join(', ')}; deploy with --force to take them over`,
    };
  }
  if (!intentUnchanged) return { action: 'update' };
  if (sameContent(stripCeded(dry, ceded), stripCeded(live, ceded))) return { action: 'unchanged' };
  return { action: 'drift', detail: 'live object differs from the unchanged intent; the run repairs it' };
}

export type PruneAction =
  | 'prune'
  /** A CRD, Namespace or data holder: kept without --prune-protected. */
  | 'protected'
  /** Not stamped by this inventory: never deleted, and forgotten. */
  | 'not-owned'
  /** Already deleted: forgotten. */
  | 'gone';

export interface PruneDecision {
  key: string;
  entry: InventoryEntry;
  action: PruneAction;
  detail?: string;
}

/** Whether an entry stays in the inventory after the run. */
export const keepsEntry = (d: PruneDecision): boolean => d.action === 'protected';

export async function decidePrunes(
  client: RestClient,
  previous: readonly InventoryEntry[],
  current: readonly InventoryEntry[],
  opts: { ref: InventoryRef; pruneProtected: boolean },
): Promise<PruneDecision[]> {
  const out: PruneDecision[] = [];
  for (const entry of pruneCandidates([...previous], [...current])) {
    const key = entryKey(entry);
    let live: KubeObject | undefined;
    try {
      live = await client.getOrUndefined({
        apiVersion: entry.apiVersion,
        kind: entry.kind,
        namespace: entry.namespace,
        name: entry.name,
      });
    } catch (err) {
      // The kind is no longer served (its CRD was deleted): so are its objects.
      if (err instanceof Error && /no kind|NoKindMatch|not found in discovery/i.test(err.message))
        live = undefined;
      else throw err;
    }
    if (!live) {
      out.push({ key, entry, action: 'gone', detail: 'already deleted' });
      continue;
    }
    const owner = ownerOf(live, opts.ref);
    if (owner.kind !== 'ours') {
      out.push({
        key,
        entry,
        action: 'not-owned',
        detail:
          owner.kind === 'other'
            ? `not pruned: it now belongs to deploy ${owner.owner}`
            : 'not pruned: it carries no kix.run/inventory stamp of this deploy (delete it by hand if it is yours)',
      });
      continue;
    }
    const isProtected =
      entry.kind === 'CustomResourceDefinition' || entry.kind === 'Namespace' || entry.holdsData === true;
    if (isProtected && !opts.pruneProtected) {
      out.push({
        key,
        entry,
        action: 'protected',
        detail: 'not pruned: CRDs, Namespaces and data holders need --prune-protected',
      });
      continue;
    }
    out.push({ key, entry, action: 'prune' });
  }
  return out;
}
