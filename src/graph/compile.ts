// biome-ignore-all lint/suspicious/noTemplateCurlyInString: messages quote kgraph ${…} syntax
/**
 * The compiler: one YAML document (Graph, kro RGD or krop RGD) → a validated CompiledGraph plus
 * diagnostics. Pipeline (graph-semantics.md §19.3, applied to all three source kinds):
 *
 *   object shape → per frame: node structure (ids, kinds, modifiers, payload rules) →
 *   expressions (scan, CEL parse, references resolved through the frame chain) →
 *   reference rules (self, patch, readyWhen, iterators, scopes, identity) → DAG per frame →
 *   RGD status projections → type checking (./typecheck.ts).
 *
 * Every rule reports its own code (./codes.ts) with node id, field path and file position, and the
 * compiler keeps going after an error so that one run shows every problem.
 */
import { listReferences, parse as parseCel } from '../cel/index.ts';
import type { Diagnostic, Severity, SourceLocation } from '../diag/diagnostic.ts';
import { ExprCodes, formatPath, type PathSegment, scanValue } from '../expr/index.ts';
import { extractReferences } from './celRefs.ts';
import { GraphCode } from './codes.ts';
import { analyseDag } from './dag.ts';
import { type KindInfo, type KindResolver, splitApiVersion } from './kinds.ts';
import type {
  CompiledExpr,
  CompiledFrame,
  CompiledGraph,
  CompiledNode,
  CompiledRgd,
  DependencyEdge,
  ExprRef,
  ExprSlot,
  ForEachDimension,
  JsonValue,
  NodeKind,
  Plane,
  SourceKind,
  StatusField,
  ValueNode,
} from './model.ts';
import {
  type Pos,
  toJson,
  type YDocument,
  type YEntry,
  type YMap,
  type YNode,
  type YScalar,
} from './yamlTree.ts';

export interface CompileOptions {
  /** Kind information (scope, schema). Without it, scope-dependent rules and type checks are skipped. */
  resolver?: KindResolver;
  /** Type checking pass, injected to keep this module free of the type layer (see ./typecheck.ts). */
  typecheck?: (graph: CompiledGraph, ctx: TypecheckContext) => void;
}

/** What the type-checking pass receives besides the graph. */
export interface TypecheckContext {
  resolver: KindResolver | undefined;
  /** Source position of a document field path (`spec.nodes[0].template.data.x`). */
  locate?: (path: string) => SourceLocation | undefined;
  report: (d: Omit<Diagnostic, 'location'> & { at?: SourceAt }) => void;
}

/** A position in the source for a diagnostic: a YAML node, an explicit range, or a node's key. */
export type SourceAt = { pos: Pos } | { offset: number; length: number };

export interface CompileResult {
  /** The object as read from the document (for reports). */
  object: { apiVersion: string; kind: string; name: string };
  /** Present when the document was a supported kind, even if it has errors (for drawing). */
  graph?: CompiledGraph;
  diagnostics: Diagnostic[];
  /** True when no diagnostic has severity `error`. */
  accepted: boolean;
}

// ── reserved words and patterns ─────────────────────────────────────────────

import { GRAPH_RESERVED, RGD_RESERVED } from './reserved.ts';

export { GRAPH_RESERVED, RGD_RESERVED };

const GRAPH_ID = /^[A-Za-z][A-Za-z0-9]*$/;
const RGD_ID = /^[a-z][a-zA-Z0-9]*$/;
const RGD_KIND = /^[A-Z][a-zA-Z0-9]{0,62}$/;
const RGD_VERSION = /^v[0-9]+(alpha[0-9]+|beta[0-9]+)?$/;
const MAX_DIMENSIONS = 10;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const PATCH_FORBIDDEN_METADATA = ['ownerReferences', 'finalizers', 'deletionTimestamp', 'uid'];

interface Flavor {
  source: SourceKind;
  rgd: boolean;
  listKey: 'nodes' | 'resources';
  kindFields: readonly NodeKind[];
  idPattern: RegExp;
  reserved: ReadonlySet<string>;
  allowedFields: ReadonlySet<string>;
}

const GRAPH_FLAVOR: Flavor = {
  source: 'Graph',
  rgd: false,
  listKey: 'nodes',
  kindFields: ['template', 'ref', 'def', 'graph', 'patch'],
  idPattern: GRAPH_ID,
  reserved: GRAPH_RESERVED,
  allowedFields: new Set([
    'id',
    'template',
    'ref',
    'def',
    'graph',
    'patch',
    'includeWhen',
    'readyWhen',
    'forEach',
  ]),
};

const KRO_RGD_FLAVOR: Flavor = {
  source: 'KroRGD',
  rgd: true,
  listKey: 'resources',
  kindFields: ['template', 'externalRef'],
  idPattern: RGD_ID,
  reserved: RGD_RESERVED,
  allowedFields: new Set(['id', 'template', 'externalRef', 'includeWhen', 'readyWhen', 'forEach']),
};

const KROP_RGD_FLAVOR: Flavor = {
  ...KRO_RGD_FLAVOR,
  source: 'KropRGD',
  allowedFields: new Set(['id', 'template', 'externalRef', 'includeWhen', 'readyWhen', 'forEach', 'target']),
};

/** Modifiers accepted per node kind (§5). */
const MODIFIERS: Record<NodeKind, { includeWhen: boolean; readyWhen: boolean; forEach: boolean }> = {
  template: { includeWhen: true, readyWhen: true, forEach: true },
  ref: { includeWhen: true, readyWhen: true, forEach: false },
  externalRef: { includeWhen: true, readyWhen: true, forEach: true /* rejected with its own rule */ },
  def: { includeWhen: true, readyWhen: true, forEach: true },
  patch: { includeWhen: true, readyWhen: false, forEach: true },
  graph: { includeWhen: false, readyWhen: false, forEach: false },
};

/** Detects which API a document is written in. */
export function sourceKindOf(apiVersion: unknown, kind: unknown): SourceKind | undefined {
  if (apiVersion === 'kro.run/v1alpha1' && kind === 'Graph') return 'Graph';
  if (apiVersion === 'kro.run/v1alpha1' && kind === 'ResourceGraphDefinition') return 'KroRGD';
  if (apiVersion === 'krop.opendefense.cloud/v1alpha1' && kind === 'ResourceGraphDefinition')
    return 'KropRGD';
  return undefined;
}

// ── drafts: the compiler's working state ────────────────────────────────────

interface Draft {
  id: string;
  frame: FrameDraft;
  declIndex: number;
  yaml: YMap;
  segs: PathSegment[];
  idAt: Pos;
  kind?: NodeKind;
  payload?: YNode;
  payloadSegs: PathSegment[];
  target: Plane;
  iterators: { name: string; value: YScalar | undefined; segs: PathSegment[]; at: Pos }[];
  includeWhen: { value: YNode; segs: PathSegment[] }[];
  readyWhen: { value: YNode; segs: PathSegment[] }[];
  children?: FrameDraft;
  /** Dependencies (indices into frame.nodes), with the reader field paths that create them. */
  deps: Map<number, Set<string>>;
  /** Captured ancestor node paths (for graph nodes). */
  captures: Set<string>;
  dynamic: boolean;
  info?: KindInfo;
  apiVersion?: string;
  kindName?: string;
  compiled?: CompiledNode;
  valid: boolean;
  /** For patches: the endpoint chosen by the structure pass (§13.1). */
  compiledPatchEndpoint?: 'main' | 'status';
}

interface FrameDraft {
  path: string;
  depth: number;
  parent?: FrameDraft;
  owner?: Draft;
  nodes: Draft[];
  byId: Map<string, Draft>;
}

type Role = 'payload' | 'forEach' | 'includeWhen' | 'readyWhen' | 'status';

class Ctx {
  readonly diagnostics: Diagnostic[] = [];
  constructor(
    readonly doc: YDocument,
    readonly flavor: Flavor,
    readonly resolver: KindResolver | undefined,
  ) {}

  report(
    severity: Severity,
    code: string,
    message: string,
    where: { node?: string; segs?: readonly PathSegment[]; at?: SourceAt; hint?: string },
  ): void {
    const d: Diagnostic = { severity, code, message };
    if (where.node !== undefined) d.node = where.node;
    if (where.segs) d.path = formatPath(where.segs);
    if (where.at) {
      const { offset, length } = 'pos' in where.at ? where.at.pos : where.at;
      d.location = this.doc.source.location(offset, length);
    }
    if (where.hint) d.hint = where.hint;
    this.diagnostics.push(d);
  }

  error(code: string, message: string, where: Parameters<Ctx['report']>[3]): void {
    this.report('error', code, message, where);
  }
}

// ── entry point ─────────────────────────────────────────────────────────────

export function compileDocument(doc: YDocument, options: CompileOptions = {}): CompileResult {
  const root = doc.root;
  const apiVersion = str(get(root, 'apiVersion')) ?? '';
  const kind = str(get(root, 'kind')) ?? '';
  const name = str(get(get(root, 'metadata'), 'name')) ?? '';
  const object = { apiVersion, kind, name };
  const source = sourceKindOf(apiVersion, kind);
  const flavor =
    source === 'Graph'
      ? GRAPH_FLAVOR
      : source === 'KroRGD'
        ? KRO_RGD_FLAVOR
        : source === 'KropRGD'
          ? KROP_RGD_FLAVOR
          : undefined;
  const ctx = new Ctx(doc, flavor ?? GRAPH_FLAVOR, options.resolver);
  if (root?.t !== 'map' || !flavor) {
    ctx.error(
      GraphCode.UnsupportedDocument,
      `not a Graph or ResourceGraphDefinition: apiVersion ${JSON.stringify(apiVersion)}, kind ${JSON.stringify(kind)} ` +
        '(expected kro.run/v1alpha1 Graph or ResourceGraphDefinition, or krop.opendefense.cloud/v1alpha1 ResourceGraphDefinition)',
      { at: { pos: root ? root.pos : { offset: 0, length: 0 } } },
    );
    return { object, diagnostics: ctx.diagnostics, accepted: false };
  }
  const compiler = new Compiler(ctx);
  const graph = compiler.run(root, object);
  if (options.typecheck) {
    options.typecheck(graph, {
      resolver: options.resolver,
      locate: (path) => {
        const at = locatePath(root, path);
        return at ? doc.source.location(at.pos.offset, at.pos.length) : undefined;
      },
      report: (d) => {
        const { at, ...rest } = d;
        const diag: Diagnostic = { ...rest };
        if (at) {
          const { offset, length } = 'pos' in at ? at.pos : at;
          diag.location = doc.source.location(offset, length);
        }
        ctx.diagnostics.push(diag);
      },
    });
  }
  const accepted = ctx.diagnostics.every((d) => d.severity !== 'error');
  return { object, graph, diagnostics: ctx.diagnostics, accepted };
}

// ── the compiler proper ─────────────────────────────────────────────────────

class Compiler {
  private readonly flavor: Flavor;
  /** Every node id of the RGD (iterator names may not equal any of them). */
  private rgdIds = new Set<string>();
  private rgdClusterScoped = false;

  constructor(private readonly ctx: Ctx) {
    this.flavor = ctx.flavor;
  }

  run(root: YMap, object: { apiVersion: string; kind: string; name: string }): CompiledGraph {
    const { ctx, flavor } = this;
    const metadata = get(root, 'metadata');
    if (!object.name) {
      ctx.error(GraphCode.MissingObjectName, `${object.kind} has no metadata.name`, {
        segs: ['metadata', 'name'],
        at: { pos: (metadata ?? root).pos },
      });
    }
    const spec = get(root, 'spec');
    const graph: CompiledGraph = {
      source: flavor.source,
      apiVersion: object.apiVersion,
      name: object.name,
      gating: flavor.rgd ? 'ready' : 'scope',
      root: emptyFrame(''),
      requiredKinds: [],
      hasDynamic: false,
      file: ctx.doc.file,
    };
    const ns = str(get(metadata, 'namespace'));
    if (ns !== undefined) graph.namespace = ns;
    if (spec?.t !== 'map') {
      ctx.error(GraphCode.InvalidShape, `${object.kind} has no spec`, {
        segs: ['spec'],
        at: { pos: root.pos },
      });
      return graph;
    }
    const sa = str(get(spec, 'serviceAccountName'));
    if (!flavor.rgd && sa !== undefined) {
      graph.serviceAccountName = sa;
      if (sa.length > 253 || !DNS_SUBDOMAIN.test(sa)) {
        ctx.error(
          GraphCode.InvalidServiceAccountName,
          `spec.serviceAccountName ${JSON.stringify(sa)} must be a DNS-1123 subdomain of at most 253 characters`,
          { segs: ['spec', 'serviceAccountName'], at: { pos: get(spec, 'serviceAccountName')!.pos } },
        );
      }
    }

    let schemaEntry: YEntry | undefined;
    if (flavor.rgd) {
      schemaEntry = entryOf(spec, 'schema');
      this.checkRgdSchema(spec, schemaEntry);
      this.rgdClusterScoped = str(get(schemaEntry?.value, 'scope')) === 'Cluster';
    }

    const listEntry = entryOf(spec, flavor.listKey);
    const listSegs: PathSegment[] = ['spec', flavor.listKey];
    const frame: FrameDraft = { path: '', depth: 0, nodes: [], byId: new Map() };
    if (listEntry?.value.t !== 'seq' || listEntry.value.items.length === 0) {
      if (
        listEntry &&
        listEntry.value.t !== 'seq' &&
        !(listEntry.value.t === 'scalar' && listEntry.value.value === null)
      ) {
        ctx.error(GraphCode.InvalidShape, `spec.${flavor.listKey} must be a list`, {
          segs: listSegs,
          at: { pos: listEntry.value.pos },
        });
      } else {
        ctx.error(GraphCode.NoNodes, `spec.${flavor.listKey} must contain at least one node`, {
          segs: listSegs,
          at: { pos: listEntry ? listEntry.keyPos : spec.pos },
        });
      }
    } else {
      this.readFrame(frame, listEntry.value.items, listSegs);
    }
    if (flavor.rgd) for (const d of frame.nodes) this.rgdIds.add(d.id);

    // Node rules and expressions, outer frame first so that captures can be attached.
    this.compileFrame(frame);
    graph.root = this.finishFrame(frame);

    if (flavor.rgd && schemaEntry) graph.rgd = this.compileRgd(schemaEntry, frame);

    const kinds = new Map<string, { apiVersion: string; kind: string }>();
    const visit = (f: FrameDraft): void => {
      for (const d of f.nodes) {
        if (d.dynamic) graph.hasDynamic = true;
        if (d.apiVersion && d.kindName && !d.dynamic && d.kind !== 'def' && d.kind !== 'graph') {
          kinds.set(`${d.apiVersion}/${d.kindName}`, { apiVersion: d.apiVersion, kind: d.kindName });
        }
        if (d.children) visit(d.children);
      }
    };
    visit(frame);
    graph.requiredKinds = [...kinds.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, v]) => v);
    return graph;
  }

  // ── RGD schema ──────────────────────────────────────────────────────────

  private checkRgdSchema(spec: YMap, schemaEntry: YEntry | undefined): void {
    const { ctx } = this;
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

  private compileRgd(schemaEntry: YEntry, frame: FrameDraft): CompiledRgd | undefined {
    const schema = schemaEntry.value;
    if (schema.t !== 'map') return undefined;
    const scope = str(get(schema, 'scope')) === 'Cluster' ? 'Cluster' : 'Namespaced';
    const status: StatusField[] = [];
    const statusEntry = entryOf(schema, 'status');
    if (statusEntry) this.compileStatus(statusEntry.value, [], ['spec', 'schema', 'status'], frame, status);
    this.checkCustomConditions(status);
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
   * Custom conditions (§20.3): literal condition types are unique, and no expression looks up one of
   * this RGD's own custom condition types on `schema` (the instance's conditions are written from
   * them, so the lookup would read its own output).
   */
  private checkCustomConditions(status: StatusField[]): void {
    const TYPE = /(?:['"]type['"]|\btype)\s*:\s*(['"])([^'"]+)\1/g;
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
            this.ctx.error(
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
          if (!own.has(m[2]!)) continue;
          const loc = slotLocations.get(slot);
          this.ctx.error(
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

  private compileStatus(
    node: YNode,
    path: (string | number)[],
    segs: PathSegment[],
    frame: FrameDraft,
    out: StatusField[],
  ): void {
    const { ctx } = this;
    if (node.t === 'map') {
      for (const e of node.entries)
        this.compileStatus(e.value, [...path, e.key], [...segs, e.key], frame, out);
      return;
    }
    if (node.t === 'seq') {
      node.items.forEach((item, i) => {
        this.compileStatus(item, [...path, i], [...segs, i], frame, out);
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
    const slot = this.compileSlot(node, path, segs, undefined, 'status', frame, inConditions);
    if (!slot) return;
    const hadErrors = ctx.diagnostics.length > before;
    const reads = new Set<string>();
    for (const p of slot.parts) {
      if (typeof p === 'string') continue;
      for (const r of p.refs) if (r.target) reads.add(r.target);
    }
    if (reads.size === 0 && !hadErrors) {
      ctx.error(
        GraphCode.StatusReferencesNothing,
        `status field status.${formatPath(path)} references no resource and no schema field; a constant is not a status`,
        { segs, at: { pos: node.pos } },
      );
    }
    out.push({ path, slot, reads: [...reads] });
  }

  // ── frames and node structure ───────────────────────────────────────────

  private readFrame(frame: FrameDraft, items: YNode[], listSegs: PathSegment[]): void {
    const { ctx, flavor } = this;
    items.forEach((item, i) => {
      const segs = [...listSegs, i];
      if (item.t !== 'map') {
        ctx.error(GraphCode.InvalidShape, 'a node must be a map with an id and one node kind', {
          segs,
          at: { pos: item.pos },
        });
        return;
      }
      const idE = entryOf(item, 'id');
      const id = str(idE?.value);
      const nodePath = (x: string) => (frame.path ? `${frame.path}.${x}` : x);
      if (id === undefined || id === '') {
        ctx.error(GraphCode.MissingId, 'node has no id', {
          segs: [...segs, 'id'],
          at: { pos: idE ? idE.value.pos : item.pos },
        });
        return;
      }
      const draft: Draft = {
        id,
        frame,
        declIndex: frame.nodes.length,
        yaml: item,
        segs,
        idAt: idE!.value.pos,
        payloadSegs: segs,
        target: 'consumer',
        iterators: [],
        includeWhen: [],
        readyWhen: [],
        deps: new Map(),
        captures: new Set(),
        dynamic: false,
        valid: true,
      };
      const at = { pos: idE!.value.pos };
      const where = { node: nodePath(id), segs: [...segs, 'id'], at };
      if (!flavor.idPattern.test(id)) {
        if (flavor.rgd) {
          ctx.error(
            GraphCode.IdNamingConvention,
            `naming convention violation: resource id ${JSON.stringify(id)} must be lowerCamelCase (^[a-z][a-zA-Z0-9]*$)`,
            where,
          );
        } else {
          ctx.error(
            GraphCode.InvalidId,
            `node id ${JSON.stringify(id)} must match ^[A-Za-z][A-Za-z0-9]*$`,
            where,
          );
        }
      } else if (flavor.reserved.has(id)) {
        ctx.error(
          GraphCode.ReservedId,
          `id is reserved: ${JSON.stringify(id)} cannot be used as a node id`,
          where,
        );
      } else if (isCelGlobal(id)) {
        ctx.error(
          GraphCode.IdShadowsBuiltin,
          `node id ${JSON.stringify(id)} is a built-in CEL identifier (a type or function namespace) and could not be referenced`,
          where,
        );
      }
      if (frame.byId.has(id)) {
        ctx.error(
          GraphCode.DuplicateId,
          `duplicate node id ${JSON.stringify(id)}${frame.path ? ` in graph ${JSON.stringify(frame.path)}` : ''}`,
          where,
        );
        return;
      }
      frame.byId.set(id, draft);
      frame.nodes.push(draft);
      this.readNode(draft);
    });
  }

  private nodePath(d: Draft): string {
    return d.frame.path ? `${d.frame.path}.${d.id}` : d.id;
  }

  private readNode(d: Draft): void {
    const { ctx, flavor } = this;
    const node = this.nodePath(d);
    const kinds: YEntry[] = [];
    for (const e of d.yaml.entries) {
      if ((flavor.kindFields as readonly string[]).includes(e.key)) kinds.push(e);
      else if (!flavor.allowedFields.has(e.key)) {
        const known = [...flavor.allowedFields].join(', ');
        ctx.error(
          GraphCode.UnknownNodeField,
          `unknown field ${JSON.stringify(e.key)} on node (allowed: ${known})`,
          {
            node,
            segs: [...d.segs, e.key],
            at: { pos: e.keyPos },
          },
        );
      }
    }
    const kindList = flavor.kindFields.join(', ');
    if (kinds.length !== 1) {
      ctx.error(
        GraphCode.NodeKindCount,
        flavor.rgd
          ? `exactly one of template, externalRef must be set${kinds.length > 1 ? ` (found ${kinds.map((k) => k.key).join(', ')})` : ''}`
          : `exactly one of ${kindList} must be set${kinds.length > 1 ? ` (found ${kinds.map((k) => k.key).join(', ')})` : ''}`,
        { node, segs: d.segs, at: { pos: kinds[1]?.keyPos ?? d.idAt } },
      );
      d.valid = false;
      if (kinds.length === 0) return;
    }
    const kindE = kinds[0]!;
    d.kind = kindE.key as NodeKind;
    d.payload = kindE.value;
    d.payloadSegs = [...d.segs, kindE.key];

    // target (krop)
    const targetE = entryOf(d.yaml, 'target');
    if (targetE && flavor.source === 'KropRGD') {
      const t = targetE.value.t === 'scalar' ? targetE.value.value : undefined;
      if (t === null || t === '' || t === 'consumer') d.target = 'consumer';
      else if (t === 'provider' || t === 'host') d.target = t;
      else {
        ctx.error(
          GraphCode.InvalidTarget,
          `InvalidTarget: target ${JSON.stringify(toJson(targetE.value))} must be one of consumer, provider, host`,
          { node, segs: [...d.segs, 'target'], at: { pos: targetE.value.pos } },
        );
      }
    }

    // modifiers allowed per kind
    const allowed = MODIFIERS[d.kind];
    for (const mod of ['includeWhen', 'readyWhen', 'forEach'] as const) {
      const e = entryOf(d.yaml, mod);
      if (!e) continue;
      if (mod === 'forEach' && d.kind === 'externalRef') {
        ctx.error(GraphCode.ExternalRefForEach, 'cannot use externalRef with forEach', {
          node,
          segs: [...d.segs, mod],
          at: { pos: e.keyPos },
        });
        // Keep the iterators in scope so that the payload does not cascade into unknown identifiers.
        this.readForEach(d, e);
        continue;
      }
      if (!allowed[mod]) {
        const msg =
          mod === 'forEach' && d.kind === 'ref'
            ? 'forEach is not supported on ref nodes; use metadata.selector to read many objects'
            : mod === 'readyWhen' && d.kind === 'patch'
              ? 'readyWhen is not supported on patch nodes: a patch publishes no value; add a ref to the target and put readyWhen there'
              : `${mod} is not supported on ${d.kind} nodes${d.kind === 'graph' ? '; put modifiers on the inner nodes' : ''}`;
        ctx.error(GraphCode.ModifierNotAllowed, msg, { node, segs: [...d.segs, mod], at: { pos: e.keyPos } });
        if (mod === 'forEach' && d.kind !== 'graph') this.readForEach(d, e);
        continue;
      }
      if (mod === 'forEach') this.readForEach(d, e);
      else this.readConditions(d, e, mod);
    }

    if (d.kind === 'graph') {
      this.readSubgraph(d);
      return;
    }
    if (d.payload.t !== 'map') {
      ctx.error(GraphCode.PayloadNotObject, `${d.kind} must be a map`, {
        node,
        segs: d.payloadSegs,
        at: { pos: d.payload.pos },
      });
      d.valid = false;
      return;
    }
    if (d.kind !== 'def') this.readIdentity(d, d.payload);
  }

  private readSubgraph(d: Draft): void {
    const { ctx } = this;
    const node = this.nodePath(d);
    const p = d.payload!;
    const children: FrameDraft = {
      path: node,
      depth: d.frame.depth + 1,
      parent: d.frame,
      owner: d,
      nodes: [],
      byId: new Map(),
    };
    d.children = children;
    if (p.t !== 'map') {
      ctx.error(GraphCode.SubgraphShape, 'graph must be a map {nodes: [...]}', {
        node,
        segs: d.payloadSegs,
        at: { pos: p.pos },
      });
      return;
    }
    for (const e of p.entries) {
      if (e.key !== 'nodes') {
        ctx.error(
          GraphCode.SubgraphShape,
          `unknown field ${JSON.stringify(e.key)} in graph: a graph payload holds only nodes`,
          {
            node,
            segs: [...d.payloadSegs, e.key],
            at: { pos: e.keyPos },
          },
        );
      }
    }
    const nodesE = entryOf(p, 'nodes');
    if (nodesE?.value.t !== 'seq' || nodesE.value.items.length === 0) {
      if (
        nodesE &&
        nodesE.value.t !== 'seq' &&
        !(nodesE.value.t === 'scalar' && nodesE.value.value === null)
      ) {
        ctx.error(GraphCode.SubgraphShape, 'graph.nodes must be a list', {
          node,
          segs: [...d.payloadSegs, 'nodes'],
          at: { pos: nodesE.value.pos },
        });
      } else {
        ctx.error(GraphCode.SubgraphEmpty, 'empty subgraph: graph.nodes must contain at least one node', {
          node,
          segs: [...d.payloadSegs, 'nodes'],
          at: { pos: nodesE ? nodesE.keyPos : p.pos },
        });
      }
      return;
    }
    this.readFrame(children, nodesE.value.items, [...d.payloadSegs, 'nodes']);
  }

  /** apiVersion / kind / metadata.name rules, dynamic types, scope, patch and ref payload rules. */
  private readIdentity(d: Draft, p: YMap): void {
    const { ctx, flavor } = this;
    const node = this.nodePath(d);
    const segs = d.payloadSegs;
    const apiE = entryOf(p, 'apiVersion');
    const kindE = entryOf(p, 'kind');
    const api = str(apiE?.value);
    const kind = str(kindE?.value);
    if (api === undefined || api === '') {
      ctx.error(GraphCode.MissingApiVersion, `${d.kind} requires apiVersion`, {
        node,
        segs: [...segs, 'apiVersion'],
        at: { pos: apiE ? apiE.value.pos : p.pos },
      });
    }
    if (kind === undefined || kind === '') {
      ctx.error(GraphCode.MissingKind, `${d.kind} requires kind`, {
        node,
        segs: [...segs, 'kind'],
        at: { pos: kindE ? kindE.value.pos : p.pos },
      });
    }
    d.dynamic = (api?.includes('${') ?? false) || (kind?.includes('${') ?? false);
    if (api && kind) {
      d.apiVersion = api;
      d.kindName = kind;
    }
    const metaE = entryOf(p, 'metadata');
    const meta = metaE?.value.t === 'map' ? metaE.value : undefined;
    const nameE = meta ? entryOf(meta, 'name') : undefined;
    const nsE = meta ? entryOf(meta, 'namespace') : undefined;
    const selE = meta ? entryOf(meta, 'selector') : undefined;
    const isRef = d.kind === 'ref' || d.kind === 'externalRef';

    if (isRef) {
      if (nameE && selE) {
        ctx.error(GraphCode.RefNameAndSelector, 'metadata takes either name or selector, never both', {
          node,
          segs: [...segs, 'metadata', 'selector'],
          at: { pos: selE.keyPos },
        });
      } else if (!nameE && !selE) {
        ctx.error(GraphCode.RefNoNameNorSelector, `${d.kind} requires metadata.name or metadata.selector`, {
          node,
          segs: [...segs, 'metadata'],
          at: { pos: metaE ? metaE.keyPos : p.pos },
        });
      }
      if (selE) {
        const sv = selE.value;
        if (sv.t === 'map') {
          /* a literal selector (possibly with expressions inside) */
        } else if (
          !flavor.rgd &&
          sv.t === 'scalar' &&
          typeof sv.value === 'string' &&
          isStandalone(sv.value)
        ) {
          /* one standalone expression (Graph only) */
        } else {
          ctx.error(
            GraphCode.RefInvalidSelector,
            flavor.rgd
              ? 'metadata.selector must be a LabelSelector map (matchLabels / matchExpressions)'
              : 'metadata.selector must be a LabelSelector map or one standalone ${…} expression yielding one',
            { node, segs: [...segs, 'metadata', 'selector'], at: { pos: sv.pos } },
          );
        }
      }
    } else if (!nameE || str(nameE.value) === undefined || str(nameE.value) === '') {
      ctx.error(GraphCode.MissingName, `${d.kind} requires metadata.name`, {
        node,
        segs: [...segs, 'metadata', 'name'],
        at: { pos: nameE ? nameE.value.pos : metaE ? metaE.keyPos : p.pos },
      });
    }

    if (d.kind === 'patch') this.readPatch(d, p, meta);

    // Kind resolution (scope) for literal types.
    if (!d.dynamic && api && kind && this.ctx.resolver) {
      const info = this.ctx.resolver.lookup(api, kind);
      if (info) d.info = info;
      else {
        ctx.error(
          GraphCode.UnknownKind,
          `schema not found for ${api}, Kind=${kind}: ${this.ctx.resolver.explain?.(api, kind) ?? `the kind is unknown to the schema sources (${this.ctx.resolver.describe()})`}`,
          {
            node,
            segs: [...segs, 'kind'],
            at: { pos: kindE!.value.pos },
            hint: 'install its CRD, pass the CRD file with --crd, or make apiVersion/kind dynamic',
          },
        );
      }
    }
    const scope = d.info?.scope;
    if (scope === 'Cluster' && nsE && (d.kind === 'template' || d.kind === 'patch' || isRef)) {
      ctx.error(
        GraphCode.ClusterScopedNamespace,
        `${kind} is cluster-scoped and must not set metadata.namespace`,
        {
          node,
          segs: [...segs, 'metadata', 'namespace'],
          at: { pos: nsE.keyPos },
        },
      );
    }
    const single = !isRef || !!nameE;
    if (scope === 'Namespaced' && !nsE && single && (d.kind === 'template' || isRef)) {
      if (flavor.source === 'KropRGD' && d.target !== 'consumer') {
        ctx.error(
          GraphCode.PlaneNamespaceRequired,
          `resource ${JSON.stringify(d.id)} targets the ${d.target} plane: namespaced ${kind} must set metadata.namespace explicitly`,
          { node, segs: [...segs, 'metadata'], at: { pos: metaE ? metaE.keyPos : p.pos } },
        );
      } else if (flavor.rgd && this.rgdClusterScoped) {
        ctx.error(
          GraphCode.ClusterInstanceNamespaceRequired,
          `the instance kind is cluster-scoped: namespaced ${kind} must set metadata.namespace explicitly`,
          { node, segs: [...segs, 'metadata'], at: { pos: metaE ? metaE.keyPos : p.pos } },
        );
      }
    }
  }

  private readPatch(d: Draft, p: YMap, meta: YMap | undefined): void {
    const { ctx } = this;
    const node = this.nodePath(d);
    const segs = d.payloadSegs;
    let status: YEntry | undefined;
    let main: YEntry | undefined;
    for (const e of p.entries) {
      if (e.key === 'apiVersion' || e.key === 'kind' || e.key === 'metadata') continue;
      if (e.key === 'status') status = e;
      else main ??= e;
    }
    if (meta) {
      for (const e of meta.entries) {
        if (PATCH_FORBIDDEN_METADATA.includes(e.key)) {
          ctx.error(
            GraphCode.PatchForbiddenMetadata,
            `metadata.${e.key} is not allowed in a patch: a patch must never be able to delete or terminate its target`,
            { node, segs: [...segs, 'metadata', e.key], at: { pos: e.keyPos } },
          );
        } else if (e.key !== 'name' && e.key !== 'namespace') {
          main ??= e;
        }
      }
    }
    if (status && main) {
      ctx.error(
        GraphCode.PatchMixedEndpoints,
        `a patch may not mix the status subresource with the main resource (found status and ${main.key}); use two patch nodes`,
        { node, segs: [...segs, main.key === 'status' ? 'status' : main.key], at: { pos: main.keyPos } },
      );
    } else if (!status && !main) {
      ctx.error(
        GraphCode.PatchIdentityOnly,
        'a patch must contribute at least one field; an identity-only payload is rejected',
        {
          node,
          segs,
          at: { pos: p.pos },
        },
      );
    }
    d.compiledPatchEndpoint = status ? 'status' : 'main';
  }

  private readForEach(d: Draft, e: YEntry): void {
    const { ctx, flavor } = this;
    const node = this.nodePath(d);
    const segs = [...d.segs, 'forEach'];
    if (e.value.t === 'scalar' && e.value.value === null) return;
    if (e.value.t !== 'seq') {
      ctx.error(GraphCode.ForEachShape, 'forEach must be a list of single-entry maps {iterator: "${expr}"}', {
        node,
        segs,
        at: { pos: e.value.pos },
      });
      return;
    }
    if (flavor.rgd && e.value.items.length > MAX_DIMENSIONS) {
      ctx.error(
        GraphCode.TooManyDimensions,
        `forEach has ${e.value.items.length} dimensions; at most ${MAX_DIMENSIONS} are allowed`,
        {
          node,
          segs,
          at: { pos: e.keyPos },
        },
      );
    }
    const seen = new Set<string>();
    e.value.items.forEach((item, i) => {
      const isegs = [...segs, i];
      if (item.t !== 'map' || item.entries.length !== 1) {
        ctx.error(
          GraphCode.ForEachShape,
          'each forEach entry must be a map with exactly one iterator: {name: "${expr}"}',
          {
            node,
            segs: isegs,
            at: { pos: item.pos },
          },
        );
        return;
      }
      const it = item.entries[0]!;
      const name = it.key;
      const where = { node, segs: [...isegs, name], at: { pos: it.keyPos } };
      if (!flavor.idPattern.test(name)) {
        ctx.error(
          GraphCode.IteratorInvalidName,
          flavor.rgd
            ? `forEach iterator ${JSON.stringify(name)} must be lowerCamelCase (^[a-z][a-zA-Z0-9]*$)`
            : `forEach iterator ${JSON.stringify(name)} must match ^[A-Za-z][A-Za-z0-9]*$`,
          where,
        );
      } else if (flavor.reserved.has(name)) {
        ctx.error(
          GraphCode.IteratorReserved,
          `forEach iterator name ${JSON.stringify(name)} is reserved`,
          where,
        );
      } else if (flavor.rgd ? this.rgdIds.has(name) || d.frame.byId.has(name) : name === d.id) {
        ctx.error(
          GraphCode.IteratorClashesWithId,
          flavor.rgd
            ? `forEach iterator ${JSON.stringify(name)} conflicts with a resource id`
            : `forEach iterator ${JSON.stringify(name)} must not equal the node's own id`,
          where,
        );
      }
      if (seen.has(name)) {
        ctx.error(GraphCode.IteratorDuplicate, `duplicate forEach iterator ${JSON.stringify(name)}`, where);
        return;
      }
      seen.add(name);
      const v = it.value;
      if (v.t !== 'scalar' || typeof v.value !== 'string') {
        ctx.error(
          GraphCode.ForEachShape,
          `forEach iterator ${JSON.stringify(name)} must be a string "\${expr}"`,
          {
            node,
            segs: [...isegs, name],
            at: { pos: v.pos },
          },
        );
        d.iterators.push({ name, value: undefined, segs: [...isegs, name], at: it.keyPos });
        return;
      }
      d.iterators.push({ name, value: v, segs: [...isegs, name], at: it.keyPos });
    });
  }

  private readConditions(d: Draft, e: YEntry, mod: 'includeWhen' | 'readyWhen'): void {
    const { ctx } = this;
    const node = this.nodePath(d);
    const segs = [...d.segs, mod];
    if (e.value.t === 'scalar' && e.value.value === null) return;
    if (e.value.t !== 'seq') {
      ctx.error(GraphCode.ConditionShape, `${mod} must be a list of "\${…}" expressions`, {
        node,
        segs,
        at: { pos: e.value.pos },
      });
      return;
    }
    e.value.items.forEach((item, i) => {
      const list = mod === 'includeWhen' ? d.includeWhen : d.readyWhen;
      if (item.t !== 'scalar' || typeof item.value !== 'string') {
        ctx.error(GraphCode.ConditionShape, `${mod} entries must be strings "\${…}"`, {
          node,
          segs: [...segs, i],
          at: { pos: item.pos },
        });
        return;
      }
      list.push({ value: item, segs: [...segs, i] });
    });
  }

  // ── expressions ─────────────────────────────────────────────────────────

  private compileFrame(frame: FrameDraft): void {
    for (const d of frame.nodes) {
      if (!d.kind) continue;
      this.compileNodeExpressions(d);
      if (d.children) this.compileFrame(d.children);
    }
  }

  private compileNodeExpressions(d: Draft): void {
    const { ctx } = this;
    const node = this.nodePath(d);
    const compiled: CompiledNode = {
      id: d.id,
      path: node,
      kind: d.kind!,
      target: d.target,
      declIndex: d.declIndex,
      location: ctx.doc.source.location(d.idAt.offset, d.idAt.length),
      docPath: formatPath(d.segs),
      dynamic: d.dynamic,
      forEach: [],
      includeWhen: [],
      readyWhen: [],
      dependencies: [],
      applyLayer: 0,
    };
    d.compiled = compiled;
    if (d.apiVersion && d.kindName && !d.dynamic && d.kind !== 'def' && d.kind !== 'graph') {
      const { group, version } = splitApiVersion(d.apiVersion);
      compiled.resolved = {
        apiVersion: d.apiVersion,
        group,
        version,
        kind: d.kindName,
        scope: d.info?.scope ?? 'unknown',
      };
      if (d.info?.resource) compiled.resolved.resource = d.info.resource;
    }
    if (d.kind === 'patch') compiled.patchEndpoint = d.compiledPatchEndpoint ?? 'main';
    if (d.kind === 'ref' || d.kind === 'externalRef') {
      const meta = get(d.payload, 'metadata');
      const sel = get(meta, 'selector');
      compiled.refMode = !sel ? 'name' : sel.t === 'scalar' ? 'selectorExpr' : 'selector';
    }

    // forEach: standalone, no omit, may not reference iterators.
    for (const it of d.iterators) {
      if (!it.value) continue;
      if (!isStandalone(it.value.value as string)) {
        ctx.error(
          GraphCode.ForEachNotStandalone,
          `forEach iterator ${JSON.stringify(it.name)}: only standalone expressions are allowed`,
          {
            node,
            segs: it.segs,
            at: { pos: it.value.pos },
            hint: 'write exactly one ${…} with nothing around it (a `|` block scalar adds a trailing newline; use `|-`)',
          },
        );
        continue;
      }
      const slot = this.compileSlot(it.value, ['forEach', it.name], it.segs, d, 'forEach', d.frame);
      if (slot) compiled.forEach.push({ name: it.name, slot } satisfies ForEachDimension);
    }
    for (const [mod, list, out] of [
      ['includeWhen', d.includeWhen, compiled.includeWhen],
      ['readyWhen', d.readyWhen, compiled.readyWhen],
    ] as const) {
      list.forEach((c, i) => {
        const v = (c.value as YScalar).value as string;
        if (!isStandalone(v)) {
          ctx.error(GraphCode.ConditionNotStandalone, `${mod}: only standalone expressions are allowed`, {
            node,
            segs: c.segs,
            at: { pos: c.value.pos },
            hint: 'write exactly one ${…} with nothing around it (a `|` block scalar adds a trailing newline; use `|-`)',
          });
          return;
        }
        const slot = this.compileSlot(c.value as YScalar, [mod, i], c.segs, d, mod, d.frame);
        if (slot) out.push(slot);
      });
    }
    if (d.payload && d.kind !== 'graph' && d.payload.t === 'map') {
      compiled.payload = this.buildValue(d.payload, [], [...d.payloadSegs], d);
      if (d.kind !== 'def') this.checkIdentityRule(d, compiled);
      if (
        d.kind === 'template' &&
        d.apiVersion?.startsWith('apiextensions.k8s.io/') &&
        d.kindName === 'CustomResourceDefinition'
      ) {
        this.checkCrdTemplate(d, compiled.payload);
      }
    }
  }

  /** CustomResourceDefinition templates: expressions only under metadata (§3.1). */
  private checkCrdTemplate(d: Draft, payload: ValueNode): void {
    const visit = (v: ValueNode): void => {
      if (v.t === 'expr') {
        if (v.slot.path[0] === 'metadata') return;
        const loc = slotLocations.get(v.slot);
        this.ctx.error(
          GraphCode.CrdTemplateExpression,
          'CEL expressions in CRDs are only supported for metadata fields: the CRD schema must be literal',
          { node: this.nodePath(d), segs: loc?.segs ?? d.payloadSegs, ...(loc ? { at: loc.at } : {}) },
        );
      } else if (v.t === 'object') for (const [, x] of v.entries) visit(x);
      else if (v.t === 'list') for (const x of v.items) visit(x);
    };
    visit(payload);
  }

  /** The forEach identity rule (§8). */
  private checkIdentityRule(d: Draft, compiled: CompiledNode): void {
    if (compiled.forEach.length === 0 || (d.kind !== 'template' && d.kind !== 'patch')) return;
    const payload = compiled.payload;
    const meta = valueAt(payload, 'metadata');
    const collect = (v: ValueNode | undefined): Set<string> => {
      const s = new Set<string>();
      if (v?.t === 'expr')
        for (const p of v.slot.parts)
          if (typeof p !== 'string') for (const r of p.refs) if (r.kind === 'iterator') s.add(r.name);
      return s;
    };
    const inName = collect(valueAt(meta, 'name'));
    const inNs = collect(valueAt(meta, 'namespace'));
    const cluster = d.info?.scope === 'Cluster';
    const missing = compiled.forEach
      .map((f) => f.name)
      .filter((n) => !inName.has(n) && (cluster || !inNs.has(n)));
    if (missing.length === 0) return;
    const metaE = entryOf(d.payload as YMap, 'metadata');
    const nameE = metaE?.value.t === 'map' ? entryOf(metaE.value, 'name') : undefined;
    this.ctx.error(
      GraphCode.IteratorNotInIdentity,
      this.flavor.rgd
        ? `all forEach dimensions must be used to produce a unique resource identity, missing: [${missing.join(', ')}]`
        : `every forEach iterator must appear in metadata.name (or metadata.namespace for namespaced kinds); missing: [${missing.join(', ')}]`,
      {
        node: this.nodePath(d),
        segs: [...d.payloadSegs, 'metadata', 'name'],
        at: { pos: nameE ? nameE.value.pos : (metaE?.keyPos ?? d.payload!.pos) },
      },
    );
  }

  /**
   * The payload value tree. `path` and `segs` are shared stacks (pushed and popped) to keep the
   * walk allocation-light; slots copy what they keep. Literal subtrees reuse the JSON value built
   * bottom-up instead of re-walking the YAML.
   */
  private buildValue(y: YNode, path: (string | number)[], segs: PathSegment[], d: Draft): ValueNode {
    if (y.t === 'scalar') {
      if (typeof y.value === 'string' && y.value.includes('${')) {
        const slot = this.compileSlot(y, [...path], [...segs], d, 'payload', d.frame);
        if (slot) return { t: 'expr', slot };
      }
      return { t: 'literal', value: y.value };
    }
    if (y.t === 'seq') {
      const items: ValueNode[] = [];
      let literal = true;
      y.items.forEach((item, i) => {
        path.push(i);
        segs.push(i);
        const v = this.buildValue(item, path, segs, d);
        path.pop();
        segs.pop();
        if (v.t !== 'literal') literal = false;
        items.push(v);
      });
      if (literal) return { t: 'literal', value: items.map((v) => (v as { value: JsonValue }).value) };
      return { t: 'list', items };
    }
    const entries: [string, ValueNode][] = [];
    let literal = true;
    for (const e of y.entries) {
      path.push(e.key);
      segs.push(e.key);
      if (e.key.includes('${')) {
        this.ctx.report(
          'warning',
          ExprCodes.keyNotEvaluated,
          `map key ${JSON.stringify(e.key)} contains \`\${\`: map keys are never evaluated and stay literal text`,
          { node: this.nodePath(d), segs, at: { pos: e.keyPos } },
        );
      }
      const v = this.buildValue(e.value, path, segs, d);
      path.pop();
      segs.pop();
      if (v.t !== 'literal') literal = false;
      entries.push([e.key, v]);
    }
    if (literal) {
      const value: { [k: string]: JsonValue } = {};
      for (const [k, v] of entries) value[k] = (v as { value: JsonValue }).value;
      return { t: 'literal', value };
    }
    return { t: 'object', entries };
  }

  /**
   * Scans one string, parses each expression, resolves its references and applies the reference
   * rules of its role. Returns undefined when the value could not be compiled.
   */
  private compileSlot(
    y: YScalar,
    path: (string | number)[],
    segs: PathSegment[],
    d: Draft | undefined,
    role: Role,
    frame: FrameDraft,
    inConditions = false,
  ): ExprSlot | undefined {
    const { ctx } = this;
    const value = y.value as string;
    const node = d ? this.nodePath(d) : undefined;
    const errorsBefore = ctx.diagnostics.length;
    const scanned = scanValue(value);
    const offsetAt = (o: number, len: number): SourceAt =>
      y.contentOffset !== undefined ? { offset: y.contentOffset + o, length: len } : { pos: y.pos };
    if (!scanned.ok) {
      const sd = scanned.diagnostic;
      ctx.error(GraphCode.ExpressionScan, `${sd.message.replace(/ \(at offset \d+\)$/, '')} [${sd.code}]`, {
        ...(node !== undefined ? { node } : {}),
        segs,
        at: offsetAt(sd.location?.offset ?? 0, sd.location?.length ?? 1),
      });
      return undefined;
    }
    if (scanned.value.kind === 'literal') return undefined;
    const sv = scanned.value;
    const exprs = sv.kind === 'standalone' ? [sv.expression] : sv.expressions;
    const parts: (string | CompiledExpr)[] = [];
    const compiledExprs: CompiledExpr[] = [];
    let ok = true;
    for (const e of exprs) {
      const parsed = parseCel(e.source);
      if (!parsed.ok) {
        ctx.error(GraphCode.CelSyntax, `invalid CEL expression \${${e.source}}: ${parsed.error.message}`, {
          ...(node !== undefined ? { node } : {}),
          segs,
          at: offsetAt(
            e.sourceOffset + parsed.error.position,
            Math.max(1, parsed.error.end - parsed.error.position),
          ),
        });
        ok = false;
        continue;
      }
      const celRefs = listReferences(parsed.value);
      const functions = extractReferences(e.source).functions;
      const ce: CompiledExpr = { cel: e.source, offset: e.offset, refs: [] };
      const where = {
        ...(node !== undefined ? { node } : {}),
        segs,
        at: offsetAt(e.offset, e.end - e.offset),
      };
      if (functions.includes('omit') && (role !== 'payload' || isIdentityPath(d, path))) {
        ctx.error(
          GraphCode.OmitNotAllowed,
          `omit() is not allowed in ${role === 'payload' ? `identity field ${formatPath(path)}` : role}`,
          where,
        );
      }
      const usesRuntime = functions.some((f) => f.startsWith('runtime.'));
      if (usesRuntime && !(role === 'status' && inConditions)) {
        ctx.error(
          GraphCode.RuntimeLibraryMisuse,
          'runtime.* functions are only allowed in spec.schema.status.conditions',
          where,
        );
      }
      const refs = celRefs.filter((r) => !(usesRuntime && r.root === 'runtime' && r.path.length === 0));
      ce.refs = this.resolveRefs(
        refs.map((r) => ({
          name: r.root,
          fields: fieldNames(r.path),
          optional: r.optional,
        })),
        d,
        role,
        frame,
        path,
        where,
      );
      compiledExprs.push(ce);
    }
    if (!ok) return undefined;
    if (sv.kind === 'standalone') parts.push(compiledExprs[0]!);
    else {
      let k = 0;
      for (const p of sv.parts) {
        if (p.kind === 'literal') parts.push(p.text);
        else parts.push(compiledExprs[k++]!);
      }
    }
    const slot: ExprSlot = { mode: sv.kind, source: value, parts, path };
    slotLocations.set(slot, {
      at: offsetAt(0, value.length),
      segs: [...segs],
      ...(node !== undefined ? { node } : {}),
    });
    if (ctx.diagnostics.length > errorsBefore) slotsWithErrors.add(slot);
    return slot;
  }

  /** Resolves root identifiers through the frame chain and applies the reference rules of `role`. */
  private resolveRefs(
    refs: { name: string; fields: string[]; optional: boolean }[],
    d: Draft | undefined,
    role: Role,
    frame: FrameDraft,
    readerPath: (string | number)[],
    where: { node?: string; segs: PathSegment[]; at: SourceAt },
  ): ExprRef[] {
    const { ctx, flavor } = this;
    const out: ExprRef[] = [];
    const unknown: string[] = [];
    const frames = new Set<number>();
    const label = formatPath(readerPath);
    const seen = new Set<string>();
    for (const r of refs) {
      const key = `${r.name}.${r.fields.join('.')}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const isCollection = (d?.iterators.length ?? 0) > 0;
      // Iterators and `each`.
      if (d && r.name === 'each' && role === 'readyWhen' && isCollection) {
        out.push({ name: r.name, kind: 'each', fields: r.fields, optional: r.optional });
        continue;
      }
      if (d?.iterators.some((it) => it.name === r.name)) {
        if (role === 'forEach') {
          ctx.error(
            GraphCode.IteratorReferencesIterator,
            `forEach iterator expressions cannot reference other iterators (found ${JSON.stringify(r.name)})`,
            where,
          );
          continue;
        }
        if (role === 'payload') {
          out.push({ name: r.name, kind: 'iterator', fields: r.fields, optional: r.optional });
          continue;
        }
      }
      if (role === 'readyWhen' && d) {
        if (r.name === d.id && !isCollection) {
          out.push({
            name: r.name,
            kind: 'node',
            target: this.nodePath(d),
            fields: r.fields,
            optional: r.optional,
          });
          continue;
        }
        if (r.name === d.id && isCollection) {
          ctx.error(
            GraphCode.ReadyWhenCollectionById,
            `readyWhen: references unknown identifiers: [${r.name}]; readyWhen of a collection is evaluated per item: use each`,
            where,
          );
          continue;
        }
        const other =
          this.lookup(r.name, frame) ??
          (flavor.rgd && r.name === 'schema' ? { draft: undefined, depth: 0 } : undefined);
        if (other) {
          ctx.error(
            GraphCode.ReadyWhenForeignReference,
            `readyWhen may only reference the node itself${isCollection ? ' (each)' : ` (${d.id})`}; found ${JSON.stringify(r.name)}`,
            where,
          );
        } else unknown.push(r.name);
        continue;
      }
      if (flavor.rgd && r.name === 'schema') {
        out.push({ name: r.name, kind: 'schema', target: 'schema', fields: r.fields, optional: r.optional });
        frames.add(0);
        continue;
      }
      const hit = this.lookup(r.name, frame);
      if (!hit) {
        unknown.push(r.name);
        continue;
      }
      const target = hit.draft;
      if (d && target === d) {
        if (role === 'includeWhen') {
          out.push({
            name: r.name,
            kind: 'node',
            target: this.nodePath(d),
            fields: r.fields,
            optional: r.optional,
          });
          continue;
        }
        ctx.error(
          GraphCode.SelfReference,
          `self references are not allowed: node ${JSON.stringify(d.id)} references itself`,
          where,
        );
        continue;
      }
      const patchReferenced = (id: string): void =>
        ctx.error(
          GraphCode.PatchReferenced,
          `patch node ${JSON.stringify(id)} does not publish a value into scope and cannot be referenced in CEL expressions`,
          where,
        );
      if (target.kind === 'patch') {
        patchReferenced(target.id);
        continue;
      }
      let targetPath = this.nodePath(target);
      // Addressing a graph node's children: `${g.child…}`.
      if (target.kind === 'graph' && target.children && r.fields.length > 0) {
        const child = target.children.byId.get(r.fields[0]!);
        if (!child) {
          ctx.error(
            GraphCode.UnknownChild,
            `graph node ${JSON.stringify(target.id)} has no node ${JSON.stringify(r.fields[0])}`,
            where,
          );
          continue;
        }
        if (child.kind === 'patch') {
          patchReferenced(child.id);
          continue;
        }
        targetPath = this.nodePath(child);
      }
      frames.add(hit.depth);
      out.push({
        name: r.name,
        kind: hit.depth === frame.depth ? 'node' : 'capture',
        target: targetPath,
        fields: r.fields,
        optional: r.optional,
      });
      if (role === 'status') continue; // soft references: no edges
      if (!d) continue;
      // The edge goes to the node of the target's frame that contains the reader.
      let reader: Draft = d;
      while (reader.frame !== target.frame) {
        const owner = reader.frame.owner;
        if (!owner) break;
        owner.captures.add(this.nodePath(target));
        reader = owner;
      }
      if (reader.frame !== target.frame) continue;
      if (reader === target) continue; // a child referencing an ancestor graph node: no edge
      const idx = target.declIndex;
      const labels = reader.deps.get(idx) ?? new Set<string>();
      // Label edges into a graph node with the reader's path relative to that node (`inner.spec.x`).
      const where2 =
        reader === d ? label : `${this.nodePath(d).slice(this.nodePath(reader).length + 1)}.${label}`;
      labels.add(where2);
      reader.deps.set(idx, labels);
    }
    if (frames.size > 1) {
      ctx.error(
        GraphCode.MixedScopes,
        'expression mixes node references from different graph scopes; compute the combined value in a def in one scope',
        where,
      );
    }
    if (unknown.length > 0) {
      const prefix = role === 'readyWhen' ? 'readyWhen: ' : '';
      ctx.error(
        GraphCode.UnknownIdentifier,
        `${prefix}references unknown identifiers: [${unknown.join(', ')}]`,
        where,
      );
    }
    return out;
  }

  /** Finds the nearest definition of `name` from `frame` outwards (shadowing: nearest wins). */
  private lookup(name: string, frame: FrameDraft): { draft: Draft; depth: number } | undefined {
    for (let f: FrameDraft | undefined = frame; f; f = f.parent) {
      const hit = f.byId.get(name);
      if (hit?.kind) return { draft: hit, depth: f.depth };
    }
    return undefined;
  }

  // ── DAG ─────────────────────────────────────────────────────────────────

  private finishFrame(frame: FrameDraft): CompiledFrame {
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
        c.children = this.finishFrame(d.children);
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
      this.ctx.error(GraphCode.Cycle, `graph contains a cycle: ${cycle.join(' → ')}`, {
        node: this.nodePath(first),
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
}

/** Slots that already have a structural diagnostic: the type checker skips them (no cascades). */
export const slotsWithErrors = new WeakSet<ExprSlot>();

/** Source positions of compiled slots, for the type checker (kept out of the serialisable model). */
export const slotLocations = new WeakMap<ExprSlot, { at: SourceAt; segs: PathSegment[]; node?: string }>();

// ── helpers ─────────────────────────────────────────────────────────────────

const celGlobals = new Map<string, boolean>();

/** True when `name` is an identifier of the base CEL environment (`list`, `int`, `optional`, …). */
export function isCelGlobal(name: string): boolean {
  let hit = celGlobals.get(name);
  if (hit === undefined) {
    const parsed = parseCel(name);
    hit = parsed.ok && listReferences(parsed.value).length === 0;
    celGlobals.set(name, hit);
  }
  return hit;
}

/** Parses `a.b[0]["x.y"]` into segments. */
export function parsePath(path: string): PathSegment[] {
  const out: PathSegment[] = [];
  const re = /([^.[\]]+)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]/g;
  for (let m = re.exec(path); m; m = re.exec(path)) {
    if (m[1] !== undefined) out.push(m[1]);
    else if (m[2] !== undefined) out.push(Number(m[2]));
    else if (m[3] !== undefined) out.push(JSON.parse(m[3]) as string);
  }
  return out;
}

/** The position of a document field path: the deepest existing node (a key for map entries). */
function locatePath(root: YNode, path: string): { pos: Pos } | undefined {
  let node: YNode | undefined = root;
  let at: Pos = root.pos;
  for (const seg of parsePath(path)) {
    if (node?.t === 'map' && typeof seg === 'string') {
      const e = entryOf(node, seg);
      if (!e) break;
      node = e.value;
      at = e.value.t === 'scalar' ? e.value.pos : e.keyPos;
    } else if (node?.t === 'seq' && typeof seg === 'number' && node.items[seg]) {
      node = node.items[seg];
      at = node.pos;
    } else break;
  }
  return { pos: at };
}

function emptyFrame(path: string): CompiledFrame {
  return { path, nodes: [], index: {}, order: [], layers: [], edges: [] };
}

function entryOf(map: YNode | undefined, key: string): YEntry | undefined {
  if (map?.t !== 'map') return undefined;
  for (const e of map.entries) if (e.key === key) return e;
  return undefined;
}

function get(node: YNode | undefined, key: string): YNode | undefined {
  return entryOf(node, key)?.value;
}

function str(node: YNode | undefined): string | undefined {
  return node && node.t === 'scalar' && typeof node.value === 'string' ? node.value : undefined;
}

function isStandalone(value: string): boolean {
  const s = scanValue(value);
  return s.ok && s.value.kind === 'standalone';
}

function isIdentityPath(d: Draft | undefined, path: readonly (string | number)[]): boolean {
  return (
    !!d &&
    d.kind !== 'def' &&
    path.length === 2 &&
    path[0] === 'metadata' &&
    (path[1] === 'name' || path[1] === 'namespace')
  );
}

function fieldNames(path: readonly { kind: string; name?: string; index?: unknown }[]): string[] {
  const out: string[] = [];
  for (const step of path) {
    if (step.kind === 'field' && step.name !== undefined) out.push(step.name);
    else if (step.kind === 'index' && typeof step.index === 'string') out.push(step.index);
    else break;
  }
  return out;
}

function valueAt(v: ValueNode | undefined, key: string): ValueNode | undefined {
  if (!v) return undefined;
  if (v.t === 'object') return v.entries.find(([k]) => k === key)?.[1];
  if (v.t === 'literal' && v.value && typeof v.value === 'object' && !Array.isArray(v.value)) {
    const x = (v.value as { [k: string]: JsonValue })[key];
    return x === undefined ? undefined : { t: 'literal', value: x };
  }
  return undefined;
}
