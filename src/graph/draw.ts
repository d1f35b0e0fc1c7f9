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

/** At most `max` characters of an expression, for a label line. */
function short(text: string, max = 36): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

function nodeLabel(n: CompiledNode): string {
  const lines = [`${n.id}`, `${n.kind}${n.resolved ? ` ${n.resolved.kind}` : n.dynamic ? ' (dynamic)' : ''}`];
  if (n.forEach.length > 0) lines.push(`forEach ${n.forEach.map((f) => f.name).join(' × ')}`);
  if (n.includeWhen.length > 0)
    lines.push(`includeWhen ${short(n.includeWhen.map((w) => w.source).join(' && '))}`);
  if (n.readyWhen.length > 0) lines.push(`readyWhen ${short(n.readyWhen.map((w) => w.source).join(' && '))}`);
  if (n.target !== 'consumer') lines.push(`target ${n.target}`);
  return lines.join('\n');
}

/**
 * How a node's outline marks its modifiers (the legend explains them): dashed = includeWhen (may be
 * left out), double = forEach (a collection), bold = readyWhen (a readiness condition of its own).
 */
function markAttrs(n: CompiledNode): string[] {
  const styles: string[] = [];
  if (n.includeWhen.length > 0) styles.push('dashed');
  if (n.readyWhen.length > 0) styles.push('bold');
  const out = styles.length > 0 ? [`style=${q(styles.join(','))}`] : [];
  if (n.forEach.length > 0) out.push('peripheries=2');
  return out;
}

/** The legend: one sample per node shape that occurs, and the outline marks. */
function legend(graph: CompiledGraph, lines: string[]): void {
  const kinds = new Set<NodeKind>();
  let marks = { includeWhen: false, readyWhen: false, forEach: false };
  const visit = (f: CompiledFrame): void => {
    for (const n of f.nodes) {
      if (n.kind !== 'graph' || !n.children) kinds.add(n.kind);
      marks = {
        includeWhen: marks.includeWhen || n.includeWhen.length > 0,
        readyWhen: marks.readyWhen || n.readyWhen.length > 0,
        forEach: marks.forEach || n.forEach.length > 0,
      };
      if (n.children) visit(n.children);
    }
  };
  visit(graph.root);
  const items: string[] = [];
  for (const k of Object.keys(DOT_SHAPE) as NodeKind[]) {
    if (kinds.has(k)) items.push(`[shape=${DOT_SHAPE[k]}, label=${q(k)}]`);
  }
  if (marks.includeWhen)
    items.push(`[shape=box, style=dashed, label=${q('includeWhen\n(may be left out)')}]`);
  if (marks.forEach) items.push(`[shape=box, peripheries=2, label=${q('forEach\n(a collection)')}]`);
  if (marks.readyWhen) items.push(`[shape=box, style=bold, label=${q('readyWhen\n(own readiness)')}]`);
  lines.push('  subgraph "cluster_legend" {');
  lines.push('    label="legend"; style=dotted; fontname="Helvetica"; fontsize=9;');
  lines.push('    node [fontsize=8, width=0.3, height=0.3];');
  // A rank of rankdir=LR is drawn bottom to top: declared in reverse, the samples read top down.
  items.reverse();
  items.forEach((attrs, i) => {
    lines.push(`    "kgraph:legend:${i}" ${attrs};`);
  });
  // One rank: the samples stand in one column (rankdir=LR) beside the graph.
  lines.push(`    { rank=same; ${items.map((_, i) => `"kgraph:legend:${i}";`).join(' ')} }`);
  lines.push('  }');
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

/** Drawing options: `legend` adds a legend of the shapes and outline marks (the CLI's drawings). */
export interface DrawOptions {
  legend?: boolean;
}

export function toDot(graph: CompiledGraph, opts: DrawOptions = {}): string {
  const lines: string[] = [];
  lines.push(`digraph ${q(graph.name || 'graph')} {`);
  lines.push('  compound=true;');
  lines.push('  rankdir=LR;');
  lines.push('  node [fontname="Helvetica", fontsize=10];');
  // Edge labels are field paths: a monospace font, whose width Graphviz reserves exactly (0.6 em a
  // character) whatever font the viewer substitutes, so a label never runs into a node.
  lines.push('  edge [fontname="Courier", fontsize=9];');
  if (graph.rgd) lines.push(`  "schema" [shape=doublecircle, label="schema\\n${graph.rgd.kind}"];`);
  const frame = (f: CompiledFrame, indent: string): void => {
    for (const n of f.nodes) {
      if (n.kind === 'graph' && n.children) {
        lines.push(`${indent}subgraph ${q(`cluster_${n.path}`)} {`);
        const marks = [
          n.forEach.length > 0 ? `forEach ${n.forEach.map((f) => f.name).join(' × ')}` : '',
          n.includeWhen.length > 0
            ? `includeWhen ${short(n.includeWhen.map((w) => w.source).join(' && '))}`
            : '',
          n.readyWhen.length > 0 ? `readyWhen ${short(n.readyWhen.map((w) => w.source).join(' && '))}` : '',
        ].filter((m) => m !== '');
        lines.push(`${indent}  label=${q([`graph ${n.id}`, ...marks].join('\n'))};`);
        lines.push(`${indent}  style=${q(n.includeWhen.length > 0 ? 'rounded,dashed' : 'rounded')};`);
        frame(n.children, `${indent}  `);
        lines.push(`${indent}}`);
      } else {
        const attrs = [`shape=${DOT_SHAPE[n.kind]}`, `label=${q(nodeLabel(n))}`, ...markAttrs(n)];
        lines.push(`${indent}${gid(n.path)} [${attrs.join(', ')}];`);
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
    // The synthetic status patch (design/graph.md §1): soft reads, drawn dotted into the instance's status.
    const reads = statusReads(graph);
    if (reads.size > 0) {
      lines.push('  "instance" [shape=doubleoctagon, label="instance\\nstatus"];');
      for (const [from, fields] of reads) {
        lines.push(`  ${gid(from)} -> "instance" [label=${q(fields.join('\n'))}, style=dotted];`);
      }
    }
  }
  if (opts.legend === true) legend(graph, lines);
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

/** One node of `kgraph graph -o json` (docs/cli.md, "graph -o json"). */
export interface JsonGraphNode {
  /** Unique in the document: the dotted path (`backend.deployment`); `schema` and `instance` for an RGD's. */
  id: string;
  /** The id as authored, in its frame. */
  name: string;
  /** The `graph` node this one is nested in (its id), or null at the root. */
  parent: string | null;
  kind: NodeKind | 'schema' | 'instance';
  /** The Kubernetes kind it reads or writes, when literal. */
  resource: { apiVersion: string; kind: string } | null;
  /** apiVersion or kind is an expression. */
  dynamic: boolean;
  /** forEach dimensions (names), outermost first; empty: one object. */
  forEach: string[];
  /** includeWhen expressions as written (AND-ed); empty: always included. */
  includeWhen: string[];
  /** readyWhen expressions as written (AND-ed); empty: ready when it exists. */
  readyWhen: string[];
  /** The plane (krop `target`); `consumer` in Graphs and kro RGDs. */
  target: string;
  /** Apply layer within its frame (1 + the deepest dependency; defs add none). */
  applyLayer: number;
}

export interface JsonGraphEdge {
  /** Node ids: `to` reads `from`. */
  from: string;
  to: string;
  /** `dependency` (orders the applies), `schema` (reads the RGD's instance spec), `status` (an RGD status field reads it). */
  type: 'dependency' | 'schema' | 'status';
  /** The reader's fields that create the edge. */
  fields: string[];
}

export interface JsonGraph {
  /** The document format, versioned: `kgraph.graph/v1`. */
  format: 'kgraph.graph/v1';
  name: string;
  kind: 'Graph' | 'ResourceGraphDefinition';
  apiVersion: string;
  namespace?: string;
  /** RGD: the instance kind it serves. */
  instance?: { apiVersion: string; kind: string };
  /** Each frame in topological order (the apply order, ties by declaration), a graph node before its children. */
  nodes: JsonGraphNode[];
  edges: JsonGraphEdge[];
  /** Every literal Kubernetes kind the graph uses, with the ids of the nodes that use it. */
  kinds: { apiVersion: string; kind: string; nodes: string[] }[];
}

/** The graph as the documented JSON document (not the compiler's internal model). */
export function jsonGraph(graph: CompiledGraph): JsonGraph {
  const nodes: JsonGraphNode[] = [];
  const edges: JsonGraphEdge[] = [];
  const kinds = new Map<string, { apiVersion: string; kind: string; nodes: string[] }>();
  const rgd = graph.rgd;
  if (rgd) {
    nodes.push(syntheticNode('schema', `${rgd.group}/${rgd.apiVersion}`, rgd.kind));
  }
  const frame = (f: CompiledFrame, parent: string | null): void => {
    // Topological order (ties by declaration), each graph node followed by its children.
    for (const id of f.order) {
      const n = f.nodes[f.index[id]!]!;
      const resource = n.resolved ? { apiVersion: n.resolved.apiVersion, kind: n.resolved.kind } : null;
      nodes.push({
        id: n.path,
        name: n.id,
        parent,
        kind: n.kind,
        resource,
        dynamic: n.dynamic,
        forEach: n.forEach.map((d) => d.name),
        includeWhen: n.includeWhen.map((w) => w.source),
        readyWhen: n.readyWhen.map((w) => w.source),
        target: n.target,
        applyLayer: n.applyLayer,
      });
      if (resource) {
        const key = `${resource.apiVersion}/${resource.kind}`;
        const k = kinds.get(key) ?? { ...resource, nodes: [] };
        k.nodes.push(n.path);
        kinds.set(key, k);
      }
      if (rgd) {
        const fields = schemaReads(n);
        if (fields.length > 0) edges.push({ from: 'schema', to: n.path, type: 'schema', fields });
      }
      if (n.children) frame(n.children, n.path);
    }
    for (const e of f.edges) {
      const path = (id: string) => f.nodes[f.index[id]!]!.path;
      edges.push({ from: path(e.from), to: path(e.to), type: 'dependency', fields: [...e.fields] });
    }
  };
  frame(graph.root, null);
  if (rgd) {
    const reads = statusReads(graph);
    if (reads.size > 0) {
      nodes.push(syntheticNode('instance', `${rgd.group}/${rgd.apiVersion}`, rgd.kind));
      for (const [from, fields] of reads) edges.push({ from, to: 'instance', type: 'status', fields });
    }
  }
  return {
    format: 'kgraph.graph/v1',
    name: graph.name,
    kind: rgd ? 'ResourceGraphDefinition' : 'Graph',
    apiVersion: graph.apiVersion,
    ...(graph.namespace !== undefined ? { namespace: graph.namespace } : {}),
    ...(rgd ? { instance: { apiVersion: `${rgd.group}/${rgd.apiVersion}`, kind: rgd.kind } } : {}),
    nodes,
    edges,
    kinds: [...kinds.values()],
  };
}

/** An RGD's `schema` (the instance spec, read) or `instance` (its status, written) node. */
function syntheticNode(kind: 'schema' | 'instance', apiVersion: string, instanceKind: string): JsonGraphNode {
  return {
    id: kind,
    name: kind,
    parent: null,
    kind,
    resource: { apiVersion, kind: instanceKind },
    dynamic: false,
    forEach: [],
    includeWhen: [],
    readyWhen: [],
    target: 'consumer',
    applyLayer: 0,
  };
}

/** `kgraph graph -o json`. */
export function toJsonGraph(graph: CompiledGraph): string {
  return `${JSON.stringify(jsonGraph(graph), null, 2)}\n`;
}

/** SVG through Graphviz compiled to WebAssembly. */
export async function toSvg(graph: CompiledGraph, opts: DrawOptions = {}): Promise<string> {
  const { instance } = await import('@viz-js/viz');
  const viz = await instance();
  return viz.renderString(toDot(graph, opts), { format: 'svg', engine: 'dot' });
}
