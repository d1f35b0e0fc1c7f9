/**
 * The compiler's working state, shared by every pass (./README.md lists them): the diagnostic sink
 * of one document, the draft of each node and frame that the passes fill in turn, and the side
 * tables (slot locations, slots with errors) that the type checker reads afterwards.
 */
import type { Diagnostic, Severity } from '../../diag/diagnostic.ts';
import { formatPath, type PathSegment } from '../../expr/index.ts';
import type { KindInfo, KindResolver } from '../kinds.ts';
import type { CompiledFrame, CompiledNode, ExprSlot, NodeKind, Plane } from '../model.ts';
import type { Pos, YDocument, YMap, YNode, YScalar } from '../yamlTree.ts';
import type { Flavor } from './flavor.ts';

/** A position in the source for a diagnostic: a YAML node, an explicit range, or a node's key. */
/**
 * A source range: a node's position, or offsets into the file; with `map`, `offset` and `length` index
 * the scalar's value and `map` (YScalar.contentMap) turns them into file offsets.
 */
export type SourceAt = { pos: Pos } | { offset: number; length: number; map?: readonly number[] };

/** The file range of a SourceAt. */
export function resolveSourceAt(at: SourceAt): Pos {
  if ('pos' in at) return at.pos;
  if (!at.map) return { offset: at.offset, length: at.length };
  const last = at.map.length - 1;
  const start = at.map[Math.min(Math.max(0, at.offset), last)]!;
  const endIndex = Math.min(at.offset + Math.max(1, at.length), last);
  const end = endIndex > at.offset ? at.map[endIndex - 1]! + 1 : start;
  return { offset: start, length: Math.max(0, end - start) };
}

/** One node as the passes see it: filled by structure, compiled by expressions, wired by references. */
export interface Draft {
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
  /** For patches: the endpoint chosen by the structure pass (design/graph.md §13.1). */
  compiledPatchEndpoint?: 'main' | 'status';
}

/** One scope: the document's node list or a graph node's children. */
export interface FrameDraft {
  path: string;
  depth: number;
  parent?: FrameDraft;
  owner?: Draft;
  nodes: Draft[];
  byId: Map<string, Draft>;
}

/** Where an expression sits; the reference rules differ per role. */
export type Role = 'payload' | 'forEach' | 'includeWhen' | 'readyWhen' | 'status';

/** Where a diagnostic points. */
export interface Where {
  node?: string;
  segs?: readonly PathSegment[];
  at?: SourceAt;
  hint?: string;
}

/** The diagnostics of one document, located in its source. */
export class Ctx {
  readonly diagnostics: Diagnostic[] = [];
  constructor(
    readonly doc: YDocument,
    readonly flavor: Flavor,
    readonly resolver: KindResolver | undefined,
  ) {}

  report(severity: Severity, code: string, message: string, where: Where): void {
    const d: Diagnostic = { severity, code, message };
    if (where.node !== undefined) d.node = where.node;
    if (where.segs) d.path = formatPath(where.segs);
    if (where.at) {
      const { offset, length } = resolveSourceAt(where.at);
      d.location = this.doc.source.location(offset, length);
    }
    if (where.hint) d.hint = where.hint;
    this.diagnostics.push(d);
  }

  error(code: string, message: string, where: Where): void {
    this.report('error', code, message, where);
  }
}

/** What every pass receives: the sink, the source flavor and facts about the whole document. */
export interface CompilerState {
  readonly ctx: Ctx;
  readonly flavor: Flavor;
  /** Every node id of the RGD (iterator names may not equal any of them). */
  readonly rgdIds: Set<string>;
  /** The RGD's instance kind is cluster-scoped. */
  rgdClusterScoped: boolean;
}

export function newCompilerState(ctx: Ctx): CompilerState {
  return { ctx, flavor: ctx.flavor, rgdIds: new Set(), rgdClusterScoped: false };
}

/** The node's path through the frames (`outer.inner`). */
export function nodePath(d: Draft): string {
  return d.frame.path ? `${d.frame.path}.${d.id}` : d.id;
}

export function emptyFrame(path: string): CompiledFrame {
  return { path, nodes: [], index: {}, order: [], layers: [], edges: [] };
}

/** Slots that already have a structural diagnostic: the type checker skips them (no cascades). */
export const slotsWithErrors = new WeakSet<ExprSlot>();

/** Source positions of compiled slots, for the type checker (kept out of the serialisable model). */
export const slotLocations = new WeakMap<ExprSlot, { at: SourceAt; segs: PathSegment[]; node?: string }>();
