/**
 * The engine's output: one result per node (nested nodes included, by dotted path), the RGD instance
 * status projection, and a summary. Values in `objects` are plain (see values.ts); integers may be
 * BigInt and are written exactly by `stringifyLossless`.
 */
import type { NodeKind, Plane } from '../graph/model.ts';
import type { ObjectIdentity } from './observed.ts';
import type { PlainValue } from './values.ts';

/**
 * - `excluded`: includeWhen is false, or a dependency is excluded (contagion). Counts as ready.
 * - `pending`: not rendered this pass: data pending, a ref target missing, or a dependency pending /
 *   failed / (ready-gating) not ready.
 * - `waiting`: rendered, but not yet observed, its readyWhen is not true, or its dynamic type is not served.
 * - `ready`: rendered, observed and every readyWhen holds.
 * - `error`: a hard error (type error, bad conversion, non-bool condition, too many items, …).
 */
export type NodeState = 'excluded' | 'pending' | 'waiting' | 'ready' | 'error';

/** Why a node is pending or failed, naming the expression and, when known, the missing reference. */
export interface RuntimeIssue {
  code: string;
  message: string;
  /** Dotted node path. */
  node: string;
  /** The expression as written, `${…}`, when one is involved. */
  expression?: string;
  /** Where the expression sits: a payload field path, or `includeWhen[0]`, `forEach.region`, … */
  field?: string;
  /** The missing reference (`deployment`, `deployment.status.endpoint`), for data pending. */
  reference?: string;
}

export interface ItemResult {
  /** Position in the desired order (0 for a single object). */
  index: number;
  /** Stable identity from the iterator values ('' for a single object). */
  key: string;
  /** The object identity (template, patch, ref by name). */
  identity?: ObjectIdentity;
  /** Whether the object was found in the observed state (always true for def). */
  observed: boolean;
  ready: boolean;
  /** Why the item is not ready. */
  reason?: string;
}

export interface RenderedObject {
  /** The rendered manifest (template, patch) or value (def), expressions substituted and omit() applied. */
  value: PlainValue;
  /** Item position for collections. */
  index?: number;
}

export interface NodeResult {
  /** Id as authored. */
  id: string;
  /** Dotted path from the root (`backend.deployment`). */
  path: string;
  kind: NodeKind;
  /** The plane the node's objects go to (krop `target`; `consumer` elsewhere). */
  target: Plane;
  state: NodeState;
  /** Human-readable reason for every state but `ready`. */
  reason?: string;
  /** Code of the reason (KG5xxx / KG11xx). */
  code?: string;
  /** True when the node has forEach dimensions. */
  collection: boolean;
  /** Desired objects (template, patch) or values (def), in desired order. Empty unless rendered. */
  objects: RenderedObject[];
  /** Per-item observation and readiness, in desired order. */
  items: ItemResult[];
  ready: boolean;
  /** For `excluded`: the node whose exclusion spread here, or this node's own includeWhen. */
  excludedBy?: string;
  /** For data pending and soft waits. */
  pending?: RuntimeIssue;
  /** For `error`. */
  error?: RuntimeIssue;
  /** For patch nodes: the endpoint written (design/graph.md §13.1). */
  patchEndpoint?: 'main' | 'status';
  /** For dynamic nodes held because their type is not served. */
  held?: boolean;
  /** Apply layer within the node's frame (design/graph.md §7.3). */
  applyLayer: number;
}

export interface EvaluationResult {
  /** Every node, frames in topological order; a graph node's children follow it. */
  nodes: NodeResult[];
  /** RGD only: the progressive instance status projection (fields whose inputs are missing are left out). */
  status?: Record<string, PlainValue>;
  /** RGD only: hard errors while projecting status fields (the field is left out). */
  statusErrors: RuntimeIssue[];
  /**
   * RGD with `spec.schema.status.conditions` only (design/rgd.md §20.3): the authored conditions of this pass. When
   * present, the controller writes these instead of the built-in conditions (see ./conditions.ts).
   */
  customConditions?: CustomConditionsResult;
  /** Hard errors of the pass (nodes in state `error`). A non-empty list aborts the apply. */
  errors: RuntimeIssue[];
  /** Every node ready or excluded. */
  ready: boolean;
  /** No pending node and no error (design/graph.md §7.6). */
  complete: boolean;
  /** The first soft outcome in topological order, which determines the reported reason. */
  firstSoft?: { node: string; state: 'pending' | 'waiting'; reason: string };
}

/** One condition as authored (the controller adds lastTransitionTime and observedGeneration). */
export interface AuthoredCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
}

/** The custom conditions of an RGD instance (design/rgd.md §20.3), as `evaluate` returns them. */
export interface CustomConditionsResult {
  /** Every condition that evaluated, in declaration order (lists flattened). */
  conditions: AuthoredCondition[];
  /** Some entry was data pending: keep the previous condition of each type missing here. */
  incomplete: boolean;
  /** Hard errors per entry (the entry contributes nothing); non-empty means degraded (state ERROR). */
  errors: RuntimeIssue[];
}
