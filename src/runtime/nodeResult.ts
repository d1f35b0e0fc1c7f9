/**
 * The result of one node (design/graph.md §7): the constructors every node step returns through, so a state
 * (`excluded`, `pending`, `waiting`, `ready`, `error`) is always built with the same fields, and the
 * conversion of rendered values to exact JSON.
 */

import { KgraphError } from '../diag/diagnostic.ts';
import type { CompiledNode } from '../graph/model.ts';
import { RuntimeCode } from './codes.ts';
import { ExprStop, OMITTED } from './payload.ts';
import type { NodeResult, RenderedObject, RuntimeIssue } from './types.ts';
import { celToPlain, type PlainValue } from './values.ts';

export function placeholder(node: CompiledNode): NodeResult {
  return base(node, 'pending');
}

export function base(node: CompiledNode, state: NodeResult['state']): NodeResult {
  return {
    id: node.id,
    path: node.path,
    kind: node.kind,
    target: node.target,
    state,
    collection: node.forEach.length > 0,
    objects: [],
    items: [],
    ready: state === 'excluded',
    applyLayer: node.applyLayer,
  };
}

export function issue(
  node: CompiledNode,
  code: string,
  message: string,
  extra: Partial<RuntimeIssue> = {},
): RuntimeIssue {
  return { code, message, node: node.path, ...extra };
}

export function pendingResult(node: CompiledNode, pending: RuntimeIssue): NodeResult {
  return { ...base(node, 'pending'), reason: pending.message, code: pending.code, pending };
}

export function errorResult(node: CompiledNode, error: RuntimeIssue): NodeResult {
  return { ...base(node, 'error'), reason: error.message, code: error.code, error };
}

export function excludedResult(node: CompiledNode, by: string, reason: string): NodeResult {
  return { ...base(node, 'excluded'), reason, excludedBy: by, ready: true };
}

export function fromStop(node: CompiledNode, stop: ExprStop): NodeResult {
  const extra: Partial<RuntimeIssue> = { expression: stop.expression, field: stop.field };
  if (stop.reference !== undefined) extra.reference = stop.reference;
  const iss = issue(node, stop.code, stop.message, extra);
  return stop.kind === 'pending' ? pendingResult(node, iss) : errorResult(node, iss);
}

/** A node whose type is not served yet (design/graph.md §15): it waits, and keeps what it had. */
export function heldResult(node: CompiledNode, held: string): NodeResult {
  return {
    ...base(node, 'waiting'),
    held: true,
    reason: held,
    code: RuntimeCode.TypeNotServed,
    pending: issue(node, RuntimeCode.TypeNotServed, held),
  };
}

export function summarise(result: NodeResult): NodeResult {
  const notReady = result.items.filter((i) => !i.ready);
  if (notReady.length === 0) return { ...result, state: 'ready', ready: true };
  const first = notReady[0]!;
  const where = result.collection ? `item ${first.index}: ` : '';
  const more = notReady.length > 1 ? ` (${notReady.length} items not ready)` : '';
  return {
    ...result,
    state: 'waiting',
    ready: false,
    reason: `${where}${first.reason ?? 'not ready'}${more}`,
  };
}

export function stripOmit(v: unknown): unknown {
  return v === OMITTED ? null : v;
}

/** CEL value → exact JSON; a value JSON cannot hold (NaN, an unknown type) is a hard error. */
export function toPlain(v: unknown, field: string): PlainValue {
  try {
    return celToPlain(v);
  } catch (err) {
    if (err instanceof KgraphError) throw new ExprStop('error', err.code, err.message, '', field);
    throw err;
  }
}

export function objectOf(v: unknown, node: CompiledNode, index: number): RenderedObject {
  const out: RenderedObject = { value: toPlain(v, node.forEach.length > 0 ? `item ${index}` : '') };
  if (node.forEach.length > 0) out.index = index;
  return out;
}
