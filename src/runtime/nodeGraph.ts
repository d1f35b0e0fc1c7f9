/**
 * Nested graphs (design/graph.md §14.1): a `graph` node runs its children in a frame of their own, and
 * one that does not run reports its descendants in its own state. The frame driver is passed in, so this
 * module does not import the walk that imports it.
 */

import type { CompiledNode } from '../graph/model.ts';
import { frameNode } from '../graph/model.ts';
import { RuntimeCode } from './codes.ts';
import { base, errorResult, excludedResult, issue, pendingResult } from './nodeResult.ts';
import type { FrameRun, Pass } from './pass.ts';
import type { Steps } from './payload.ts';
import type { NodeResult } from './types.ts';

/** Runs a frame to the end: `runFrame` in `walk.ts`. */
export type FrameDriver = (pass: Pass, run: FrameRun) => Steps<void>;

/** An inline subgraph (design/graph.md §14.1): a child frame seeded with a copy of the parent scope. */
export function* runGraphNode(
  pass: Pass,
  run: FrameRun,
  node: CompiledNode,
  runFrame: FrameDriver,
): Steps<NodeResult> {
  if (node.children === undefined) {
    return errorResult(
      node,
      issue(node, RuntimeCode.Unsupported, `graph node "${node.path}" has no children`),
    );
  }
  const child: FrameRun = { frame: node.children, scope: { ...run.scope }, states: new Map() };
  yield* runFrame(pass, child);
  // The graph node's value: its children's published values, addressed as ${graphId.childId…}.
  const value: Record<string, unknown> = {};
  for (const c of node.children.nodes) {
    if (child.states.get(c.id) !== undefined && Object.hasOwn(child.scope, c.id)) {
      value[c.id] = child.scope[c.id];
    }
  }
  run.scope[node.id] = value;
  const direct = node.children.nodes.map((c) => child.states.get(c.id)).filter((r): r is NodeResult => !!r);
  const worst =
    direct.find((r) => r.state === 'error') ??
    direct.find((r) => r.state === 'pending') ??
    direct.find((r) => r.state === 'waiting');
  const result: NodeResult = { ...base(node, 'ready'), ready: worst === undefined };
  if (worst !== undefined) {
    result.state = worst.state;
    result.reason = `${worst.path}: ${worst.reason ?? worst.state}`;
    if (worst.code !== undefined) result.code = worst.code;
  }
  return result;
}

export function reportDescendants(pass: Pass, graphNode: CompiledNode, outer: NodeResult): void {
  const frame = graphNode.children!;
  for (const id of frame.order) {
    const child = frameNode(frame, id);
    if (child === undefined) continue;
    const reason = `graph "${graphNode.path}" is ${outer.state}`;
    const r =
      outer.state === 'excluded'
        ? excludedResult(child, graphNode.path, reason)
        : pendingResult(
            child,
            issue(child, RuntimeCode.DependencyPending, reason, { reference: graphNode.path }),
          );
    pass.results.push(r);
    if (child.kind === 'graph' && child.children !== undefined) reportDescendants(pass, child, r);
  }
}
