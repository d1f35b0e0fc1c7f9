/**
 * The evaluation engine: a pure function from a compiled graph and the observed state to the desired
 * objects, readiness and (RGD) the instance status. See evaluate.ts.
 */

export { canonicalKey } from './canonical.ts';
export { RuntimeCode, type RuntimeCodeValue } from './codes.ts';
export {
  type AuthoredCondition,
  type BuiltinCondition,
  type CustomConditionsResult,
  hasCustomConditions,
} from './conditions.ts';
export { applyDefaults } from './defaults.ts';
export { customConditionsWith, type EvaluateInput, type EvaluateOptions, evaluate } from './evaluate.ts';
export {
  type CollectionItem,
  DEFAULT_MAX_COLLECTION_SIZE,
  type Dimension,
  type Expansion,
  expandForEach,
} from './forEach.ts';
export { type CelHostOptions, celHost, type EngineHost, type ExprFailure, type ExprOutcome } from './host.ts';
export {
  type InMemoryStateOptions,
  identityKey,
  identityOf,
  type KubeObject,
  type ObjectIdentity,
  type ObservedState,
  observedFromObjects,
  type TypeInfo,
  withServedTypes,
} from './observed.ts';
export { type LabelSelector, matchesSelector, toLabelSelector } from './selector.ts';
export {
  type RenderOutput,
  type SimulateInput,
  type SimulateResult,
  simulate,
  toRenderOutput,
} from './simulate.ts';
export type {
  EvaluationResult,
  ItemResult,
  NodeResult,
  NodeState,
  RenderedObject,
  RuntimeIssue,
} from './types.ts';
export { celToPlain, jsonToCel, type PlainValue, stringifyLossless } from './values.ts';
