/**
 * Instance deletion through the `kro.run/finalizer` finalizer (design/graph.md §22.2): children,
 * found from the ApplySet inventory alone (no compile, no CEL), are deleted in waves by descending
 * `internal.kro.run/apply-order` — dependents first — and a wave must be gone completely (its own
 * finalizers included) before the next one starts. Children without a valid order form the last wave.
 * Deletes are preconditioned on UID. `externalRef` targets are never children, so never deleted.
 */
import type { Logger } from 'pino';
import type { RestClient } from '../../kube/index.ts';
import { identityKey } from '../../runtime/observed.ts';
import { idOf } from '../core/desired.ts';
import { errorMessage, isGoneError } from '../core/errors.ts';
import { resourceKey } from '../core/inventory.ts';
import { ANNOTATION_APPLY_ORDER } from '../core/names.ts';
import type { Interest, WatchSet } from '../core/watches.ts';
import type { Child } from './children.ts';

export interface WaveOutcome {
  /** Nothing left: the finalizer may go. */
  done: boolean;
  /** The apply order of the wave being deleted (-1: the unordered last wave). */
  wave?: number;
  /** Objects of the current wave still present. */
  remaining: string[];
  errors: string[];
}

export function applyOrderOf(c: Child): number {
  const raw = c.obj.metadata.annotations?.[ANNOTATION_APPLY_ORDER];
  const n = raw === undefined ? Number.NaN : Number(raw);
  return Number.isInteger(n) && n >= 0 ? n : -1;
}

/** Deletes the highest remaining wave; call again until `done`. */
export async function deleteNextWave(
  writer: RestClient,
  watches: WatchSet,
  log: Logger,
  children: Child[],
  interest: Interest,
): Promise<WaveOutcome> {
  if (children.length === 0) return { done: true, remaining: [], errors: [] };
  const wave = Math.max(...children.map(applyOrderOf));
  const members = children.filter((c) => applyOrderOf(c) === wave);
  const remaining: string[] = [];
  const errors: string[] = [];
  for (const c of members) {
    interest.gets.add(identityKey(idOf(c)));
    remaining.push(resourceKey(c));
    if (c.obj.metadata.deletionTimestamp) continue; // already deleting: wait for its finalizers
    try {
      await writer.delete(
        { apiVersion: c.apiVersion, kind: c.kind, namespace: c.namespace, name: c.name },
        { preconditions: { uid: c.uid }, propagationPolicy: 'Background' },
      );
      watches.noteDeleted(idOf(c), c.uid);
      log.info({ resource: resourceKey(c), wave }, 'deleted');
    } catch (e) {
      if (isGoneError(e)) continue;
      errors.push(`delete ${resourceKey(c)}: ${errorMessage(e)}`);
    }
  }
  return { done: false, wave, remaining, errors };
}
