/**
 * Type checking (design/graph.md §17): every expression is checked in a CEL environment whose
 * variables are typed from the kinds' OpenAPI schemas (via the KindResolver), the literal types of
 * `def` nodes (design/graph.md §12), the RGD instance schema (SimpleSchema → OpenAPI, src/schema), iterator element
 * types and `each`. Results are compared with the schema of the field they land in
 * (assignability from src/cel/types); literal template fields are validated against the schema (design/graph.md §17.3).
 *
 * Typing across the seams is permissive, as the spec asks: dynamic nodes, subgraph nodes seen from
 * outside, captured ancestor ids and schemaless regions are `dyn`.
 */
import { baseEnvironment, type CelEnvironment, check } from '../cel/index.ts';
import { CONDITION_TYPE } from '../cel/lib/index.ts';
import {
  flatten,
  isAssignable,
  markDynamic,
  type OpenApiSchema,
  SchemaTypeRegistry,
  schemaAtPath,
  withTypeAndObjectMeta,
} from '../cel/types/index.ts';
import type { Diagnostic } from '../diag/diagnostic.ts';
import { didYouMean } from '../diag/suggest.ts';
import { formatPath } from '../expr/index.ts';
import { SchemaCode } from '../schema/codes.ts';
import { celTypeToSchema, statusTypesFromChecked } from '../schema/crd/celTypeSchema.ts';
import { generateCrdFromSchemaSection } from '../schema/crd/generate.ts';
import type { StatusFieldType } from '../schema/crd/statusSchema.ts';
import type { OpenAPISchema } from '../schema/openapi.ts';
import { GraphCode } from './codes.ts';
import {
  isEngineReserved,
  type SourceAt,
  slotLocations,
  slotsWithErrors,
  type TypecheckContext,
} from './compile.ts';
import { kroIncompatibilities } from './kroCompat.ts';
import type {
  CompiledExpr,
  CompiledFrame,
  CompiledGraph,
  CompiledNode,
  ExprSlot,
  JsonValue,
  ValueNode,
} from './model.ts';

/** Schema-layer codes the compiler reports itself (avoid duplicates). */
const DUPLICATED_SCHEMA_CODES = new Set<string>([
  SchemaCode.MissingSchema,
  SchemaCode.InvalidKind,
  SchemaCode.InvalidApiVersion,
  SchemaCode.StatusFieldWithoutExpression,
]);

interface NodeTyping {
  /** The node's value type for same-frame readers. */
  valueType: string;
  /** The item type (for `each` and collections). */
  itemType: string;
  /** The root schema of the object, when known (templates, patches, refs of literal kinds). */
  schema?: OpenApiSchema;
}

export function typecheckGraph(graph: CompiledGraph, ctx: TypecheckContext): void {
  try {
    new Checker(graph, ctx).run();
  } catch (err) {
    // Never crash on an input: report and leave the graph unchecked.
    ctx.report({
      severity: 'error',
      code: GraphCode.CelTypeError,
      message: `type checking failed: ${err instanceof Error ? err.message : String(err)}`,
    });
  }
}

/** Environments with object types registered, per base environment and registry signature (see Checker.typedBase). */
const typedEnvironments = new WeakMap<CelEnvironment, Map<string, CelEnvironment>>();
// Few: each holds an engine with its registered types (about 0.5 MB for a Deployment, a Service and a
// ConfigMap); an editor needs one or two per open document.
const TYPED_ENVIRONMENTS = 4;

class Checker {
  private readonly registry = new SchemaTypeRegistry();
  private readonly childEnvs = new WeakMap<CelEnvironment, Map<string, CelEnvironment>>();
  private readonly base = baseEnvironment();
  private schemaVar: string | undefined;

  constructor(
    private readonly graph: CompiledGraph,
    private readonly ctx: TypecheckContext,
  ) {}

  run(): void {
    if (this.graph.rgd) this.typeRgdSchema();
    this.frame(this.graph.root, new Map());
    if (this.graph.rgd) {
      const env = this.env(this.frameVars(this.graph.root, new Map()));
      for (const s of this.graph.rgd.status) {
        const t = this.checkSlot(s.slot, env, undefined);
        this.expandStatusType(s.slot);
        if (t !== undefined && s.path[0] === 'conditions' && !isConditionType(t)) {
          this.report(
            s.slot,
            GraphCode.ConditionOutputType,
            `condition expressions must return runtime.newCondition(...) or a list of them, got ${t}`,
          );
        }
      }
    }
  }

  private typeRgdSchema(): void {
    const rgd = this.graph.rgd!;
    const generated = generateCrdFromSchemaSection(rgd.raw, {
      ...(this.ctx.locate ? { locate: this.ctx.locate } : {}),
    });
    for (const d of generated.diagnostics) {
      if (!DUPLICATED_SCHEMA_CODES.has(d.code)) this.ctx.report(d);
    }
    const instance: OpenApiSchema = {
      type: 'object',
      properties: { spec: generated.specSchema as OpenApiSchema },
    };
    this.schemaVar = this.registry.typeFor(instance, `${rgd.kind || 'Instance'}Instance`, {
      resourceRoot: true,
    });
  }

  /** Types of the nodes of a frame, as seen by readers in that frame. */
  private readonly typings = new WeakMap<CompiledNode, NodeTyping>();

  private typing(n: CompiledNode): NodeTyping {
    const cached = this.typings.get(n);
    if (cached) return cached;
    let t: NodeTyping;
    if (n.kind === 'graph' || n.dynamic) t = { valueType: 'dyn', itemType: 'dyn' };
    else if (n.kind === 'def') {
      const itemType = n.payload ? this.registry.typeFor(defSchema(n.payload), `${n.id}_def`) : 'dyn';
      t = { valueType: n.forEach.length > 0 ? `list<${itemType}>` : itemType, itemType };
    } else {
      const info =
        n.resolved && this.ctx.resolver
          ? this.ctx.resolver.lookup(n.resolved.apiVersion, n.resolved.kind)
          : undefined;
      const schema = info?.schema as OpenApiSchema | undefined;
      // kro's reading of typeless preserve-unknown fields unless the user opted out (./kroCompat.ts).
      const hideTypeless = this.ctx.kroCompat !== false;
      const itemType = schema
        ? this.registry.typeFor(schema, n.resolved!.kind, { resourceRoot: true, hideTypeless })
        : 'dyn';
      const isList = n.forEach.length > 0 || n.refMode === 'selector' || n.refMode === 'selectorExpr';
      t = { valueType: isList ? `list<${itemType}>` : itemType, itemType, ...(schema ? { schema } : {}) };
    }
    this.typings.set(n, t);
    n.valueType = t.valueType;
    return t;
  }

  /** Variables visible in a frame: outer frames' ids (dyn, shadowed by nearer ones), then own nodes. */
  private frameVars(frame: CompiledFrame, outer: ReadonlyMap<string, string>): Map<string, string> {
    const vars = new Map(outer);
    for (const n of frame.nodes) {
      if (n.kind === 'patch') vars.delete(n.id);
      else vars.set(n.id, this.typing(n).valueType);
    }
    if (this.schemaVar) vars.set('schema', this.schemaVar);
    return vars;
  }

  private env(vars: ReadonlyMap<string, string>): CelEnvironment {
    // Ids equal to a global (`net`, `strings`, `int`) are declared and shadow it, as in cel-go (design/graph.md §16).
    // Names the engine refuses (`prototype`, `namespace`, keywords) are reported, located, by the
    // structure pass (KG2013 / KG2015); declaring them would fail the whole check without a location.
    const declared = [...vars].filter(([name]) => !isEngineReserved(name));
    return this.typedBase().extend({ variables: Object.fromEntries(declared) });
  }

  /**
   * The base environment with the object types derived so far. Registering a kind's types is a good
   * part of a compile, and an editor compiles the same kinds on every keystroke: compiles that derive
   * the same types (equal registry signatures) share one environment.
   */
  private typedBase(): CelEnvironment {
    const key = this.registry.signature();
    let cache = typedEnvironments.get(this.base);
    if (!cache) {
      cache = new Map();
      typedEnvironments.set(this.base, cache);
    }
    let env = cache.get(key);
    if (env) {
      // Most recently used last: the oldest entry is the one evicted.
      cache.delete(key);
    } else {
      env = this.base.extend({ setup: (engine) => this.registry.registerInto(engine) });
      if (cache.size >= TYPED_ENVIRONMENTS) cache.delete(cache.keys().next().value!);
    }
    cache.set(key, env);
    return env;
  }

  /**
   * The frame environment plus a few variables. Extending the frame environment keeps its
   * registered types (cheap); when a name is already declared there (a Graph iterator named like
   * another node), the environment is rebuilt from the base with the override.
   */
  private childEnv(
    frameEnv: CelEnvironment,
    vars: ReadonlyMap<string, string>,
    extra: ReadonlyMap<string, string>,
  ): CelEnvironment {
    // Nodes with the same extra variables (iterator names and types, `each` of one type) share one
    // environment: cloning an environment copies its variable table.
    const key = [...extra].map(([k, v]) => `${k}:${v}`).join(',');
    let cache = this.childEnvs.get(frameEnv);
    if (!cache) {
      cache = new Map();
      this.childEnvs.set(frameEnv, cache);
    }
    const hit = cache.get(key);
    if (hit) return hit;
    const clash = [...extra.keys()].some((k) => vars.has(k) || isEngineReserved(k));
    const env = clash
      ? this.env(new Map([...vars, ...extra]))
      : frameEnv.extend({ variables: Object.fromEntries(extra) });
    cache.set(key, env);
    return env;
  }

  private frame(frame: CompiledFrame, outer: ReadonlyMap<string, string>): void {
    // Derive every node type first so that object types exist before environments are built.
    for (const n of frame.nodes) if (n.kind !== 'patch') this.typing(n);
    const vars = this.frameVars(frame, outer);
    const frameEnv = this.env(vars);
    const captured = new Map([...vars].map(([k]) => [k, 'dyn'] as [string, string]));
    if (this.schemaVar) captured.set('schema', this.schemaVar);
    for (const n of frame.nodes) {
      if (n.children) {
        this.frame(n.children, captured);
        continue;
      }
      this.node(n, vars, frameEnv);
    }
  }

  private node(n: CompiledNode, vars: ReadonlyMap<string, string>, frameEnv: CelEnvironment): void {
    // forEach: standalone, list-typed; iterator variables get the element type.
    const iterators = new Map<string, string>();
    for (const dim of n.forEach) {
      const t = this.checkSlot(dim.slot, frameEnv, undefined);
      if (t === undefined) {
        iterators.set(dim.name, 'dyn');
        continue;
      }
      const elem = elementType(t);
      if (elem === undefined) {
        this.report(
          dim.slot,
          GraphCode.NotList,
          `forEach iterator "${dim.name}" must return a list, got ${t}`,
        );
        iterators.set(dim.name, 'dyn');
      } else iterators.set(dim.name, elem);
    }
    const payloadEnv = n.forEach.length > 0 ? this.childEnv(frameEnv, vars, iterators) : frameEnv;
    for (const [mod, slots] of [
      ['includeWhen', n.includeWhen],
      ['readyWhen', n.readyWhen],
    ] as const) {
      // readyWhen of a single node reads the node itself (already declared in the frame with its
      // item type); a collection's readyWhen reads `each` (reserved: never collides).
      const env =
        mod === 'readyWhen' && n.forEach.length > 0
          ? this.childEnv(frameEnv, vars, new Map([['each', this.typing(n).itemType]]))
          : frameEnv;
      for (const slot of slots) {
        const t = this.checkSlot(slot, env, undefined);
        if (t === undefined) continue;
        const ok = t === 'bool' || t === 'dyn' || (mod === 'readyWhen' && t === 'optional<bool>');
        if (!ok) this.report(slot, GraphCode.NotBool, `${mod} must return bool, got ${t}`);
      }
    }
    if (!n.payload) return;
    const typing = this.typing(n);
    const checkFields = !!typing.schema && (n.kind === 'template' || n.kind === 'patch');
    const isCrd = n.resolved?.kind === 'CustomResourceDefinition';
    this.payload(n, n.payload, [], payloadEnv, checkFields && !isCrd ? typing.schema : undefined);
  }

  private payload(
    n: CompiledNode,
    v: ValueNode,
    path: (string | number)[],
    env: CelEnvironment,
    root: OpenApiSchema | undefined,
  ): void {
    switch (v.t) {
      case 'expr': {
        let expected: OpenApiSchema | undefined;
        if (root) {
          const at = schemaAtPath(root, v.slot.path, { resourceRoot: true });
          if (at.kind === 'unknown') {
            this.report(
              v.slot,
              GraphCode.UnknownLiteralField,
              `field ${formatPath(v.slot.path.slice(0, at.at + 1))} is not declared by the schema of ${n.resolved?.kind}${fieldSuggestion(root, v.slot.path, at.at)}`,
            );
            return;
          }
          if (at.kind === 'schema') expected = at.original;
        }
        this.checkSlot(v.slot, env, expected);
        return;
      }
      case 'object':
        for (const [k, x] of v.entries) this.payload(n, x, [...path, k], env, root);
        return;
      case 'list':
        v.items.forEach((x, i) => {
          this.payload(n, x, [...path, i], env, root);
        });
        return;
      case 'literal':
        if (root) this.literal(n, v.value, [...path], root);
        return;
    }
  }

  /** design/graph.md §17.3: literal fields are validated like the API server would. */
  private literal(
    n: CompiledNode,
    value: JsonValue,
    path: (string | number)[],
    root: OpenApiSchema,
    here?: OpenApiSchema,
  ): void {
    // The first call locates the subtree from the root; children descend one step at a time.
    const at = here
      ? { kind: 'schema' as const, schema: here }
      : schemaAtPath(root, path, { resourceRoot: true });
    if (at.kind === 'schemaless') return;
    if (at.kind === 'unknown') {
      const known = path.slice(0, at.at + 1);
      this.reportAt(
        n,
        known,
        GraphCode.UnknownLiteralField,
        `field ${formatPath(known)} is not declared by the schema of ${n.resolved?.kind}${fieldSuggestion(root, path, at.at)}`,
      );
      return;
    }
    const s = flatten(at.schema, undefined).schema;
    if (s['x-kubernetes-int-or-string'] === true || s['x-kubernetes-preserve-unknown-fields'] === true)
      return;
    if (value === null) return;
    const type =
      s.type ?? (s.properties || s.additionalProperties ? 'object' : s.items ? 'array' : undefined);
    const got = Array.isArray(value) ? 'array' : typeof value === 'object' ? 'object' : typeof value;
    const fits =
      type === undefined ||
      (type === 'string' && got === 'string') ||
      (type === 'boolean' && got === 'boolean') ||
      (type === 'integer' && got === 'number' && Number.isInteger(value)) ||
      (type === 'number' && got === 'number') ||
      (type === 'object' && got === 'object') ||
      (type === 'array' && got === 'array');
    if (!fits) {
      this.reportAt(
        n,
        path,
        GraphCode.LiteralTypeMismatch,
        `type mismatch at ${formatPath(path)}: expected ${type}, got ${got === 'number' && type === 'integer' ? 'a non-integer number' : got}`,
      );
      return;
    }
    if (got !== 'object' && got !== 'array') return;
    const children: [string | number, JsonValue][] =
      got === 'array' ? (value as JsonValue[]).map((x, i) => [i, x]) : Object.entries(value as object);
    for (const [k, x] of children) {
      const child = schemaAtPath(s, [k]);
      path.push(k);
      if (child.kind === 'unknown') {
        this.reportAt(
          n,
          path,
          GraphCode.UnknownLiteralField,
          `field ${formatPath(path)} is not declared by the schema of ${n.resolved?.kind}${typeof k === 'string' ? didYouMean(k, Object.keys(s.properties ?? {})) : ''}`,
        );
      } else if (child.kind === 'schema') {
        this.literal(n, x, path, root, child.schema);
      }
      path.pop();
    }
  }

  /**
   * Checks one slot; returns its result type, or undefined when it does not type-check (reported).
   * With an expected schema, the result must be assignable to it.
   */
  private checkSlot(
    slot: ExprSlot,
    env: CelEnvironment,
    expected: OpenApiSchema | undefined,
  ): string | undefined {
    if (slotsWithErrors.has(slot)) return undefined;
    const exprs = slot.parts.filter((p): p is CompiledExpr => typeof p !== 'string');
    let result: string | undefined;
    let ok = true;
    for (const e of exprs) {
      const r = check(e.cel, env);
      if (!r.ok) {
        ok = false;
        if (r.error.engineCode === 'unknown_variable') continue; // reported as an unknown identifier
        const msg =
          r.error.engineCode === 'no_such_key'
            ? this.typelessHint(
                r.error.message.startsWith('undefined field ')
                  ? r.error.message // the CEL layer already words it as cel-go does
                  : `undefined field '${r.error.message.replace(/^No such key: /, '')}'`,
              )
            : r.error.engineCode === 'cannot_index_type'
              ? `${r.error.message.replace(/^Cannot index type '([^']+)'$/, "type '$1'")} does not support field selection`
              : r.error.message;
        this.report(
          slot,
          r.error.engineCode === 'no_such_key' ? GraphCode.UndefinedField : GraphCode.CelTypeError,
          `\${${e.cel}}: ${msg}`,
          e.offset + 2 + r.error.position,
          Math.max(1, r.error.end - r.error.position),
        );
        continue;
      }
      e.resultType = r.value;
      if (this.ctx.kroCompat !== false) {
        for (const issue of kroIncompatibilities(e.cel, env)) {
          this.report(
            slot,
            GraphCode.KroIncompatible,
            `\${${e.cel}}: ${issue.message} [kro compatibility: this manifest would fail in kro; --no-kro-compat accepts it as a kgraph extension]`,
            e.offset + 2 + issue.position,
            Math.max(1, issue.end - issue.position),
          );
          ok = false;
        }
      }
      if (slot.mode === 'template' && !isStringLike(r.value)) {
        ok = false;
        this.report(
          slot,
          GraphCode.TemplatePartNotString,
          `string template part \${${e.cel}} has type ${r.value}; every part must be a string (wrap it: \${string(…)})`,
          e.offset,
          e.cel.length + 3,
        );
      }
      result = r.value;
    }
    if (!ok) return undefined;
    const type = slot.mode === 'template' ? 'string' : (result ?? 'dyn');
    if (expected) {
      slot.expectedType = this.registry.typeFor(expected, 'Expected');
      const fit = isAssignable(type, expected, this.registry, { basePath: formatPath(slot.path) });
      if (!fit.ok) {
        this.report(
          slot,
          GraphCode.TypeMismatch,
          `type mismatch at ${fit.fieldPath || formatPath(slot.path)}: expected ${fit.expected}, got ${fit.got}${mismatchDetail(fit.message)}`,
        );
      }
    }
    return type;
  }

  /** Keeps the expanded schema of a status expression whose type names object types (kro's CRD). */
  private expandStatusType(slot: ExprSlot): void {
    if (slot.mode !== 'standalone') return;
    const e = slot.parts.find((p): p is CompiledExpr => typeof p !== 'string');
    if (!e?.resultType) return;
    let named = false;
    const fields = (name: string) => {
      const f = this.registry.objectType(name)?.fields;
      if (f) named = true;
      return f;
    };
    const schema = celTypeToSchema(e.resultType, fields);
    if (named && schema) e.resultSchema = schema as JsonValue;
  }

  /**
   * An undefined field that the kind's schema does declare, with only x-kubernetes-preserve-unknown-fields
   * and no type: kro rejects the read too; say so and name the opt-in.
   */
  private typelessHint(message: string): string {
    const field = /^undefined field '([^']+)'/.exec(message)?.[1];
    if (field === undefined || this.registry.hiding(field).length === 0) return message;
    return `${message} [kro compatibility: the schema declares ${field} with only x-kubernetes-preserve-unknown-fields and no type, which kro does not expose to CEL; --no-kro-compat reads it as dyn]`;
  }

  private report(slot: ExprSlot, code: string, message: string, offset?: number, length?: number): void {
    const loc = slotLocations.get(slot);
    let at: SourceAt | undefined = loc?.at;
    if (at && 'offset' in at && offset !== undefined)
      at = { ...at, offset: at.offset + offset, length: length ?? 1 };
    const d: Omit<Diagnostic, 'location'> & { at?: SourceAt } = { severity: 'error', code, message };
    if (loc?.node !== undefined) d.node = loc.node;
    if (loc) d.path = formatPath(loc.segs);
    if (at) d.at = at;
    this.ctx.report(d);
  }

  /** Reports at a literal payload field, located through the document path. */
  private reportAt(n: CompiledNode, path: (string | number)[], code: string, message: string): void {
    const inner = formatPath(path);
    const docPath = `${n.docPath}.${n.kind}${inner === '' ? '' : inner.startsWith('[') ? inner : `.${inner}`}`;
    const loc = this.ctx.locate?.(docPath);
    const d: Diagnostic = { severity: 'error', code, message, node: n.path, path: docPath };
    if (loc) d.location = loc;
    this.ctx.report(d);
  }
}

/**
 * ` (did you mean "name"?)` for the unknown segment `path[at]`, from the fields its parent declares
 * (a typo such as `metadata.nmae` or `spec.selectr`), or ''.
 */
function fieldSuggestion(root: OpenApiSchema, path: readonly (string | number)[], at: number): string {
  const word = path[at];
  if (typeof word !== 'string') return '';
  const parent = schemaAtPath(root, path.slice(0, at), { resourceRoot: true });
  if (parent.kind !== 'schema') return '';
  const s =
    parent.schema['x-kubernetes-embedded-resource'] === true
      ? withTypeAndObjectMeta(parent.schema)
      : parent.schema;
  return didYouMean(word, Object.keys(s.properties ?? {}));
}

/**
 * The assignability reason, when it says more than "expected X, got Y" (which the message already
 * has): a nested field or an optional, never a second wording of the same mismatch.
 */
function mismatchDetail(reason: string): string {
  if (/^type mismatch: kind mismatch, got "[^"]*", expected "[^"]*"$/.test(reason)) return '';
  return ` (${reason.replace(/: type mismatch: kind mismatch, got "[^"]*", expected "[^"]*"$/, '')})`;
}

function isStringLike(t: string): boolean {
  return t === 'string' || t === 'dyn';
}

/** `list<T>` → T; dyn → dyn; anything else → undefined. */
function elementType(t: string): string | undefined {
  if (t === 'dyn') return 'dyn';
  const m = /^list<(.*)>$/.exec(t);
  return m ? m[1] : undefined;
}

/** kgraph's "dyn" in a def's derived schema (marked: never taken for a user's typeless field). */
const DYN: OpenApiSchema = markDynamic({ 'x-kubernetes-preserve-unknown-fields': true });

/** design/graph.md §12: the OpenAPI schema of a def's literal structure (closed objects; expressions are dyn). */
function defSchema(v: ValueNode): OpenApiSchema {
  switch (v.t) {
    case 'expr':
      return DYN;
    case 'object': {
      const properties: Record<string, OpenApiSchema> = {};
      for (const [k, x] of v.entries) properties[k] = defSchema(x);
      return { type: 'object', properties };
    }
    case 'list': {
      const items = v.items.map(defSchema);
      return { type: 'array', items: homogeneous(items) };
    }
    case 'literal':
      return literalSchema(v.value);
  }
}

function literalSchema(value: JsonValue): OpenApiSchema {
  if (value === null) return DYN;
  if (typeof value === 'string') return { type: 'string' };
  if (typeof value === 'boolean') return { type: 'boolean' };
  if (typeof value === 'number') return { type: Number.isInteger(value) ? 'integer' : 'number' };
  if (Array.isArray(value)) return { type: 'array', items: homogeneous(value.map(literalSchema)) };
  const properties: Record<string, OpenApiSchema> = {};
  for (const [k, x] of Object.entries(value)) properties[k] = literalSchema(x);
  return { type: 'object', properties };
}

/** The common item schema of a list when all items are the same primitive type, dyn otherwise. */
function homogeneous(items: OpenApiSchema[]): OpenApiSchema {
  const first = items[0];
  if (!first) return DYN;
  const primitive = (s: OpenApiSchema) =>
    s.type === 'string' || s.type === 'integer' || s.type === 'number' || s.type === 'boolean'
      ? s.type
      : undefined;
  const t = primitive(first);
  if (t && items.every((s) => primitive(s) === t)) return { type: t };
  return DYN;
}

export { defSchema };

/** One inferred status field type (the shape src/schema's CRD generator accepts as `statusTypes`). */
export type InferredStatusType = StatusFieldType;

/**
 * The OpenAPI schemas of an RGD's status fields from the checked result types (design/graph.md §18.5): run after
 * type checking. Templates are strings; `optional<T>` is T; object and dyn results stay untyped.
 * The mapping is the CRD generator's (src/schema/crd/celTypeSchema.ts).
 */
export function statusFieldTypes(graph: CompiledGraph): InferredStatusType[] {
  return statusTypesFromChecked(
    (graph.rgd?.status ?? []).map((s) => {
      const first = s.slot.parts.find((p): p is CompiledExpr => typeof p !== 'string');
      const resultType = first?.resultType;
      const resultSchema = first?.resultSchema as OpenAPISchema | undefined;
      return {
        path: s.path,
        mode: s.slot.mode,
        ...(resultType ? { resultType } : {}),
        ...(resultSchema ? { resultSchema } : {}),
      };
    }),
  );
}

/** Custom conditions (design/rgd.md §20.3): a Condition, a list of them, or dyn (checked when evaluated). */
function isConditionType(t: string): boolean {
  const item = t.startsWith('list<') && t.endsWith('>') ? t.slice(5, -1) : t;
  return item === CONDITION_TYPE || item === 'dyn';
}
