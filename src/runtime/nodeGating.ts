/**
 * Whether a node runs and whether it is ready (design/graph.md §7.5, §9, §10): contagion from excluded
 * dependencies, gating on pending or failed ones, `includeWhen` and `readyWhen` conditions.
 */

import type { CompiledNode, ExprSlot } from '../graph/model.ts';
import { RuntimeCode } from './codes.ts';
import { excludedResult, issue, pendingResult } from './nodeResult.ts';
import type { FrameRun, Pass } from './pass.ts';
import { describe, ExprStop, evalStandalone, type Steps, type Vars } from './payload.ts';
import type { NodeResult } from './types.ts';
import { isOptionalValue } from './values.ts';

/** Contagion (design/graph.md §9): an excluded dependency excludes the node without evaluating it. */
export function contagion(run: FrameRun, node: CompiledNode): NodeResult | undefined {
  for (const dep of node.dependencies) {
    if (run.states.get(dep)?.state === 'excluded') {
      return excludedResult(node, dep, `dependency "${dep}" is excluded`);
    }
  }
  return undefined;
}

/** Gating (design/graph.md §7.5): whether the given dependencies let the node run; a pending result when not. */
export function gate(
  pass: Pass,
  run: FrameRun,
  node: CompiledNode,
  deps: readonly string[],
): NodeResult | undefined {
  for (const dep of deps) {
    const r = run.states.get(dep);
    if (r === undefined) {
      if (dep === 'schema' && pass.compiled.rgd !== undefined && !Object.hasOwn(run.scope, 'schema')) {
        return pendingResult(
          node,
          issue(node, RuntimeCode.DataPending, 'data pending: the instance (schema) is not available', {
            reference: 'schema',
          }),
        );
      }
      continue;
    }
    if (r.state === 'error') {
      return pendingResult(
        node,
        issue(node, RuntimeCode.DependencyPending, `dependency "${dep}" failed`, { reference: dep }),
      );
    }
    if (r.state === 'pending') {
      return pendingResult(
        node,
        issue(node, RuntimeCode.DependencyPending, `dependency "${dep}" is pending`, { reference: dep }),
      );
    }
    if (pass.compiled.gating === 'ready' && r.state !== 'ready' && r.state !== 'excluded') {
      return pendingResult(
        node,
        issue(node, RuntimeCode.DependencyNotReady, `waiting for dependency "${dep}" to become ready`, {
          reference: dep,
        }),
      );
    }
  }
  return undefined;
}

/** The dependencies read by the node's includeWhen expressions. */
export function includeWhenDeps(node: CompiledNode): string[] {
  const deps = new Set<string>();
  for (const slot of node.includeWhen) {
    for (const part of slot.parts) {
      if (typeof part === 'string') continue;
      for (const ref of part.refs) {
        if ((ref.kind === 'node' || ref.kind === 'schema') && node.dependencies.includes(ref.name))
          deps.add(ref.name);
      }
    }
  }
  return [...deps];
}

/** Evaluates an includeWhen / readyWhen slot to a boolean; an absent optional counts as false (design/graph.md §10). */
export function* conditionValue(pass: Pass, slot: ExprSlot, vars: Vars, where: string): Steps<boolean> {
  let v = yield* evalStandalone(pass.host, slot, vars);
  if (isOptionalValue(v)) v = v.hasValue() ? v.value() : false;
  if (typeof v !== 'boolean') {
    throw new ExprStop(
      'error',
      RuntimeCode.NotBool,
      `${where} must return bool, ${slot.source} returned ${describe(v)}`,
      slot.source,
      where,
    );
  }
  return v;
}

/** Readiness of one item (design/graph.md §10): AND of readyWhen with the node id and `each` bound to the value. */
export function* itemReadiness(
  pass: Pass,
  node: CompiledNode,
  value: unknown,
): Steps<{ ready: boolean; reason?: string }> {
  const vars: Vars = { [node.id]: value, each: value };
  for (const [i, slot] of node.readyWhen.entries()) {
    try {
      if (!(yield* conditionValue(pass, slot, vars, `readyWhen[${i}]`))) {
        return { ready: false, reason: `readyWhen ${slot.source} is false` };
      }
    } catch (err) {
      // Data pending in readyWhen means not ready (requeue), not an error (design/graph.md §10).
      if (err instanceof ExprStop && err.kind === 'pending') {
        return { ready: false, reason: `readyWhen ${slot.source} is pending: ${err.message}` };
      }
      throw err;
    }
  }
  return { ready: true };
}
