/**
 * Test support: builds `CompiledGraph` values for engine tests from a compact node list, using the
 * real `${…}` scanner and CEL reference extraction. It does no validation and no type checking — it
 * exists so engine rules can be tested independently of the compiler; the CLI tests go through the
 * real compiler.
 */
import { listReferences, parse } from '../../../../src/cel/index.ts';
import { scanValue } from '../../../../src/expr/index.ts';
import type {
  CompiledExpr,
  CompiledFrame,
  CompiledGraph,
  CompiledNode,
  ExprRef,
  ExprSlot,
  FieldPath,
  Gating,
  JsonValue,
  NodeKind,
  StatusField,
  ValueNode,
} from '../../../../src/graph/model.ts';

export interface NodeSpec {
  id: string;
  kind: NodeKind;
  payload?: JsonValue;
  includeWhen?: string[];
  readyWhen?: string[];
  forEach?: Record<string, string>[];
  /** For graph nodes. */
  children?: NodeSpec[];
  scope?: 'Namespaced' | 'Cluster';
}

function compileExpr(cel: string, offset: number, ctx: RefContext): CompiledExpr {
  const parsed = parse(cel);
  if (!parsed.ok) throw new Error(`test graph: bad CEL "${cel}": ${parsed.error.message}`);
  const refs: ExprRef[] = [];
  for (const r of listReferences(parsed.value)) {
    const fields: string[] = [];
    for (const step of r.path) {
      if (step.kind !== 'field') break;
      fields.push(step.name);
    }
    let kind: ExprRef['kind'] = 'node';
    if (ctx.iterators.has(r.root)) kind = 'iterator';
    else if (r.root === 'each') kind = 'each';
    else if (r.root === 'schema') kind = 'schema';
    else if (!ctx.frameIds.has(r.root)) kind = 'capture';
    const ref: ExprRef = { name: r.root, kind, fields, optional: r.optional };
    if (kind === 'node' || kind === 'capture' || kind === 'schema') ref.target = r.root;
    refs.push(ref);
  }
  return { cel, offset, refs };
}

interface RefContext {
  frameIds: Set<string>;
  iterators: Set<string>;
}

export function slotOf(value: string, path: FieldPath, ctx: RefContext): ExprSlot {
  const scanned = scanValue(value);
  if (!scanned.ok) throw new Error(`test graph: scan error in "${value}"`);
  const v = scanned.value;
  if (v.kind === 'standalone') {
    return {
      mode: 'standalone',
      source: value,
      parts: [compileExpr(v.expression.source, v.expression.offset, ctx)],
      path,
    };
  }
  if (v.kind === 'template') {
    return {
      mode: 'template',
      source: value,
      parts: v.parts.map((p) =>
        p.kind === 'literal' ? p.text : compileExpr(p.expression.source, p.expression.offset, ctx),
      ),
      path,
    };
  }
  throw new Error(`test graph: "${value}" has no expression`);
}

function tree(v: JsonValue, path: (string | number)[], ctx: RefContext): ValueNode {
  if (typeof v === 'string' && v.includes('${')) return { t: 'expr', slot: slotOf(v, [...path], ctx) };
  if (Array.isArray(v)) {
    const items = v.map((x, i) => tree(x, [...path, i], ctx));
    return items.every((i) => i.t === 'literal') ? { t: 'literal', value: v } : { t: 'list', items };
  }
  if (v !== null && typeof v === 'object') {
    const entries = Object.entries(v).map(([k, x]) => [k, tree(x, [...path, k], ctx)] as [string, ValueNode]);
    return entries.every(([, e]) => e.t === 'literal')
      ? { t: 'literal', value: v }
      : { t: 'object', entries };
  }
  return { t: 'literal', value: v };
}

function slotRefs(slot: ExprSlot): ExprRef[] {
  return slot.parts.flatMap((p) => (typeof p === 'string' ? [] : p.refs));
}

function treeRefs(v: ValueNode | undefined): ExprRef[] {
  if (v === undefined) return [];
  switch (v.t) {
    case 'literal':
      return [];
    case 'expr':
      return slotRefs(v.slot);
    case 'object':
      return v.entries.flatMap(([, e]) => treeRefs(e));
    case 'list':
      return v.items.flatMap(treeRefs);
  }
}

function buildFrame(
  specs: NodeSpec[],
  path: string,
  rgd: boolean,
): { frame: CompiledFrame; captures: string[] } {
  const frameIds = new Set(specs.map((s) => s.id));
  const nodes: CompiledNode[] = [];
  const allCaptures = new Set<string>();
  specs.forEach((s, declIndex) => {
    const iterators = new Set((s.forEach ?? []).map((d) => Object.keys(d)[0]!));
    const ctx: RefContext = { frameIds, iterators };
    const nodePath = path === '' ? s.id : `${path}.${s.id}`;
    const node: CompiledNode = {
      id: s.id,
      path: nodePath,
      kind: s.kind,
      target: 'consumer',
      declIndex,
      location: {},
      docPath: `spec.nodes[${declIndex}]`,
      dynamic: false,
      forEach: (s.forEach ?? []).map((d) => {
        const [name, expr] = Object.entries(d)[0]!;
        return { name, slot: slotOf(expr, ['forEach', name], ctx) };
      }),
      includeWhen: (s.includeWhen ?? []).map((e, i) => slotOf(e, ['includeWhen', i], ctx)),
      readyWhen: (s.readyWhen ?? []).map((e, i) =>
        slotOf(e, ['readyWhen', i], { frameIds: new Set(), iterators: new Set() }),
      ),
      dependencies: [],
      applyLayer: 0,
    };
    if (s.payload !== undefined) {
      node.payload = tree(s.payload, [], ctx);
      const p = s.payload as Record<string, JsonValue>;
      const av = p.apiVersion;
      const kind = p.kind;
      node.dynamic =
        (typeof av === 'string' && av.includes('${')) || (typeof kind === 'string' && kind.includes('${'));
      if (!node.dynamic && typeof av === 'string' && typeof kind === 'string' && s.kind !== 'def') {
        const [group, version] = av.includes('/') ? av.split('/') : ['', av];
        node.resolved = {
          apiVersion: av,
          group: group!,
          version: version!,
          kind,
          scope: s.scope ?? 'Namespaced',
        };
      }
      if (s.kind === 'ref' || s.kind === 'externalRef') {
        const meta = (p.metadata ?? {}) as Record<string, JsonValue>;
        node.refMode =
          meta.selector === undefined
            ? 'name'
            : typeof meta.selector === 'string'
              ? 'selectorExpr'
              : 'selector';
      }
      if (s.kind === 'patch') node.patchEndpoint = Object.hasOwn(p, 'status') ? 'status' : 'main';
    }
    const deps = new Set<string>();
    const refs = [
      ...treeRefs(node.payload),
      ...node.forEach.flatMap((d) => slotRefs(d.slot)),
      ...node.includeWhen.flatMap(slotRefs),
    ];
    for (const r of refs) {
      if (r.kind === 'node' && r.name !== s.id) deps.add(r.name);
      if (r.kind === 'schema' && rgd) deps.add('schema');
      if (r.kind === 'capture') allCaptures.add(r.name);
    }
    if (s.children !== undefined) {
      const child = buildFrame(s.children, nodePath, rgd);
      node.children = child.frame;
      node.captures = child.captures;
      for (const c of child.captures) {
        if (frameIds.has(c)) deps.add(c);
        else allCaptures.add(c);
      }
    }
    node.dependencies = [...deps].filter((d) => frameIds.has(d) || d === 'schema');
    nodes.push(node);
  });
  // Kahn's algorithm, ties by declaration order.
  const order: string[] = [];
  const done = new Set<string>();
  while (order.length < nodes.length) {
    const next = nodes.find(
      (n) => !done.has(n.id) && n.dependencies.every((d) => done.has(d) || !frameIds.has(d)),
    );
    if (next === undefined) throw new Error('test graph: cycle');
    order.push(next.id);
    done.add(next.id);
  }
  const index: Record<string, number> = {};
  nodes.forEach((n, i) => {
    index[n.id] = i;
  });
  return { frame: { path, nodes, index, order, layers: [], edges: [] }, captures: [...allCaptures] };
}

export function buildGraph(
  nodes: NodeSpec[],
  options: { gating?: Gating; namespace?: string; status?: Record<string, string> } = {},
): CompiledGraph {
  const rgd = options.status !== undefined || options.gating === 'ready';
  const { frame } = buildFrame(nodes, '', rgd);
  const graph: CompiledGraph = {
    source: rgd ? 'KroRGD' : 'Graph',
    apiVersion: 'kro.run/v1alpha1',
    name: 'test',
    gating: options.gating ?? 'scope',
    root: frame,
    requiredKinds: [],
    hasDynamic: frame.nodes.some((n) => n.dynamic),
  };
  if (options.namespace !== undefined) graph.namespace = options.namespace;
  if (rgd) {
    const status: StatusField[] = Object.entries(options.status ?? {}).map(([dotted, expr]) => {
      const path = dotted.split('.');
      const slot = slotOf(expr, path, { frameIds: new Set(frame.order), iterators: new Set() });
      return { path, slot, reads: slotRefs(slot).flatMap((r) => (r.target ? [r.target] : [])) };
    });
    graph.rgd = {
      apiVersion: 'v1alpha1',
      kind: 'Test',
      group: 'kro.run',
      scope: 'Namespaced',
      specSchema: {},
      types: {},
      statusSchema: {},
      status,
      raw: {},
    };
  }
  return graph;
}
