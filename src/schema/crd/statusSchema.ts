/**
 * The status schema of a generated CRD. kro infers it from the result types of the status
 * expressions; the compiler computes those types and hands them here as path → schema. Unknown types
 * (`dyn`, or no compile available) fall back to `x-kubernetes-preserve-unknown-fields`. The
 * controller-owned `state` and `conditions` are always added with their standard schemas.
 */
import equal from 'fast-deep-equal';
import { isRecord } from '../../diag/record.ts';
import { type OpenAPISchema, unknownFieldsSchema } from '../openapi.ts';

export type StatusPath = readonly (string | number)[];

export interface StatusFieldType {
  /** Path under `status`, e.g. ['endpoint'], ['conn', 'host'], ['urls', 0]. */
  path: StatusPath;
  /** The inferred schema, or undefined when the type is unknown (`dyn`). */
  schema: OpenAPISchema | undefined;
}

/** Either structured entries or a map keyed by paths such as `conn.host`, `urls[0]`, `["a.b"]`. */
export type StatusFieldTypes = Iterable<StatusFieldType> | ReadonlyMap<string, OpenAPISchema | undefined>;

export const CONDITIONS_SCHEMA: OpenAPISchema = {
  type: 'array',
  items: {
    type: 'object',
    properties: {
      type: { type: 'string' },
      status: { type: 'string' },
      reason: { type: 'string' },
      message: { type: 'string' },
      lastTransitionTime: { type: 'string' },
      observedGeneration: { type: 'integer' },
    },
  },
};

export const STATE_SCHEMA: OpenAPISchema = { type: 'string' };

/** Parses `a.b[0]["x.y"]` into segments. */
export function parseStatusPath(text: string): StatusPath {
  const out: (string | number)[] = [];
  const re = /\[(\d+)\]|\["((?:[^"\\]|\\.)*)"\]|\.?([^.[\]]+)/g;
  for (const m of text.matchAll(re)) {
    if (m[1] !== undefined) out.push(Number(m[1]));
    else if (m[2] !== undefined) out.push(JSON.parse(`"${m[2]}"`) as string);
    else if (m[3] !== undefined) out.push(m[3]);
  }
  return out;
}

interface Tree {
  leaf?: OpenAPISchema | null; // null: unknown type
  props?: Map<string, Tree>;
  items?: Map<number, Tree>;
}

function toSchema(t: Tree): OpenAPISchema {
  if (t.leaf !== undefined) return t.leaf === null ? unknownFieldsSchema() : structuredClone(t.leaf);
  if (t.props) {
    const properties: Record<string, OpenAPISchema> = {};
    for (const [k, v] of t.props) properties[k] = toSchema(v);
    return { type: 'object', properties };
  }
  if (t.items) {
    // One items schema for the whole list: the common one when all elements agree, else untyped.
    const schemas = [...t.items.values()].map(toSchema);
    const first = schemas[0];
    const same = first !== undefined && schemas.every((s) => equal(s, first));
    return { type: 'array', items: same ? first : unknownFieldsSchema() };
  }
  return unknownFieldsSchema();
}

function entriesOf(fields: StatusFieldTypes): StatusFieldType[] {
  if (fields instanceof Map) {
    return [...(fields as ReadonlyMap<string, OpenAPISchema | undefined>)].map(([p, schema]) => ({
      path: parseStatusPath(p),
      schema,
    }));
  }
  return [...(fields as Iterable<StatusFieldType>)];
}

/**
 * Builds the `status` object schema from inferred field types. Paths that disagree structurally
 * (a leaf and an object at the same place) keep the first one seen.
 */
export function statusSchemaFromFieldTypes(fields: StatusFieldTypes): OpenAPISchema {
  const root: Tree = { props: new Map() };
  for (const { path, schema } of entriesOf(fields)) {
    if (path.length === 0) continue;
    let node = root;
    let ok = true;
    for (let i = 0; i < path.length && ok; i++) {
      const seg = path[i]!;
      const last = i === path.length - 1;
      const child: Tree = last ? { leaf: schema ?? null } : {};
      if (typeof seg === 'number') {
        if (node.leaf !== undefined || node.props) ok = false;
        else {
          node.items ??= new Map();
          if (!node.items.has(seg)) node.items.set(seg, child);
          node = node.items.get(seg)!;
        }
      } else {
        if (node.leaf !== undefined || node.items) ok = false;
        else {
          node.props ??= new Map();
          if (!node.props.has(seg)) node.props.set(seg, child);
          node = node.props.get(seg)!;
        }
      }
    }
  }
  const schema = toSchema(root);
  schema.properties ??= {};
  return schema;
}

/** Adds the controller-owned fields (`state`, `conditions`) to a status schema, replacing any author copy. */
export function withStandardStatusFields(status: OpenAPISchema): OpenAPISchema {
  const properties = { ...(isRecord(status.properties) ? status.properties : {}) };
  properties.conditions = structuredClone(CONDITIONS_SCHEMA);
  properties.state = structuredClone(STATE_SCHEMA);
  return { ...status, type: 'object', properties };
}
