/**
 * DAG pass (kro: the dag step): turns each frame's drafts into a CompiledFrame: index, edges,
 * dependency lists, cycles (reported on the first node of each), apply order and layers.
 */
import { GraphCode } from '../codes.ts';
import { analyseDag } from '../dag.ts';
import type { CompiledFrame, DependencyEdge } from '../model.ts';
import { type CompilerState, emptyFrame, type FrameDraft, nodePath } from './state.ts';

export function finishFrame(s: CompilerState, frame: FrameDraft): CompiledFrame {
  const out = emptyFrame(frame.path);
  const live = frame.nodes.filter((d) => d.compiled);
  live.forEach((d, i) => {
    out.index[d.id] = i;
  });
  const indexOf = new Map(live.map((d, i) => [d.declIndex, i]));
  const deps: number[][] = live.map((d) =>
    [...d.deps.keys()]
      .map((k) => indexOf.get(k))
      .filter((x): x is number => x !== undefined)
      .sort((a, b) => a - b),
  );
  for (const d of live) {
    const c = d.compiled!;
    c.dependencies = [...d.deps.keys()].sort((a, b) => a - b).map((k) => frame.nodes[k]!.id);
    if (d.children) {
      c.children = finishFrame(s, d.children);
      c.captures = [...d.captures].sort();
    }
    for (const [k, labels] of [...d.deps.entries()].sort(([a], [b]) => a - b)) {
      out.edges.push({ from: frame.nodes[k]!.id, to: d.id, fields: [...labels] } satisfies DependencyEdge);
    }
    out.nodes.push(c);
  }
  const dag = analyseDag({ ids: live.map((d) => d.id), deps, isDef: live.map((d) => d.kind === 'def') });
  for (const cycle of dag.cycles) {
    const first = live[out.index[cycle[0]!]!]!;
    const second = cycle[1]!;
    const label = [...(first.deps.get(frame.byId.get(second)!.declIndex) ?? [])][0];
    s.ctx.error(GraphCode.Cycle, `graph contains a cycle: ${cycle.join(' → ')}`, {
      node: nodePath(first),
      segs: first.segs,
      at: { pos: first.idAt },
      ...(label ? { hint: `${first.id} reads ${second} at ${label}` } : {}),
    });
  }
  if (dag.cycles.length === 0) {
    out.order = dag.order.map((i) => live[i]!.id);
    let maxLayer = 0;
    dag.order.forEach((i) => {
      const c = live[i]!.compiled!;
      c.applyLayer = dag.layer[i]!;
      if (c.applyLayer > maxLayer) maxLayer = c.applyLayer;
    });
    out.layers = Array.from({ length: maxLayer + 1 }, () => []);
    for (const i of dag.order) out.layers[dag.layer[i]!]!.push(live[i]!.id);
  }
  return out;
}
