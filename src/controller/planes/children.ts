/**
 * Children of one instance on one plane, found by their GC labels over a recorded GVK union (
 * design/planes.md §12): listing, pruning what a complete pass did not apply, and deleting everything (instance deletion,
 * the sweeper, deregistration). Objects without the labels or with another instance's UID are never
 * listed, so never touched (design/planes.md §12.1); `externalRef` targets carry no labels.
 */
import { kubectlNameIn } from '../../diag/objectName.ts';
import { isApiError, isNotFound, type KubeObject, type RestClient } from '../../kube/index.ts';
import { identityKey } from '../../runtime/observed.ts';
import { errorMessage } from '../core/errors.ts';
import { parseGvkToken } from './liveness.ts';

export interface PlaneChildren {
  token: string;
  items: KubeObject[];
}

/** Lists the labelled children of every token (`gvk` or `gvk@namespace`); unknown kinds list nothing. */
export async function listChildren(
  client: RestClient,
  tokens: readonly string[],
  selector: string,
): Promise<PlaneChildren[]> {
  const out: PlaneChildren[] = [];
  for (const token of tokens) {
    const t = parseGvkToken(token);
    if (!t) continue;
    try {
      const { items } = await client.listAll(
        { apiVersion: t.apiVersion, kind: t.kind, ...(t.namespace ? { namespace: t.namespace } : {}) },
        { labelSelector: selector },
      );
      out.push({ token, items });
    } catch (e) {
      if ((e instanceof Error && e.name === 'NoKindMatchError') || isNotFound(e)) {
        out.push({ token, items: [] });
        continue;
      }
      throw e;
    }
  }
  return out;
}

export function childKey(o: KubeObject): string {
  const ns = o.metadata.namespace;
  return identityKey({
    apiVersion: o.apiVersion ?? '',
    kind: o.kind ?? '',
    ...(ns ? { namespace: ns } : {}),
    name: o.metadata.name ?? '',
  });
}

export interface PruneResult {
  deleted: string[];
  /** Identity key → the object as kubectl names it, for every deleted one. */
  names: Map<string, string>;
  /** Identity keys of objects left because another plane of the same pass applied them (their UID). */
  spared: string[];
  errors: string[];
  /** Tokens that still have labelled objects (they stay in the union). */
  stillPresent: Set<string>;
}

/**
 * Deletes every listed child whose identity is not in `keep` (undefined: delete all), each with its UID
 * as precondition. `allowed(token)` may veto a token (consumer claims no longer accepted). An object whose
 * UID is in `spare` is never deleted and does not keep its token in this plane's union: it is another
 * plane's live child, seen here because both plane names reach one cluster (design/planes.md §12.1).
 */
export async function deleteChildren(
  client: RestClient,
  tokens: readonly string[],
  selector: string,
  keep: ReadonlySet<string> | undefined,
  allowed: (token: string, namespace: string) => Promise<boolean> = async () => true,
  spare: ReadonlySet<string> = new Set(),
): Promise<PruneResult> {
  const res: PruneResult = { deleted: [], names: new Map(), spared: [], errors: [], stillPresent: new Set() };
  let listed: PlaneChildren[];
  try {
    listed = await listChildren(client, tokens, selector);
  } catch (e) {
    res.errors.push(`list children: ${errorMessage(e)}`);
    for (const t of tokens) res.stillPresent.add(t);
    return res;
  }
  for (const { token, items } of listed) {
    for (const o of items) {
      const k = childKey(o);
      if (keep?.has(k)) {
        res.stillPresent.add(token);
        continue;
      }
      if (o.metadata.uid && spare.has(o.metadata.uid)) {
        res.spared.push(k);
        continue;
      }
      if (!(await allowed(token, o.metadata.namespace ?? ''))) {
        res.stillPresent.add(token);
        continue;
      }
      try {
        await client.delete(
          {
            apiVersion: o.apiVersion ?? '',
            kind: o.kind ?? '',
            ...(o.metadata.namespace ? { namespace: o.metadata.namespace } : {}),
            name: o.metadata.name ?? '',
          },
          { preconditions: { uid: o.metadata.uid ?? '' }, propagationPolicy: 'Background' },
        );
        res.deleted.push(k);
        res.names.set(
          k,
          kubectlNameIn({
            apiVersion: o.apiVersion ?? '',
            kind: o.kind ?? '',
            ...(o.metadata.namespace ? { namespace: o.metadata.namespace } : {}),
            name: o.metadata.name ?? '',
          }),
        );
      } catch (e) {
        if (isNotFound(e) || (isApiError(e) && e.code === 409)) continue;
        res.errors.push(`delete ${k}: ${errorMessage(e)}`);
        res.stillPresent.add(token);
      }
    }
  }
  return res;
}
