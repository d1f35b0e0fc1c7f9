/**
 * The DAG drawing: exactly `kgraph graph -o svg` (src/graph/draw.ts, Graphviz compiled to
 * WebAssembly), run in the server so the browser needs no WebAssembly and nothing from outside.
 * The layout depends only on the graph's structure, not on node states (the page colours the
 * nodes), so a drawing is computed once per distinct DOT text and cached.
 */

import { toDot, toSvg } from '../graph/draw.ts';
import type { CompiledGraph } from '../graph/model.ts';

const MAX_CACHED = 64;
const cache = new Map<string, Promise<string>>();

/** The `<svg>` element (XML prolog and doctype removed, for inline use). */
export function layoutSvg(graph: CompiledGraph): Promise<string> {
  const dot = toDot(graph);
  let hit = cache.get(dot);
  if (!hit) {
    hit = toSvg(graph).then((svg) => svg.slice(Math.max(0, svg.indexOf('<svg'))));
    hit.catch(() => cache.delete(dot));
    cache.set(dot, hit);
    if (cache.size > MAX_CACHED) cache.delete(cache.keys().next().value as string);
  } else {
    // Most recently used last.
    cache.delete(dot);
    cache.set(dot, hit);
  }
  return hit;
}
