/**
 * RGD schema pass (kro: the schema step of the builder): spec.schema kind and apiVersion, the
 * instance schema carried into the compiled RGD, status projections (each a ${…} expression with
 * soft references, design/rgd.md §20) and the custom-condition rules of design/rgd.md §20.3.
 */
import { formatPath, type PathSegment } from '../../expr/index.ts';
import { GraphCode } from '../codes.ts';
import type { CompiledRgd, ExprSlot, StatusField } from '../model.ts';
import { toJson, type YEntry, type YMap, type YNode } from '../yamlTree.ts';
import { compileSlot } from './expressions.ts';
import { type CompilerState, type FrameDraft, slotLocations } from './state.ts';
import { entryOf, get, str } from './yamlAccess.ts';

const RGD_KIND = /^[A-Z][a-zA-Z0-9]{0,62}$/;
const RGD_VERSION = /^v[0-9]+(alpha[0-9]+|beta[0-9]+)?$/;

export function checkRgdSchema(s: CompilerState, spec: YMap, schemaEntry: YEntry | undefined): void {
  const { ctx } = s;
  if (schemaEntry?.value.t !== 'map') {
    ctx.error(GraphCode.RgdSchemaMissing, 'spec.schema is required and must be a map', {
      segs: ['spec', 'schema'],
      at: { pos: schemaEntry ? schemaEntry.value.pos : spec.pos },
    });
    return;
  }
  const schema = schemaEntry.value;
  // kind and apiVersion: both required, both with a fixed pattern.
  const requireMatching = (
    field: 'kind' | 'apiVersion',
    pattern: RegExp,
    code: string,
    invalid: (v: string) => string,
  ) => {
    const entry = entryOf(schema, field);
    const value = str(entry?.value);
    const segs = ['spec', 'schema', field];
    if (value === undefined) {
      ctx.error(GraphCode.RgdSchemaMissing, `spec.schema.${field} is required`, {
        segs,
        at: { pos: schemaEntry.keyPos },
      });
    } else if (!pattern.test(value)) {
      ctx.error(code, invalid(value), { segs, at: { pos: entry!.value.pos } });
    }
  };
  requireMatching(
    'kind',
    RGD_KIND,
    GraphCode.RgdInvalidKind,
    (kind) =>
      `kind ${JSON.stringify(kind)} is not a valid KRO kind name: must be UpperCamelCase (^[A-Z][a-zA-Z0-9]{0,62}$)`,
  );
  requireMatching(
    'apiVersion',
    RGD_VERSION,
    GraphCode.RgdInvalidApiVersion,
    (ver) =>
      `apiVersion ${JSON.stringify(ver)} is not valid: must match ^v[0-9]+(alpha[0-9]+|beta[0-9]+)?$ (e.g. v1alpha1)`,
  );
}

export function compileRgd(
  s: CompilerState,
  schemaEntry: YEntry,
  frame: FrameDraft,
): CompiledRgd | undefined {
  const schema = schemaEntry.value;
  if (schema.t !== 'map') return undefined;
  const scope = str(get(schema, 'scope')) === 'Cluster' ? 'Cluster' : 'Namespaced';
  const status: StatusField[] = [];
  const statusEntry = entryOf(schema, 'status');
  if (statusEntry) compileStatus(s, statusEntry.value, [], ['spec', 'schema', 'status'], frame, status);
  checkCustomConditions(s, status);
  const rawStatus = statusEntry ? toJson(statusEntry.value) : null;
  return {
    apiVersion: str(get(schema, 'apiVersion')) ?? '',
    kind: str(get(schema, 'kind')) ?? '',
    group: str(get(schema, 'group')) ?? 'kro.run',
    scope,
    specSchema: get(schema, 'spec') ? toJson(get(schema, 'spec')!) : {},
    types: get(schema, 'types') ? toJson(get(schema, 'types')!) : {},
    statusSchema: rawStatus,
    status,
    raw: toJson(schema),
  };
}

/**
 * Custom conditions (design/rgd.md §20.3): literal condition types are unique, and no expression looks up one of
 * this RGD's own custom condition types on `schema` (the instance's conditions are written from
 * them, so the lookup would read its own output).
 */
/** kro's built-in instance condition types: `runtime.condition(schema, T)` reads them, never the author's. */
const BUILTIN_CONDITION_TYPES = new Set(['InstanceManaged', 'GraphResolved', 'ResourcesReady', 'Ready']);

export function checkCustomConditions(s: CompilerState, status: StatusField[]): void {
  // A literal type only: `type: 'A'` followed by the entry's end, not `type: 'Same-' + x` (kro's check reads
  // map literals whose `type` value is a string literal; a computed type is deduplicated at run time).
  const TYPE = /(?:['"]type['"]|\btype)\s*:\s*(['"])([^'"]+)\1(?=\s*[,}])/g;
  const LOOKUP = /runtime\.condition\(\s*schema\s*,\s*(['"])([^'"]+)\1/g;
  const own = new Map<string, ExprSlot>();
  for (const f of status) {
    if (f.path[0] !== 'conditions') continue;
    for (const p of f.slot.parts) {
      if (typeof p === 'string' || !p.cel.includes('runtime.newCondition')) continue;
      for (const m of p.cel.matchAll(TYPE)) {
        const type = m[2]!;
        const loc = slotLocations.get(f.slot);
        if (own.has(type)) {
          s.ctx.error(
            GraphCode.DuplicateConditionType,
            `duplicate custom condition type ${JSON.stringify(type)}`,
            {
              segs: loc?.segs ?? ['spec', 'schema', 'status', 'conditions'],
              ...(loc ? { at: loc.at } : {}),
            },
          );
        } else own.set(type, f.slot);
      }
    }
  }
  if (own.size === 0) return;
  const visit = (slot: ExprSlot): void => {
    for (const p of slot.parts) {
      if (typeof p === 'string') continue;
      for (const m of p.cel.matchAll(LOOKUP)) {
        // The built-in types read kro's own value even when the author overrides them on the wire.
        if (!own.has(m[2]!) || BUILTIN_CONDITION_TYPES.has(m[2]!)) continue;
        const loc = slotLocations.get(slot);
        s.ctx.error(
          GraphCode.OwnConditionLookup,
          `runtime.condition(schema, ${JSON.stringify(m[2])}) reads a custom condition this RGD defines itself`,
          {
            ...(loc?.node !== undefined ? { node: loc.node } : {}),
            segs: loc?.segs ?? [],
            ...(loc ? { at: loc.at } : {}),
          },
        );
      }
    }
  };
  for (const f of status) visit(f.slot);
}

export function compileStatus(
  s: CompilerState,
  node: YNode,
  path: (string | number)[],
  segs: PathSegment[],
  frame: FrameDraft,
  out: StatusField[],
): void {
  const { ctx } = s;
  if (node.t === 'map') {
    for (const e of node.entries) compileStatus(s, e.value, [...path, e.key], [...segs, e.key], frame, out);
    return;
  }
  if (node.t === 'seq') {
    node.items.forEach((item, i) => {
      compileStatus(s, item, [...path, i], [...segs, i], frame, out);
    });
    return;
  }
  if (typeof node.value !== 'string' || !node.value.includes('${')) {
    ctx.error(
      GraphCode.StatusWithoutExpression,
      `status fields without expressions are not supported: status.${formatPath(path)} must be a \${…} expression`,
      { segs, at: { pos: node.pos } },
    );
    return;
  }
  const inConditions = path[0] === 'conditions';
  const before = ctx.diagnostics.length;
  const slot = compileSlot(s, node, path, segs, undefined, 'status', frame, inConditions);
  if (!slot) return;
  const hadErrors = ctx.diagnostics.length > before;
  const reads = new Set<string>();
  for (const p of slot.parts) {
    if (typeof p === 'string') continue;
    for (const r of p.refs) if (r.target) reads.add(r.target);
  }
  // A custom condition may be a constant (`runtime.newCondition({type: 'X', status: 'True', …})`), as kro allows.
  if (reads.size === 0 && !hadErrors && !inConditions) {
    ctx.error(
      GraphCode.StatusReferencesNothing,
      `status field status.${formatPath(path)} references no resource and no schema field; a constant is not a status`,
      { segs, at: { pos: node.pos } },
    );
  }
  out.push({ path, slot, reads: [...reads] });
}
