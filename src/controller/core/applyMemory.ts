/**
 * Zero writes in steady state, also after a restart: decides whether an apply would
 * change anything, without writing.
 *
 * 1. Locally (ownership.ts over serverValues.ts): our manager owns exactly the desired fields and the
 *    observed values are what the server stores for the desired ones.
 * 2. From memory: after each apply (and each dry run that changed nothing) we remember, per object,
 *    manager and endpoint, the digest of the desired object and the resourceVersion it left. The same
 *    desired object on the same resourceVersion is a no-op, whatever the server rewrote.
 * 3. Undecidable otherwise — the object was applied by our manager before, nothing is remembered (a
 *    restarted controller) and the local comparison disagrees — one server-side dry-run apply (as the
 *    Graph's ServiceAccount, counted as `dryrun`, never stored) tells what the server would store. If
 *    that is what it holds, the answer is remembered for that resourceVersion: asked once per object
 *    version, not per reconcile.
 *
 * A desired object that differs from the remembered one is applied at once (no dry run), and so is
 * one the manager never applied (creation, take-over).
 */
import { createHash } from 'node:crypto';
import { isApiError, type KubeObject, type RestClient } from '../../kube/index.ts';
import { canonicalKey } from '../../runtime/canonical.ts';
import { identityKey, identityOf } from '../../runtime/observed.ts';
import { appliedFieldsAgree, managerEntry } from './applyNeeded.ts';
import { jsonEqual } from './jsonEqual.ts';

export interface ApplyTarget {
  /** The apply body (its identity addresses the object). */
  desired: Record<string, unknown>;
  /** What the cache holds for it (undefined: not there). */
  observed: Record<string, unknown> | undefined;
  manager: string;
  /** '' (main resource) or 'status'. */
  subresource: string;
  force: boolean;
}

/** How `needsApply` decided (stats; tests). */
export interface ApplyMemoryStats {
  local: number;
  remembered: number;
  dryRuns: number;
  dryRunNoops: number;
}

interface Remembered {
  digest: string;
  rv: string;
}

const MAX_ENTRIES = 200_000;

function digestOf(obj: Record<string, unknown>): string {
  return createHash('sha256').update(canonicalKey(obj)).digest('hex').slice(0, 32);
}

function rvOf(o: Record<string, unknown> | undefined): string | undefined {
  const rv = (o?.metadata as { resourceVersion?: unknown } | undefined)?.resourceVersion;
  return typeof rv === 'string' ? rv : undefined;
}

/**
 * The object without what a no-op apply may legitimately differ in (resourceVersion, field times),
 * and with only the managedFields entries of `managers` when given.
 */
function stored(o: Record<string, unknown>, managers?: ReadonlySet<string>): Record<string, unknown> {
  const meta = { ...(o.metadata as Record<string, unknown> | undefined) };
  delete meta.resourceVersion;
  if (Array.isArray(meta.managedFields)) {
    meta.managedFields = meta.managedFields
      .filter((e) => !managers || managers.has(String((e as { manager?: unknown }).manager ?? '')))
      .map((e) => {
        const { time: _t, ...rest } = e as Record<string, unknown>;
        return rest;
      });
  }
  return { ...o, metadata: meta };
}

/**
 * A dry run left the object as observed. With `manager`, the observed object may come from a cache that keeps only
 * some managers' entries (watches.ts `keepManager`): the dry run's entries are compared for those
 * managers and the applying one (an apply that changes another manager's entry changes its own too).
 */
export function sameStored(
  dryRun: Record<string, unknown>,
  observed: Record<string, unknown>,
  manager?: string,
): boolean {
  if (manager === undefined) return jsonEqual(stored(dryRun), stored(observed));
  const entries = (observed.metadata as { managedFields?: unknown } | undefined)?.managedFields;
  const managers = new Set<string>(
    Array.isArray(entries) ? entries.map((e) => String((e as { manager?: unknown }).manager ?? '')) : [],
  );
  managers.add(manager);
  return jsonEqual(stored(dryRun, managers), stored(observed, managers));
}

/** `memory.needsApply`, or the local check alone without a memory. */
export async function needsApply(
  writer: RestClient,
  memory: ApplyMemory | undefined,
  t: ApplyTarget,
): Promise<boolean> {
  if (memory) return memory.needsApply(writer, t);
  return !(t.observed && appliedFieldsAgree(t.desired, t.observed, t.manager, t.subresource));
}

export class ApplyMemory {
  private readonly entries = new Map<string, Remembered>();
  readonly stats: ApplyMemoryStats = { local: 0, remembered: 0, dryRuns: 0, dryRunNoops: 0 };

  private keyOf(desired: Record<string, unknown>, manager: string, subresource: string): string | undefined {
    const id = identityOf(desired);
    return id ? `${identityKey(id)}|${manager}|${subresource}` : undefined;
  }

  /** Whether applying `t.desired` would change the object; `writer` sends the dry run if one is needed. */
  async needsApply(writer: RestClient, t: ApplyTarget): Promise<boolean> {
    if (!t.observed) return true;
    if (appliedFieldsAgree(t.desired, t.observed, t.manager, t.subresource)) {
      this.stats.local += 1;
      return false;
    }
    const key = this.keyOf(t.desired, t.manager, t.subresource);
    const rv = rvOf(t.observed);
    if (!key || rv === undefined) return true;
    const digest = digestOf(t.desired);
    const known = this.entries.get(key);
    if (known && known.digest === digest && known.rv === rv) {
      this.stats.remembered += 1;
      return false;
    }
    if (known && known.digest !== digest) return true; // the desired object changed
    if (!managerEntry(t.observed, t.manager, t.subresource)) return true; // never applied by us
    this.stats.dryRuns += 1;
    let result: KubeObject;
    try {
      const body = t.desired as KubeObject;
      const opts = { fieldManager: t.manager, force: t.force, dryRun: true };
      result =
        t.subresource === 'status' ? await writer.applyStatus(body, opts) : await writer.apply(body, opts);
    } catch (e) {
      if (isApiError(e)) return true; // a conflict or a refusal: the real apply reports it
      throw e;
    }
    if (!sameStored(result, t.observed, t.manager)) return true;
    this.stats.dryRunNoops += 1;
    this.set(key, { digest, rv });
    return false;
  }

  /** Records what an apply of `desired` left (`result`, the server's answer). */
  remember(desired: Record<string, unknown>, result: KubeObject, manager: string, subresource: string): void {
    const key = this.keyOf(desired, manager, subresource);
    const rv = rvOf(result);
    if (key && rv !== undefined) this.set(key, { digest: digestOf(desired), rv });
  }

  private set(key: string, r: Remembered): void {
    this.entries.delete(key);
    this.entries.set(key, r);
    while (this.entries.size > MAX_ENTRIES) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
  }

  get size(): number {
    return this.entries.size;
  }
}
