/**
 * What an expression can name at a place in a document, and the schema behind each name: the nodes of
 * the compiled graph (their kind's OpenAPI schema), `schema` of an RGD (its SimpleSchema as OpenAPI),
 * forEach iterators and `each` (design/graph.md §8).
 */
import type { CompiledFrame, CompiledGraph, CompiledNode, CompiledRgd, JsonValue } from '../graph/model.ts';
import type { OpenAPISchema } from '../schema/openapi.ts';
import { simpleSchemaToOpenAPI } from '../schema/simpleschema/convert.ts';
import type { SchemaSet } from './schemas.ts';

/** The fields of `metadata` every object has (the instance's metadata in `schema.metadata`). */
const OBJECT_META: OpenAPISchema = {
  type: 'object',
  properties: {
    name: { type: 'string', description: 'The object name.' },
    namespace: { type: 'string', description: 'The object namespace.' },
    uid: { type: 'string', description: 'The unique id the API server assigned.' },
    labels: { type: 'object', additionalProperties: { type: 'string' }, description: 'Labels.' },
    annotations: { type: 'object', additionalProperties: { type: 'string' }, description: 'Annotations.' },
    generation: { type: 'integer', description: 'The generation of the desired state.' },
    resourceVersion: { type: 'string', description: 'The version of the object the server stored.' },
  },
};

/** Every node of a graph, nested frames included, in declaration order. */
export function allNodes(graph: CompiledGraph | undefined): CompiledNode[] {
  const out: CompiledNode[] = [];
  const walk = (f: CompiledFrame) => {
    for (const n of f.nodes) {
      out.push(n);
      if (n.children) walk(n.children);
    }
  };
  if (graph) walk(graph.root);
  return out;
}

/** The node whose declaration holds an offset (the last one declared before it). */
export function nodeAt(graph: CompiledGraph | undefined, offset: number): CompiledNode | undefined {
  let best: CompiledNode | undefined;
  for (const n of allNodes(graph)) {
    const at = n.location.offset ?? -1;
    if (at <= offset && (!best || at > (best.location.offset ?? -1))) best = n;
  }
  return best;
}

/** The names visible in an expression: node ids, `schema`, iterators of the node at the cursor. */
export interface VisibleName {
  name: string;
  what: 'node' | 'schema' | 'iterator' | 'each';
  node?: CompiledNode;
}

export function visibleNames(graph: CompiledGraph | undefined, offset: number): VisibleName[] {
  const out: VisibleName[] = [];
  if (!graph) return out;
  if (graph.rgd) out.push({ name: 'schema', what: 'schema' });
  for (const n of allNodes(graph)) out.push({ name: n.id, what: 'node', node: n });
  const here = nodeAt(graph, offset);
  if (here) {
    for (const d of here.forEach) out.push({ name: d.name, what: 'iterator', node: here });
    if (here.forEach.length > 0) out.push({ name: 'each', what: 'each', node: here });
  }
  return out;
}

/** The schema a name stands for (for a collection node: one item's). */
export function schemaOfName(
  name: VisibleName,
  graph: CompiledGraph,
  schemas: SchemaSet,
  crdObjects: readonly JsonValue[],
): OpenAPISchema | undefined {
  if (name.what === 'schema' && graph.rgd) return instanceSchema(graph.rgd);
  if ((name.what === 'node' || name.what === 'each') && name.node?.resolved) {
    const r = name.node.resolved;
    return schemas.schemaOf(r.apiVersion, r.kind, crdObjects);
  }
  return undefined;
}

const instanceSchemas = new WeakMap<CompiledRgd, OpenAPISchema>();

/** The RGD's instance as CEL sees it: its SimpleSchema converted to OpenAPI, and metadata. */
function instanceSchema(rgd: CompiledRgd): OpenAPISchema {
  const known = instanceSchemas.get(rgd);
  if (known) return known;
  const raw = rgd.raw !== null && typeof rgd.raw === 'object' && !Array.isArray(rgd.raw) ? rgd.raw : {};
  const spec = simpleSchemaToOpenAPI(raw.spec, { types: raw.types }).schema;
  const out: OpenAPISchema = { type: 'object', properties: { spec, metadata: OBJECT_META } };
  instanceSchemas.set(rgd, out);
  return out;
}

/** One step down a schema: a field, or `[]` for an item of a list or a value of a map. */
export function descend(schema: OpenAPISchema | undefined, seg: string): OpenAPISchema | undefined {
  if (!schema) return undefined;
  const s = schema.allOf?.length === 1 && !schema.properties ? schema.allOf[0]! : schema;
  if (seg === '[]') {
    if (s.items) return s.items;
    return typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;
  }
  const p = s.properties?.[seg];
  if (p) return p;
  return typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;
}

/** A short type label: `string`, `[]object`, `map[string]string`. */
export function typeLabel(schema: OpenAPISchema | undefined): string {
  if (!schema) return 'dyn';
  if (schema.type === 'array') return `[]${typeLabel(schema.items)}`;
  if (schema.type === 'object' && typeof schema.additionalProperties === 'object' && !schema.properties)
    return `map[string]${typeLabel(schema.additionalProperties)}`;
  if (schema.type) return schema.format ? `${schema.type} (${schema.format})` : schema.type;
  if (schema.properties) return 'object';
  return 'dyn';
}

/** The CEL receiver type of a schema, for method completion. */
export function celReceiver(schema: OpenAPISchema | undefined): string | undefined {
  switch (schema?.type) {
    case 'string':
      return 'string';
    case 'array':
      return 'list';
    case 'integer':
      return 'int';
    case 'number':
      return 'double';
    case 'boolean':
      return 'bool';
    case 'object':
      return schema.properties ? undefined : 'map';
    default:
      return undefined;
  }
}
