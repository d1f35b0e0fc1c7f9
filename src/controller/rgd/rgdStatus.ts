/**
 * The RGD status (design/rgd.md §19.2, design/graph.md §21.2): conditions GraphAccepted, KindReady, ControllerReady
 * and the root Ready, `state` Active | Inactive, the topological order and each resource's
 * dependencies. Pure.
 */
import type { CompiledGraph } from '../../graph/model.ts';
import { type Condition, type ConditionStatus, condition } from '../core/conditions.ts';
import { jsonEqual } from '../core/jsonEqual.ts';
import { conditionJson } from './instanceStatus.ts';
import { KRO_MESSAGES } from './kroMessages.ts';

export interface RgdStatus {
  state: 'Active' | 'Inactive';
  topologicalOrder: string[];
  resources: { id: string; dependencies: { id: string }[] }[];
  conditions: Condition[];
  /** The newest GraphRevision number issued for this RGD's name (design/rgd.md §19.5); absent: none yet. */
  lastIssuedRevision?: number;
}

export interface Part {
  status: ConditionStatus;
  reason: string;
  message: string;
}

export function rgdConditions(
  previous: readonly Condition[],
  parts: { revisions?: Part; accepted: Part; kind: Part; controller: Part },
  generation: number,
  now: () => string,
): Condition[] {
  const mk = (type: string, p: Part) =>
    condition(previous, type, p.status, p.reason, p.message, generation, now);
  // kro's order: GraphRevisionsResolved first (only once revisions are served and one was issued).
  const revisions = parts.revisions ? [mk('GraphRevisionsResolved', parts.revisions)] : [];
  const accepted = mk('GraphAccepted', parts.accepted);
  const kind = mk('KindReady', parts.kind);
  const controller = mk('ControllerReady', parts.controller);
  const worst = [...revisions, accepted, kind, controller].find((c) => c.status !== 'True');
  const ready = worst
    ? mk('Ready', {
        status: worst.status === 'Unknown' ? 'Unknown' : 'False',
        reason: worst.reason,
        message: worst.message,
      })
    : mk('Ready', { status: 'True', reason: 'Ready', message: KRO_MESSAGES.ready });
  return [...revisions, accepted, kind, controller, ready];
}

/** Order and dependencies of the root frame (the synthetic `schema` / `instance` nodes are not listed). */
export function graphShape(
  compiled: CompiledGraph | undefined,
): Pick<RgdStatus, 'topologicalOrder' | 'resources'> {
  if (!compiled) return { topologicalOrder: [], resources: [] };
  const nodes = compiled.root.order
    .map((id) => compiled.root.nodes[compiled.root.index[id] ?? -1])
    .filter((n) => n !== undefined);
  return {
    topologicalOrder: [...compiled.root.order],
    resources: nodes.map((n) => ({
      id: n.id,
      dependencies: n.dependencies.filter((d) => d !== 'schema').map((id) => ({ id })),
    })),
  };
}

export function rgdStatusJson(s: RgdStatus): Record<string, unknown> {
  return {
    state: s.state,
    topologicalOrder: s.topologicalOrder,
    resources: s.resources,
    conditions: s.conditions.map(conditionJson),
    ...(s.lastIssuedRevision ? { lastIssuedRevision: s.lastIssuedRevision } : {}),
  };
}

export function rgdStatusMatches(rgd: Record<string, unknown>, s: RgdStatus): boolean {
  const cur = typeof rgd.status === 'object' && rgd.status !== null ? rgd.status : {};
  return jsonEqual(cur, rgdStatusJson(s));
}
