/**
 * Drawing a compiled graph: Graphviz DOT, Mermaid, JSON and SVG (DOT laid out by Graphviz WASM).
 * Nested graphs are clusters, the node kind is the shape, and every edge is labelled with the
 * fields of the reader that create it.
 */
import { formatPath } from '../expr/index.ts';
import type { CompiledFrame, CompiledGraph, CompiledNode, NodeKind } from './model.ts';

/** Graphviz shape per node kind. */
const DOT_SHAPE: Record<NodeKind, string> = {
  template: 'box',
  ref: 'cylinder',
  externalRef: 'cylinder',
  watch: 'cylinder',
  def: 'note',
  patch: 'component',
  graph: 'folder',
};

function q(s: string): string {
  return `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`;
}

function nodeLabel(n: CompiledNode): string {
  const lines = [`${n.id}`, `${n.kind}${n.resolved ? ` ${n.resolved.kind}` : n.dynamic ? ' (dynamic)' : ''}`];
  if (n.forEach.length > 0) lines.push(`forEach ${n.forEach.map((f) => f.name).join(' × ')}`);
  if (n.target !== 'consumer') lines.push(`target ${n.target}`);
  return lines.join('\n');
}

/** Id of a node in the drawing: the dotted path (unique across frames). */
function gid(path: string): string {
  return q(path);
}

/**
 * Edge endpoints: an edge into or out of a `graph` node is drawn to its cluster through an anchor
 * (the first child in topological order), using Graphviz `lhead`/`ltail`.
 */
function anchor(frame: CompiledFrame, id: string): { node: string; cluster?: string } {
  const n = frame.nodes[frame.index[id]!]!;
  if (n.kind === 'graph' && n.children && n.children.nodes.length > 0) {
    const first = n.children.order[0] ?? n.children.nodes[0]!.id;
    return { node: anchor(n.children, first).node, cluster: `cluster_${n.path}` };
  }
  return { node: n.path };
}

export function toDot(graph: CompiledGraph): string {
  const lines: string[] = [];
  lines.push(`digraph ${q(graph.name || 'graph')} {`);
  lines.push('  compound=true;');
  lines.push('  rankdir=LR;');
  lines.push('  node [fontname="Helvetica", fontsize=10];');
  lines.push('  edge [fontname="Helvetica", fontsize=9];');
  if (graph.rgd) lines.push(`  "schema" [shape=doublecircle, label="schema\\n${graph.rgd.kind}"];`);
  const frame = (f: CompiledFrame, indent: string): void => {
    for (const n of f.nodes) {
      if (n.kind === 'graph' && n.children) {
        lines.push(`${indent}subgraph ${q(`cluster_${n.path}`)} {`);
        lines.push(`${indent}  label=${q(`graph ${n.id}`)};`);
        lines.push(`${indent}  style=rounded;`);
        frame(n.children, `${indent}  `);
        lines.push(`${indent}}`);
      } else {
        lines.push(`${indent}${gid(n.path)} [shape=${DOT_SHAPE[n.kind]}, label=${q(nodeLabel(n))}];`);
      }
    }
    for (const e of f.edges) {
      const from = anchor(f, e.from);
      const to = anchor(f, e.to);
      const attrs = [`label=${q(e.fields.join('\n'))}`];
      if (from.cluster) attrs.push(`ltail=${q(from.cluster)}`);
      if (to.cluster) attrs.push(`lhead=${q(to.cluster)}`);
      lines.push(`${indent}${gid(from.node)} -> ${gid(to.node)} [${attrs.join(', ')}];`);
    }
  };
  frame(graph.root, '  ');
  if (graph.rgd) {
    const visit = (f: CompiledFrame): void => {
      for (const n of f.nodes) {
        const fields = schemaReads(n);
        if (fields.length > 0)
          lines.push(
            `  "schema" -> ${gid(anchor(f, n.id).node)} [label=${q(fields.join('\n'))}, style=dashed];`,
          );
        if (n.children) visit(n.children);
      }
    };
    visit(graph.root);
    // The synthetic status patch (§1): soft reads, drawn dotted into the instance's status.
    const reads = statusReads(graph);
    if (reads.size > 0) {
      lines.push('  "instance" [shape=doubleoctagon, label="instance\\nstatus"];');
      for (const [from, fields] of reads) {
        lines.push(`  ${gid(from)} -> "instance" [label=${q(fields.join('\n'))}, style=dotted];`);
      }
    }
  }
  lines.push('}');
  return `${lines.join('\n')}\n`;
}

/** Reader field paths of a node's references to the RGD `schema`. */
function schemaReads(n: CompiledNode): string[] {
  const out = new Set<string>();
  const slots = [...n.includeWhen, ...n.forEach.map((f) => f.slot)];
  const walk = (v: CompiledNode['payload']): void => {
    if (!v) return;
    if (v.t === 'expr') slots.push(v.slot);
    else if (v.t === 'object') for (const [, x] of v.entries) walk(x);
    else if (v.t === 'list') for (const x of v.items) walk(x);
  };
  walk(n.payload);
  for (const s of slots) {
    for (const p of s.parts) {
      if (typeof p === 'string') continue;
      if (p.refs.some((r) => r.kind === 'schema')) out.add(formatPath(s.path));
    }
  }
  return [...out];
}

/** Node path → status field paths that read it (RGD status projections). */
function statusReads(graph: CompiledGraph): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const f of graph.rgd?.status ?? []) {
    for (const read of f.reads) out.set(read, [...(out.get(read) ?? []), `status.${formatPath(f.path)}`]);
  }
  return out;
}

/** Mermaid shapes per kind. */
function mermaidNode(n: CompiledNode, id: string): string {
  const label = nodeLabel(n).replace(/"/g, "'").replace(/\n/g, '<br/>');
  switch (n.kind) {
    case 'template':
      return `${id}["${label}"]`;
    case 'ref':
    case 'externalRef':
      return `${id}[("${label}")]`;
    case 'watch':
      return `${id}[("${label}<br/>(watched set)")]`;
    case 'def':
      return `${id}[/"${label}"/]`;
    case 'patch':
      return `${id}{{"${label}"}}`;
    case 'graph':
      return `${id}[["${label}"]]`;
  }
}

export function toMermaid(graph: CompiledGraph): string {
  const lines = ['flowchart LR'];
  const mid = (path: string) => `n_${path.replace(/\./g, '__')}`;
  if (graph.rgd) lines.push(`  schema(("schema<br/>${graph.rgd.kind}"))`);
  const frame = (f: CompiledFrame, indent: string): void => {
    for (const n of f.nodes) {
      if (n.kind === 'graph' && n.children) {
        lines.push(`${indent}subgraph ${mid(n.path)}["graph ${n.id}"]`);
        frame(n.children, `${indent}  `);
        lines.push(`${indent}end`);
      } else {
        lines.push(`${indent}${mermaidNode(n, mid(n.path))}`);
      }
    }
    for (const e of f.edges) {
      const from = mid(f.nodes[f.index[e.from]!]!.path);
      const to = mid(f.nodes[f.index[e.to]!]!.path);
      const label = e.fields.join(', ').replace(/"/g, "'").replace(/\|/g, '/');
      lines.push(`${indent}${from} -->|"${label}"| ${to}`);
    }
  };
  frame(graph.root, '  ');
  if (graph.rgd) {
    const visit = (f: CompiledFrame): void => {
      for (const n of f.nodes) {
        const fields = schemaReads(n);
        if (fields.length > 0) lines.push(`  schema -.->|"${fields.join(', ')}"| ${mid(n.path)}`);
        if (n.children) visit(n.children);
      }
    };
    visit(graph.root);
    const reads = statusReads(graph);
    if (reads.size > 0) {
      lines.push('  instance{{"instance<br/>status"}}');
      for (const [from, fields] of reads) {
        lines.push(`  ${from === 'schema' ? 'schema' : mid(from)} -.->|"${fields.join(', ')}"| instance`);
      }
    }
  }
  return `${lines.join('\n')}\n`;
}

/** The compiled graph as JSON (the model itself; bigint-free by construction). */
export function toJsonGraph(graph: CompiledGraph): string {
  return `${JSON.stringify(graph, null, 2)}\n`;
}

/** SVG through Graphviz compiled to WebAssembly. */
export async function toSvg(graph: CompiledGraph): Promise<string> {
  const { instance } = await import('@viz-js/viz');
  const viz = await instance();
  return viz.renderString(toDot(graph), { format: 'svg', engine: 'dot' });
}
