/**
 * What `kgraph rollout status|promote|pause|resume|abort|retry|undo RGD` does (design/rgd.md §19.8): each
 * command edits the GraphRollout's spec (the controller acts on it and records the result in the status),
 * `undo` puts the stable revision's spec back into the RGD. Read with `rolloutSummary`.
 */
import type { KubeObject, RestClient } from '../../../kube/index.ts';
import { GRAPH_REVISION_API_VERSION, GRAPH_REVISION_KIND, RGD_API_VERSION, RGD_KIND } from '../names.ts';
import { graphRevisionName } from '../revisionName.ts';
import { ROLLOUT_API_VERSION, ROLLOUT_KIND } from './names.ts';

export type RolloutActionErrorCode = 'RolloutNotFound' | 'NothingToUndo' | 'RevisionNotFound';

export class RolloutActionError extends Error {
  readonly code: RolloutActionErrorCode;
  constructor(code: RolloutActionErrorCode, message: string) {
    super(message);
    this.name = 'RolloutActionError';
    this.code = code;
  }
}

export type RolloutAction = 'promote' | 'pause' | 'resume' | 'abort' | 'retry' | 'undo';

const target = (name: string) => ({ apiVersion: ROLLOUT_API_VERSION, kind: ROLLOUT_KIND, name });

export async function getRollout(client: RestClient, name: string): Promise<KubeObject> {
  const ro = await client.getOrUndefined(target(name));
  if (!ro) throw new RolloutActionError('RolloutNotFound', `GraphRollout ${name} not found`);
  return ro;
}

interface StatusView {
  stableRevision?: number;
  targetRevision?: number;
  phase?: string;
  step?: number;
  message?: string;
  counts?: Record<string, number>;
  failed?: string[];
}

/** The rollout's status as lines for a terminal. */
export function rolloutSummary(ro: KubeObject): string {
  const s = (ro.status ?? {}) as StatusView;
  const steps = ((ro.spec as { steps?: unknown[] } | undefined)?.steps ?? []).length;
  const c = s.counts ?? {};
  const lines = [
    `GraphRollout ${ro.metadata.name}`,
    `  phase:    ${s.phase ?? 'Unknown'}${s.message ? ` (${s.message})` : ''}`,
    `  revision: stable ${s.stableRevision ?? '-'}, target ${s.targetRevision ?? '-'}`,
    `  step:     ${Math.min(s.step ?? 0, steps)}/${steps}`,
    `  fleet:    ${c.total ?? 0} instances, ${c.pinned ?? 0} pinned; updated ${c.updated ?? 0}, ready ${c.ready ?? 0}, failed ${c.failed ?? 0}`,
  ];
  if (s.failed && s.failed.length > 0) lines.push(`  failed:   ${s.failed.join(', ')}`);
  return `${lines.join('\n')}\n`;
}

/** Applies one action; returns the rollout (or, for undo, the RGD) as written. */
export async function rolloutAction(
  client: RestClient,
  name: string,
  action: RolloutAction,
): Promise<KubeObject> {
  const ro = await getRollout(client, name);
  const spec = (ro.spec ?? {}) as { retry?: number };
  const status = (ro.status ?? {}) as StatusView;
  const patch = (p: Record<string, unknown>) => client.patch(target(name), { spec: p });
  switch (action) {
    case 'promote':
      // Releases the pause the rollout is at (and any before it); a later pause still waits.
      return patch({
        promoted: { revision: status.targetRevision ?? 0, step: status.step ?? 0 },
        paused: false,
      });
    case 'pause':
      return patch({ paused: true });
    case 'resume':
      return patch({ paused: false });
    case 'abort':
      return patch({ abortRevision: status.targetRevision ?? 0 });
    case 'retry':
      // A merge patch's null removes the field: the abort is lifted.
      return patch({ abortRevision: null, retry: (spec.retry ?? 0) + 1 });
    case 'undo':
      return undo(client, name, status);
  }
}

/** Puts the stable revision's spec back into the RGD: the latest revision becomes what is stable again. */
async function undo(client: RestClient, name: string, status: StatusView): Promise<KubeObject> {
  const stable = status.stableRevision;
  if (stable === undefined || status.targetRevision === undefined)
    throw new RolloutActionError('NothingToUndo', `GraphRollout ${name} has no rollout to undo`);
  const rev = await client.getOrUndefined({
    apiVersion: GRAPH_REVISION_API_VERSION,
    kind: GRAPH_REVISION_KIND,
    name: graphRevisionName(name, stable),
  });
  const snapshot = (rev?.spec as { snapshot?: { spec?: unknown } } | undefined)?.snapshot?.spec;
  if (!snapshot)
    throw new RolloutActionError(
      'RevisionNotFound',
      `GraphRevision ${graphRevisionName(name, stable)} not found`,
    );
  return client.patch(
    { apiVersion: RGD_API_VERSION, kind: RGD_KIND, name },
    [{ op: 'replace', path: '/spec', value: snapshot }],
    { type: 'json' },
  );
}
