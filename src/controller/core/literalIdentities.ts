/**
 * Identities of template objects known before their node can be rendered: a root-frame template node
 * whose apiVersion, kind, `metadata.name` and `metadata.namespace` are literal (no `${…}`), with no
 * forEach and no includeWhen, creates exactly that object once its data resolves. The Graph's
 * write-ahead inventory (design/graph.md §22.1) records them with the first pass's intents, so a
 * dependent unlocked later in the same reconcile needs no second write-ahead status write. Pure.
 */
import type { CompiledGraph, JsonValue, ValueNode } from '../../graph/model.ts';
import type { ObjectIdentity } from '../../runtime/observed.ts';

export interface LiteralIdentity {
  /** The node's dotted path (`ManagedResource.nodeID`). */
  nodeID: string;
  id: ObjectIdentity;
}

/** The literal value at `path` of a payload tree; undefined when absent or computed. */
function literalAt(v: ValueNode | undefined, path: readonly string[]): JsonValue | undefined {
  let node: ValueNode | undefined = v;
  let value: JsonValue | undefined;
  for (let i = 0; i < path.length; i++) {
    const key = path[i] as string;
    if (value !== undefined || node?.t === 'literal') {
      const base: JsonValue | undefined = value ?? (node as { value: JsonValue }).value;
      if (typeof base !== 'object' || base === null || Array.isArray(base)) return undefined;
      value = base[key];
      if (value === undefined) return undefined;
      continue;
    }
    if (node?.t !== 'object') return undefined;
    node = node.entries.find(([k]) => k === key)?.[1];
  }
  if (value !== undefined) return value;
  return node?.t === 'literal' ? node.value : undefined;
}

/** The literal identities of `compiled`'s root-frame template nodes, defaulting to `namespace`. */
export function literalIdentities(compiled: CompiledGraph, namespace: string): LiteralIdentity[] {
  const out: LiteralIdentity[] = [];
  for (const n of compiled.root.nodes) {
    if (n.kind !== 'template' || n.dynamic || n.forEach.length > 0 || n.includeWhen.length > 0) continue;
    const r = n.resolved;
    if (!r || r.scope === 'unknown') continue;
    const name = literalAt(n.payload, ['metadata', 'name']);
    if (typeof name !== 'string' || name === '' || name.includes('${')) continue;
    if (r.scope === 'Cluster') {
      out.push({ nodeID: n.path, id: { apiVersion: r.apiVersion, kind: r.kind, name } });
      continue;
    }
    const ns = literalAt(n.payload, ['metadata', 'namespace']);
    if (ns !== undefined && (typeof ns !== 'string' || ns.includes('${'))) continue;
    out.push({
      nodeID: n.path,
      id: { apiVersion: r.apiVersion, kind: r.kind, namespace: ns || namespace, name },
    });
  }
  return out;
}
