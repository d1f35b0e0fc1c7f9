// biome-ignore-all lint/suspicious/noTemplateCurlyInString: messages quote kgraph ${…} syntax
/**
 * The compiler: one YAML document (Graph, kro RGD or krop RGD) → a validated CompiledGraph plus
 * diagnostics. The three front ends share one pipeline of passes (design/rgd.md §19.3; one file
 * each under ./passes/, listed in ./README.md), as kro's builder separates parser, dag, schema and
 * variables:
 *
 *   document shape (here) → per frame: structure (passes/structure.ts, passes/identity.ts) →
 *   expressions (passes/expressions.ts) with references (passes/references.ts) → DAG per frame
 *   (passes/dagFrames.ts) → RGD schema and status (passes/rgdSchema.ts) → type checking (./typecheck.ts,
 *   injected).
 *
 * Every rule reports its own code (./codes.ts) with node id, field path and file position, and the
 * compiler keeps going after an error so that one run shows every problem.
 */
import type { Diagnostic, SourceLocation } from '../diag/diagnostic.ts';
import type { PathSegment } from '../expr/index.ts';
import type { OpenAPISchema } from '../schema/openapi.ts';
import { GraphCode } from './codes.ts';
import type { KindResolver } from './kinds.ts';
import type { CompiledGraph } from './model.ts';
import { finishFrame } from './passes/dagFrames.ts';
import { checkGraphDocument, compileDefaultServiceAccounts } from './passes/document.ts';
import { compileFrame } from './passes/expressions.ts';
import { flavorOf, GRAPH_FLAVOR, sourceKindOf } from './passes/flavor.ts';
import { checkRgdSchema, compileRgd } from './passes/rgdSchema.ts';
import {
  type CompilerState,
  Ctx,
  emptyFrame,
  type FrameDraft,
  newCompilerState,
  resolveSourceAt,
  type SourceAt,
} from './passes/state.ts';
import { readFrame } from './passes/structure.ts';
import { entryOf, get, locatePath, str } from './passes/yamlAccess.ts';
import type { YDocument, YEntry, YMap } from './yamlTree.ts';

export { isEngineReserved } from './passes/celNames.ts';
export { sourceKindOf } from './passes/flavor.ts';
export { resolveSourceAt, type SourceAt, slotLocations, slotsWithErrors } from './passes/state.ts';
export { parsePath } from './passes/yamlAccess.ts';
export { GRAPH_RESERVED, RGD_RESERVED } from './reserved.ts';

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

export interface CompileOptions {
  /** Kind information (scope, schema). Without it, scope-dependent rules and type checks are skipped. */
  resolver?: KindResolver;
  /** Type checking pass, injected to keep this module free of the type layer (see ./typecheck.ts). */
  typecheck?: (graph: CompiledGraph, ctx: TypecheckContext) => void;
  /**
   * kro compatibility (default true): reject CEL that kgraph accepts but kro does not (./kroCompat.ts),
   * so that a manifest kgraph validates also works in kro. False accepts kgraph's extensions.
   */
  kroCompat?: boolean;
}

/** What the type-checking pass receives besides the graph. */
export interface TypecheckContext {
  resolver: KindResolver | undefined;
  /** Source position of a document field path (`spec.nodes[0].template.data.x`). */
  locate?: (path: string) => SourceLocation | undefined;
  report: (d: Omit<Diagnostic, 'location'> & { at?: SourceAt }) => void;
  /** See CompileOptions.kroCompat (default true). */
  kroCompat?: boolean;
}

export interface CompileResult {
  /** The object as read from the document (for reports). */
  object: { apiVersion: string; kind: string; name: string };
  /** Present when the document was a supported kind, even if it has errors (for drawing). */
  graph?: CompiledGraph;
  diagnostics: Diagnostic[];
  /** True when no diagnostic has severity `error`. */
  accepted: boolean;
}

export function compileDocument(doc: YDocument, options: CompileOptions = {}): CompileResult {
  const root = doc.root;
  const apiVersion = str(get(root, 'apiVersion')) ?? '';
  const kind = str(get(root, 'kind')) ?? '';
  const name = str(get(get(root, 'metadata'), 'name')) ?? '';
  const object = { apiVersion, kind, name };
  const source = sourceKindOf(apiVersion, kind);
  const flavor = source ? flavorOf(source) : undefined;
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
  const graph = compileGraph(newCompilerState(ctx), root, object);
  if (options.typecheck) {
    options.typecheck(graph, {
      resolver: options.resolver,
      kroCompat: options.kroCompat !== false,
      locate: (path) => {
        const at = locatePath(root, path);
        return at ? doc.source.location(at.pos.offset, at.pos.length) : undefined;
      },
      report: (d) => {
        const { at, ...rest } = d;
        const diag: Diagnostic = { ...rest };
        if (at) {
          const { offset, length } = resolveSourceAt(at);
          diag.location = doc.source.location(offset, length);
        }
        ctx.diagnostics.push(diag);
      },
    });
  }
  const accepted = ctx.diagnostics.every((d) => d.severity !== 'error');
  return { object, graph, diagnostics: ctx.diagnostics, accepted };
}

/** The pass pipeline over one document of a supported kind. */
function compileGraph(
  s: CompilerState,
  root: YMap,
  object: { apiVersion: string; kind: string; name: string },
): CompiledGraph {
  const { ctx, flavor } = s;
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
  checkGraphDocument(s, metadata, spec);
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
    checkRgdSchema(s, spec, schemaEntry);
    s.rgdClusterScoped = str(get(schemaEntry?.value, 'scope')) === 'Cluster';
  }

  const listEntry = entryOf(spec, flavor.listKey);
  const listSegs: PathSegment[] = ['spec', flavor.listKey];
  const frame: FrameDraft = { path: '', depth: 0, nodes: [], byId: new Map() };
  const emptyList =
    !listEntry ||
    (listEntry.value.t === 'scalar' && listEntry.value.value === null) ||
    (listEntry.value.t === 'seq' && listEntry.value.items.length === 0);
  if (flavor.rgd && emptyList) {
    // kro: spec.resources is optional; an RGD without resources is a pure API whose status comes from
    // schema fields alone, and becomes Active (kro's own end-to-end suite has one).
  } else if (listEntry?.value.t !== 'seq' || listEntry.value.items.length === 0) {
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
    readFrame(s, frame, listEntry.value.items, listSegs);
  }
  if (flavor.rgd) for (const d of frame.nodes) s.rgdIds.add(d.id);

  // Node rules and expressions, outer frame first so that captures can be attached.
  compileFrame(s, frame);
  graph.root = finishFrame(s, frame);

  if (flavor.rgd && schemaEntry) graph.rgd = compileRgd(s, schemaEntry, frame);
  if (flavor.rgd) {
    const sas = compileDefaultServiceAccounts(s, spec, s.rgdClusterScoped);
    if (sas && graph.rgd) graph.rgd.defaultServiceAccounts = sas;
  }

  const used = requiredKinds(frame);
  graph.requiredKinds = used.kinds;
  if (used.dynamic) graph.hasDynamic = true;
  const schemas = kindSchemas(used.kinds, ctx.resolver);
  if (schemas.size > 0) graph.kindSchemas = schemas;
  return graph;
}

/** The resolved schemas of the literal kinds, for schema-aware conversion of what the graph reads. */
function kindSchemas(
  kinds: CompiledGraph['requiredKinds'],
  resolver: KindResolver | undefined,
): Map<string, OpenAPISchema> {
  const out = new Map<string, OpenAPISchema>();
  if (!resolver) return out;
  for (const { apiVersion, kind } of kinds) {
    const schema = resolver.lookup(apiVersion, kind)?.schema;
    if (schema) out.set(`${apiVersion}/${kind}`, schema);
  }
  return out;
}

/** The literal kinds the graph's nodes use (sorted), and whether any node has a dynamic kind. */
function requiredKinds(frame: FrameDraft): { kinds: CompiledGraph['requiredKinds']; dynamic: boolean } {
  let dynamic = false;
  const kinds = new Map<string, { apiVersion: string; kind: string }>();
  const visit = (f: FrameDraft): void => {
    for (const d of f.nodes) {
      if (d.dynamic) dynamic = true;
      if (d.apiVersion && d.kindName && !d.dynamic && d.kind !== 'def' && d.kind !== 'graph') {
        kinds.set(`${d.apiVersion}/${d.kindName}`, { apiVersion: d.apiVersion, kind: d.kindName });
      }
      if (d.children) visit(d.children);
    }
  };
  visit(frame);
  const sorted = [...kinds.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, v]) => v);
  return { kinds: sorted, dynamic };
}
