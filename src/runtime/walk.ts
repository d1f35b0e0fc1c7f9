/**
 * The pass driver (design/graph.md §7): nodes visited serially in topological order, frame by frame. For each node:
 *   dependencies (contagion, then gating) → includeWhen → forEach → render → observe → readiness,
 * and what the node publishes goes into the frame's scope for its dependents.
 */

import type { CompiledNode } from '../graph/model.ts';
import { frameNode } from '../graph/model.ts';
import { RuntimeCode } from './codes.ts';
import { expandItems } from './nodeCollection.ts';
import { conditionValue, contagion, gate, includeWhenDeps } from './nodeGating.ts';
import { reportDescendants, runGraphNode } from './nodeGraph.ts';
import { runDef, runObjectNode } from './nodeObject.ts';
import { runRef, runWatch } from './nodeRead.ts';
import { errorResult, excludedResult, fromStop, issue, placeholder } from './nodeResult.ts';
import type { FrameRun, Pass } from './pass.ts';
import { ExprStop, type Steps } from './payload.ts';
import type { NodeResult } from './types.ts';

export function* runFrame(pass: Pass, run: FrameRun): Steps<void> {
  for (const id of run.frame.order) {
    const node = frameNode(run.frame, id);
    if (node === undefined) continue;
    const slot = pass.results.length;
    pass.results.push(placeholder(node));
    const result = yield* runNode(pass, run, node);
    pass.results[slot] = result;
    run.states.set(id, result);
    // A graph node that did not run (excluded or pending) still reports its descendants, in the same
    // state, so callers prune (excluded) or keep (pending) their objects by node path.
    if (node.kind === 'graph' && pass.results.length === slot + 1 && node.children !== undefined) {
      if (result.state === 'excluded' || result.state === 'pending') reportDescendants(pass, node, result);
    }
  }
}

function* runNode(pass: Pass, run: FrameRun, node: CompiledNode): Steps<NodeResult> {
  const excluded = contagion(run, node);
  if (excluded !== undefined) return excluded;
  try {
    // includeWhen first, as soon as what it reads is available: a node whose own condition is false
    // is excluded even while its payload still waits for data. AND-ed; pending is not false (design/graph.md §9).
    if (node.includeWhen.length > 0) {
      const gated = gate(pass, run, node, includeWhenDeps(node));
      if (gated !== undefined) return gated;
      for (const [i, slot] of node.includeWhen.entries()) {
        const v = yield* conditionValue(pass, slot, run.scope, `includeWhen[${i}]`);
        if (!v) {
          return excludedResult(node, node.path, `includeWhen ${slot.source} is false`);
        }
      }
    }
    const gated = gate(pass, run, node, node.dependencies);
    if (gated !== undefined) return gated;
    if (node.kind === 'graph') return yield* runGraphNode(pass, run, node, runFrame);
    const items = yield* expandItems(pass, node, run.scope);
    if ('state' in items) return items;
    switch (node.kind) {
      case 'def':
        return yield* runDef(pass, run, node, items);
      case 'template':
      case 'patch':
        return yield* runObjectNode(pass, run, node, items);
      case 'ref':
      case 'externalRef':
        return yield* runRef(pass, run, node);
      case 'watch':
        return yield* runWatch(pass, run, node);
      default:
        return errorResult(node, issue(node, RuntimeCode.Unsupported, `unsupported node kind ${node.kind}`));
    }
  } catch (err) {
    if (err instanceof ExprStop) return fromStop(node, err);
    throw err;
  }
}
