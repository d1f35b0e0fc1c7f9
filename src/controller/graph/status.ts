/**
 * The Graph status (design/graph.md §2, §21.1, §22.1): the inventory of managed resources, the
 * patch contributions, the identity used, and the conditions. Parsing is lenient (status is written
 * by us, but a human may have edited it); building is deterministic so unchanged status compares equal.
 */

import { isRecord } from '../../diag/record.ts';
import { type Condition, type ConditionStatus, condition } from '../core/conditions.ts';
import type { Contribution, ManagedResource } from '../core/inventory.ts';
import { jsonEqual } from '../core/jsonEqual.ts';

export interface GraphStatus {
  conditions: Condition[];
  managedResources: ManagedResource[];
  contributions: Contribution[];
  appliedServiceAccount: string;
  observedGeneration?: number;
}

export const MAX_MANAGED_RESOURCES = 5000;

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

export function parseStatus(graph: Record<string, unknown>): GraphStatus {
  const s = isRecord(graph.status) ? graph.status : {};
  const managedResources: ManagedResource[] = [];
  for (const e of Array.isArray(s.managedResources) ? s.managedResources : []) {
    if (!isRecord(e)) continue;
    const apiVersion = str(e.apiVersion);
    const kind = str(e.kind);
    const name = str(e.name);
    if (!apiVersion || !kind || !name) continue;
    const r: ManagedResource = { nodeID: str(e.nodeID) ?? '', apiVersion, kind, name };
    const ns = str(e.namespace);
    if (ns) r.namespace = ns;
    const uid = str(e.uid);
    if (uid) r.uid = uid;
    managedResources.push(r);
  }
  const contributions: Contribution[] = [];
  for (const e of Array.isArray(s.contributions) ? s.contributions : []) {
    if (!isRecord(e)) continue;
    const apiVersion = str(e.apiVersion);
    const kind = str(e.kind);
    const name = str(e.name);
    const fieldManager = str(e.fieldManager);
    if (!apiVersion || !kind || !name || !fieldManager) continue;
    const c: Contribution = { apiVersion, kind, name, subresource: str(e.subresource) ?? '', fieldManager };
    const ns = str(e.namespace);
    if (ns) c.namespace = ns;
    const nodeID = str(e.nodeID);
    if (nodeID) c.nodeID = nodeID;
    contributions.push(c);
  }
  const conditions: Condition[] = [];
  for (const c of Array.isArray(s.conditions) ? s.conditions : []) {
    if (!isRecord(c) || !str(c.type)) continue;
    const status = c.status === 'True' || c.status === 'False' ? c.status : 'Unknown';
    conditions.push({
      type: str(c.type) ?? '',
      status,
      reason: str(c.reason) ?? '',
      message: str(c.message) ?? '',
      observedGeneration: typeof c.observedGeneration === 'number' ? c.observedGeneration : 0,
      lastTransitionTime: str(c.lastTransitionTime) ?? '',
    });
  }
  const out: GraphStatus = {
    conditions,
    managedResources,
    contributions,
    appliedServiceAccount: str(s.appliedServiceAccount) ?? '',
  };
  if (typeof s.observedGeneration === 'number') out.observedGeneration = s.observedGeneration;
  return out;
}

/** The status as written (JSON), with stable key order. */
export function statusJson(s: GraphStatus): Record<string, unknown> {
  const out: Record<string, unknown> = {
    conditions: s.conditions.map((c) => ({ ...c })),
    managedResources: s.managedResources.map((r) => ({ ...r })),
    contributions: s.contributions.map((c) => ({ ...c })),
    appliedServiceAccount: s.appliedServiceAccount,
  };
  if (s.observedGeneration !== undefined) out.observedGeneration = s.observedGeneration;
  return out;
}

export function statusEqual(a: GraphStatus, b: GraphStatus): boolean {
  return jsonEqual(statusJson(a), statusJson(b));
}

/** Ready = Accepted ∧ ResourcesConverged; otherwise a copy of the least healthy of the two (design/graph.md §21.1). */
export function readyCondition(
  previous: readonly Condition[],
  accepted: Condition,
  converged: Condition,
  generation: number,
  now: () => string,
): Condition {
  if (accepted.status === 'True' && converged.status === 'True') {
    return condition(previous, 'Ready', 'True', 'Ready', 'all resources converged', generation, now);
  }
  const worst = accepted.status !== 'True' ? accepted : converged;
  const status: ConditionStatus = worst.status === 'Unknown' ? 'Unknown' : 'False';
  return condition(previous, 'Ready', status, worst.reason, worst.message, generation, now);
}
