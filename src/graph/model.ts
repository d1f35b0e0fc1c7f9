/**
 * The compiled-graph model: the contract between the compiler (src/graph) and the engine (src/runtime).
 *
 * One model serves the three source kinds (kro Graph, kro RGD, krop RGD): the RGD is expressed on the
 * Graph engine by translation (design/graph.md §1), so the engine never branches on the source kind
 * except through the explicit flags carried here (`gating`, `rgd`, `target`).
 *
 * The model is plain data (no classes, no Maps) so that a compiled graph can be cached, compared and
 * serialised (`kgraph graph -o json`); lookups go through `CompiledFrame.index` (see `frameNode`).
 * Source positions of slots are kept out of the model (compile.ts `slotLocations`).
 *
 * Append-only contract: the engine helper may add fields it needs at the end of an interface, marked
 * with a `// engine:` comment. Existing fields keep their meaning.
 */
import type { SourceLocation } from '../diag/diagnostic.ts';
import type { OpenAPISchema } from '../schema/openapi.ts';

/** Which API the graph was authored in. */
export type SourceKind = 'Graph' | 'KroRGD' | 'KropRGD';

/**
 * The node kind. `externalRef` is the RGD spelling of a Graph `ref`; the compiler keeps the authored
 * spelling so messages use the user's words, but the engine treats `ref` and `externalRef` alike.
 * `watch` (Graph only, kro KREP-024) reads every object of a kind matching a label selector into scope
 * as a list; it is read-only like a selector `ref` and is always a collection (docs/watch-nodes.md).
 */
export type NodeKind = 'template' | 'ref' | 'def' | 'patch' | 'graph' | 'externalRef' | 'watch';

/** The plane a node's objects are written to / read from (design/planes.md §1.1). Always `consumer` outside krop. */
export type Plane = 'consumer' | 'provider' | 'host';

/**
 * Scope-gating (Graph): dependents run once the referenced data exists.
 * Ready-gating (RGD): dependents run once their dependencies are ready (design/graph.md §7.5).
 */
export type Gating = 'scope' | 'ready';

/** Path of a field inside a node's payload: map keys and list indices, e.g. ['spec', 'containers', 0, 'image']. */
export type FieldPath = readonly (string | number)[];

/** What a CEL identifier at the root of a reference resolves to. */
export type RefKind =
  /** A node of the same frame as the expression (a hard DAG edge, except in readyWhen / self-includeWhen). */
  | 'node'
  /** A node of an enclosing frame (a capture: becomes a dependency of the enclosing `graph` node). */
  | 'capture'
  /** A forEach iterator variable of the node holding the expression. */
  | 'iterator'
  /** `each`, the collection item inside readyWhen. */
  | 'each'
  /** `schema`, the RGD instance (spec + metadata). An edge to the synthetic `schema` def node. */
  | 'schema';

/** One root reference of a CEL expression, with the field path selected on it (when static). */
export interface ExprRef {
  /** The CEL identifier as written (`deployment`, `schema`, `each`, an iterator name). */
  name: string;
  kind: RefKind;
  /**
   * For `node`, `capture` and `schema`: the dotted path of the referenced node from the graph root
   * (`backend.deployment`, `schema`). Absent for iterators and `each`.
   */
  target?: string;
  /**
   * The statically known field selection after the root, e.g. ['status', 'availableReplicas'] for
   * `${deployment.status.availableReplicas}`; cut at the first dynamic index or call. Used for edge labels.
   */
  fields: string[];
  /** True when the selection goes through optional access (`a.?b`, `a[?k]`). Still a hard edge (design/graph.md §7.1). */
  optional: boolean;
}

/** One `${…}` expression. */
export interface CompiledExpr {
  /** The CEL source between `${` and `}` (untrimmed, exactly as written). */
  cel: string;
  /** Character offset of the `${` inside the owning YAML string value. */
  offset: number;
  /** Root references, deduplicated by (name, fields). */
  refs: ExprRef[];
  /**
   * The checked CEL result type in CEL notation (`string`, `list(dyn)`, `map(string, string)`, `dyn`),
   * when type checking ran; absent otherwise.
   */
  resultType?: string;
  /**
   * RGD status expressions whose type holds object types: the OpenAPI schema of `resultType` with
   * those objects expanded from the schemas that typed them (the generated CRD's status, as kro
   * infers it). Absent otherwise.
   */
  resultSchema?: JsonValue;
}

/**
 * A string value of the payload that holds at least one `${…}`.
 *
 * - `standalone`: the whole value is exactly one expression; its result replaces the field and may have
 *   any type. `parts` holds that single expression.
 * - `template`: literal text and expressions interleaved; every expression must yield a string and the
 *   result is their concatenation in order (design/graph.md §6.2).
 */
export interface ExprSlot {
  mode: 'standalone' | 'template';
  /** The original YAML string value. */
  source: string;
  /** Literal text (`string`) and expressions, in order. Adjacent literals are merged. */
  parts: (string | CompiledExpr)[];
  /** Where the value sits inside its node (payload path, or e.g. ['includeWhen', 0]). */
  path: FieldPath;
  /** Expected type of the field in CEL notation when known from the schema (`dyn` in schemaless regions). */
  expectedType?: string;
}

/**
 * The payload as a value tree. Subtrees free of expressions collapse to one `literal` (the engine can
 * copy them as they are); anything containing a slot is spelled out as `object` / `list`.
 * Map keys are never evaluated (design/graph.md §6.3), so keys are plain strings.
 */
export type ValueNode =
  | { t: 'literal'; value: JsonValue }
  | { t: 'object'; entries: [key: string, value: ValueNode][] }
  | { t: 'list'; items: ValueNode[] }
  | { t: 'expr'; slot: ExprSlot };

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** One forEach dimension `{name: "${expr}"}`; dimensions are listed outermost first (design/graph.md §8). */
export interface ForEachDimension {
  name: string;
  /** Always standalone (enforced by the compiler). */
  slot: ExprSlot;
}

/** How a `ref` / `externalRef` node finds its target (design/graph.md §3.2, §11). */
export type RefMode =
  /** `metadata.name`: one object; the node's value is that object. */
  | 'name'
  /** `metadata.selector`: a LabelSelector (literal or with expressions); the node's value is a list. */
  | 'selector'
  /** `metadata.selector` is one standalone expression that yields a LabelSelector (Graph only). */
  | 'selectorExpr';

/** The resolved Kubernetes type of a node with a literal apiVersion/kind. */
export interface ResolvedKind {
  apiVersion: string;
  group: string;
  version: string;
  kind: string;
  /** Lower-case plural resource name when the schema source knows it. */
  resource?: string;
  /** `unknown` when the kind could not be resolved (the compiler then reports a diagnostic). */
  scope: 'Namespaced' | 'Cluster' | 'unknown';
}

/** A directed dependency `from → to` ("to" reads "from"), with the fields that create it. */
export interface DependencyEdge {
  /** Id (in the same frame) of the node that is read. */
  from: string;
  /** Id (in the same frame) of the reading node. */
  to: string;
  /** Labels: `<where in the reader>: <what is read>`, e.g. `spec.replicas ← status.readyReplicas`. */
  fields: string[];
}

export interface CompiledNode {
  /** The id as authored (unique within its frame). */
  id: string;
  /** Dotted path from the root (`backend.deployment`); equals `id` at the root. Used for `kro.run/node-id`. */
  path: string;
  kind: NodeKind;
  /** Plane (krop `target`); `consumer` for Graphs and kro RGDs. */
  target: Plane;
  /** Position of the node in its frame's declaration order (0-based); the topological tie-breaker. */
  declIndex: number;
  /** Where the node is declared (its `id` key). */
  location: SourceLocation;
  /** The document field path of the node, e.g. `spec.nodes[2]` or `spec.resources[0]`. */
  docPath: string;
  /**
   * The payload (template / ref / def / patch / externalRef body) as a value tree.
   * Absent for `graph` nodes (their content is `children`).
   */
  payload?: ValueNode;
  /** True iff `apiVersion` or `kind` of the payload contains `${` (design/graph.md §15). */
  dynamic: boolean;
  /** The literal type; absent for `def`, `graph` and dynamic nodes. */
  resolved?: ResolvedKind;
  /** forEach dimensions, outermost first; empty = not a collection. */
  forEach: ForEachDimension[];
  /** AND-ed, standalone, boolean. Empty = always included. */
  includeWhen: ExprSlot[];
  /** AND-ed, standalone, boolean; evaluated per item with `each` for collections. Empty = ready when resolved. */
  readyWhen: ExprSlot[];
  /**
   * Hard dependencies: ids of nodes in the same frame this node reads (payload, forEach, includeWhen;
   * captures bubbled up from children for `graph` nodes), in declaration order. Excludes readyWhen and
   * self-references.
   */
  dependencies: string[];
  /** For `patch`: which endpoint the payload is written to (design/graph.md §13.1). */
  patchEndpoint?: 'main' | 'status';
  /** For `ref` / `externalRef`: by name or by selector; for `watch`: always a selector mode. */
  refMode?: RefMode;
  /** For `graph`: the nested frame. */
  children?: CompiledFrame;
  /**
   * For `graph`: dotted paths of nodes of enclosing frames read by anything inside (captures that
   * resolved in *this* node's frame are already in `dependencies`; the rest bubble further out).
   */
  captures?: string[];
  /** Apply layer (design/graph.md §7.3): 1 + max(layer of deps), `def` nodes do not add a layer. Within its frame. */
  applyLayer: number;
  /** The node's value type in CEL notation as seen by same-frame readers (`dyn` if unknown / dynamic). */
  valueType?: string;
}

/** One graph scope: the root of a Graph / RGD, or the body of a `graph` node. */
export interface CompiledFrame {
  /** Dotted path of the owning `graph` node; '' for the root. */
  path: string;
  /** Nodes in declaration order. */
  nodes: CompiledNode[];
  /** id → index into `nodes`. */
  index: Record<string, number>;
  /** Node ids in topological order; ties broken by declaration order (design/graph.md §7.3). */
  order: string[];
  /** Apply layers: `layers[k]` lists the ids (topological order) whose `applyLayer` is k. Layer 0 holds defs only. */
  layers: string[][];
  /** All dependency edges of this frame, with labels. */
  edges: DependencyEdge[];
}

/** A status field of an RGD (`spec.schema.status`), compiled into the synthetic `instance` patch node. */
export interface StatusField {
  /** Path under `status`, e.g. ['endpoint'] or ['conn', 'host']. */
  path: FieldPath;
  slot: ExprSlot;
  /** Soft references (no DAG edges): the dotted node paths this field reads; written once they resolve. */
  reads: string[];
}

/** RGD-only information (kro and krop). */
export interface CompiledRgd {
  /** `spec.schema` fields as authored. */
  apiVersion: string;
  kind: string;
  group: string;
  scope: 'Namespaced' | 'Cluster';
  /** The raw SimpleSchema of `spec.schema.spec` / `types` (converted to OpenAPI by src/schema). */
  specSchema: JsonValue;
  types: JsonValue;
  /** The raw `spec.schema.status` map. */
  statusSchema: JsonValue;
  /** Compiled status projections (one per expression leaf). */
  status: StatusField[];
  /** The whole `spec.schema` object as authored (printer columns, shortNames, …). */
  raw: JsonValue;
  /**
   * `spec.defaultServiceAccounts` (a kgraph extension): instance namespace (or `*`) → name of the
   * ServiceAccount in that namespace whose identity the instance reads and writes with; for a
   * cluster-scoped RGD only `*` → `NAMESPACE/NAME`. Absent: the controller's own identity, as kro.
   */
  defaultServiceAccounts?: Record<string, string>;
}

export interface CompiledGraph {
  source: SourceKind;
  /** `apiVersion` of the source document. */
  apiVersion: string;
  /** `metadata.name` of the Graph / RGD. */
  name: string;
  /** `metadata.namespace` of a Graph (RGDs are cluster-scoped). */
  namespace?: string;
  /** Graph: `spec.serviceAccountName`. */
  serviceAccountName?: string;
  gating: Gating;
  /** The root frame. In an RGD it does not contain the synthetic `schema` / `instance` nodes. */
  root: CompiledFrame;
  /** RGD only. */
  rgd?: CompiledRgd;
  /** apiVersion/kind pairs the graph needs at compile time (literal, non-def nodes), deduplicated, sorted. */
  requiredKinds: { apiVersion: string; kind: string }[];
  /** True when any node (at any depth) is dynamic: the graph is recompiled on any CRD change (design/graph.md §15). */
  hasDynamic: boolean;
  /**
   * The schemas of the literal kinds the graph uses, keyed `apiVersion/kind`, as the compiler resolved
   * them: observed objects of these kinds are converted to CEL values by schema (a `format: byte`
   * field is bytes, so `string(secret.data.x)` decodes it), as kro's schema-aware CEL does.
   */
  kindSchemas?: ReadonlyMap<string, OpenAPISchema>;
  /** Where the document came from. */
  file?: string;
}

/** Looks up a node of a frame by id. */
export function frameNode(frame: CompiledFrame, id: string): CompiledNode | undefined {
  const i = frame.index[id];
  return i === undefined ? undefined : frame.nodes[i];
}
