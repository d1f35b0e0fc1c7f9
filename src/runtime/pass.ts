/**
 * The state of one evaluation pass (design/graph.md §7): what every node step reads (the compiled graph, the
 * input, the expression host) and writes (results in report order, claimed identities, each frame's scope).
 */

import type { CompiledFrame, CompiledGraph } from '../graph/model.ts';
import type { BuiltinCondition } from './conditions.ts';
import type { EngineHost } from './host.ts';
import type { KubeObject, ObservedState } from './observed.ts';
import type { NodeResult } from './types.ts';

export interface EvaluateInput {
  /** RGD: the instance (spec with the CRD defaults applied, and metadata). Its status is ignored. */
  instance?: KubeObject;
  observed: ObservedState;
  /**
   * Namespace that namespaced objects default to. Default: the instance's namespace (RGD), the Graph's
   * `metadata.namespace`, else `default`.
   */
  namespace?: string;
  /** Item limit per collection (design/graph.md §25). */
  maxCollectionSize?: number;
  /**
   * RGD with custom conditions (design/rgd.md §20.3): the built-in conditions the controller computed for this pass;
   * `runtime.condition(schema, 'ResourcesReady')` reads them. Default: none.
   */
  builtinConditions?: readonly BuiltinCondition[];
}

export interface Pass {
  compiled: CompiledGraph;
  input: EvaluateInput;
  host: EngineHost;
  namespace: string;
  limit: number;
  results: NodeResult[];
  /** identity key → node path, to reject two nodes (or items) rendering the same object. */
  identities: Map<string, string>;
}

export interface FrameRun {
  frame: CompiledFrame;
  /** name → published value; a child frame starts from a copy of its parent's scope (design/graph.md §14.1). */
  scope: Record<string, unknown>;
  states: Map<string, NodeResult>;
}
