/**
 * The compiled expressions of a graph with their ranges in the text: hover shows the type the checker
 * inferred for the `${…}` under the cursor.
 */
import { resolveSourceAt, slotLocations } from '../graph/compile.ts';
import type { CompiledExpr, CompiledGraph, ExprSlot, ValueNode } from '../graph/model.ts';
import { allNodes } from './scope.ts';

export interface LocatedExpr {
  expr: CompiledExpr;
  /** File offsets of `${` and just past `}`. */
  start: number;
  end: number;
}

function slotsOf(graph: CompiledGraph): ExprSlot[] {
  const out: ExprSlot[] = [];
  const walk = (v: ValueNode | undefined): void => {
    if (!v) return;
    if (v.t === 'expr') out.push(v.slot);
    else if (v.t === 'object') for (const [, x] of v.entries) walk(x);
    else if (v.t === 'list') for (const x of v.items) walk(x);
  };
  for (const n of allNodes(graph)) {
    walk(n.payload);
    out.push(...n.includeWhen, ...n.readyWhen, ...n.forEach.map((d) => d.slot));
  }
  for (const f of graph.rgd?.status ?? []) out.push(f.slot);
  return out;
}

/** The compiled expression whose `${…}` holds an offset. */
export function exprAt(graph: CompiledGraph | undefined, offset: number): LocatedExpr | undefined {
  if (!graph) return undefined;
  for (const slot of slotsOf(graph)) {
    const loc = slotLocations.get(slot);
    if (!loc || 'pos' in loc.at) continue;
    for (const p of slot.parts) {
      if (typeof p === 'string') continue;
      const r = resolveSourceAt({ ...loc.at, offset: loc.at.offset + p.offset, length: p.cel.length + 3 });
      if (r.offset <= offset && offset < r.offset + r.length)
        return { expr: p, start: r.offset, end: r.offset + r.length };
    }
  }
  return undefined;
}
