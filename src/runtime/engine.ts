/**
 * The evaluation engine (design/graph.md §7–§15, design/rgd.md §20): a pure function from a compiled graph and the
 * observed state to the desired state. No I/O, no clock, no randomness: the same inputs give the same
 * result, so every controller pass is reproducible.
 *
 * Nodes are visited serially in topological order, frame by frame. For each node:
 *   dependencies (contagion, then gating) → includeWhen → forEach → render → observe → readiness,
 * and what the node publishes goes into the frame's scope for its dependents.
 */

import { KgraphError } from '../diag/diagnostic.ts';
import { kubectlNameIn } from '../diag/objectName.ts';
import type { CompiledFrame, CompiledGraph, CompiledNode, ExprSlot } from '../graph/model.ts';
import { frameNode } from '../graph/model.ts';
import { RuntimeCode } from './codes.ts';
import {
  type BuiltinCondition,
  type CustomConditionsResult,
  evaluateCustomConditions,
  hasCustomConditions,
} from './conditions.ts';
import { type CollectionItem, DEFAULT_MAX_COLLECTION_SIZE, expandForEach } from './forEach.ts';
import { celHost, type EngineHost } from './host.ts';
import {
  identityKey,
  identityOf,
  type KubeObject,
  type ObjectIdentity,
  type ObservedState,
} from './observed.ts';
import {
  describe,
  ExprStop,
  evalStandalone,
  formatPath,
  OMITTED,
  renderTree,
  type Steps,
  type Vars,
} from './render.ts';
import { toLabelSelector } from './selector.ts';
import type { EvaluationResult, ItemResult, NodeResult, RenderedObject, RuntimeIssue } from './types.ts';
import { celToPlain, isOptionalValue, type PlainValue } from './values.ts';

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

export interface EvaluateOptions {
  /** The expression layer; default: the CEL facade. */
  host?: EngineHost;
}

interface Pass {
  compiled: CompiledGraph;
  input: EvaluateInput;
  host: EngineHost;
  namespace: string;
  limit: number;
  results: NodeResult[];
  /** identity key → node path, to reject two nodes (or items) rendering the same object. */
  identities: Map<string, string>;
}

interface FrameRun {
  frame: CompiledFrame;
  /** name → published value; a child frame starts from a copy of its parent's scope (design/graph.md §14.1). */
  scope: Record<string, unknown>;
  states: Map<string, NodeResult>;
}

let sharedHost: EngineHost | undefined;

function defaultHost(): EngineHost {
  sharedHost ??= celHost();
  return sharedHost;
}

/** Evaluates a compiled graph against the observed state (synchronously, to the end). */
export function evaluate(
  compiled: CompiledGraph,
  input: EvaluateInput,
  options: EvaluateOptions = {},
): EvaluationResult {
  const steps = evaluationSteps(compiled, input, options);
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
  }
}

/**
 * As `evaluate`, returning to the event loop whenever the evaluation has run for `sliceMs` since it
 * last did (checked after every expression). Each expression is bounded by the CEL cost budget, so
 * no slice is much longer than `sliceMs` plus one expression; the controller uses this so that one
 * Graph's expressions never hold up /healthz, watches or other Graphs' reconciles.
 * The observed state may change between slices; the next reconcile sees the change.
 */
export async function evaluateSliced(
  compiled: CompiledGraph,
  input: EvaluateInput,
  options: EvaluateOptions & { sliceMs?: number } = {},
): Promise<EvaluationResult> {
  const sliceMs = options.sliceMs ?? DEFAULT_SLICE_MS;
  const steps = evaluationSteps(compiled, input, options);
  let sliceStart = performance.now();
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
    if (performance.now() - sliceStart >= sliceMs) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      sliceStart = performance.now();
    }
  }
}

/** Default slice of `evaluateSliced`. */
export const DEFAULT_SLICE_MS = 20;

function* evaluationSteps(
  compiled: CompiledGraph,
  input: EvaluateInput,
  options: EvaluateOptions,
): Steps<EvaluationResult> {
  const host = options.host ?? defaultHost();
  const instanceMeta = input.instance ? asRecord(input.instance.metadata) : undefined;
  const instanceNs =
    instanceMeta && typeof instanceMeta.namespace === 'string' ? instanceMeta.namespace : undefined;
  const namespace = input.namespace ?? (compiled.rgd ? instanceNs : compiled.namespace) ?? 'default';
  const pass: Pass = {
    compiled,
    input,
    host,
    namespace,
    limit: input.maxCollectionSize ?? DEFAULT_MAX_COLLECTION_SIZE,
    results: [],
    identities: new Map(),
  };
  const scope: Record<string, unknown> = {};
  if (compiled.rgd !== undefined && input.instance !== undefined) {
    const { apiVersion, kind } = input.instance;
    const type =
      typeof apiVersion === 'string' && typeof kind === 'string' ? { apiVersion, kind } : undefined;
    scope.schema = host.fromJson(schemaValue(input.instance), type);
  }
  yield* runFrame(pass, { frame: compiled.root, scope, states: new Map() });

  const result: EvaluationResult = {
    nodes: pass.results,
    statusErrors: [],
    errors: pass.results.flatMap((r) => (r.error ? [r.error] : [])),
    ready: pass.results.every((r) => r.state === 'ready' || r.state === 'excluded'),
    complete: pass.results.every((r) => r.state !== 'pending' && r.state !== 'error'),
  };
  const firstSoft = pass.results.find((r) => r.state === 'pending' || r.state === 'waiting');
  if (firstSoft !== undefined) {
    result.firstSoft = {
      node: firstSoft.path,
      state: firstSoft.state as 'pending' | 'waiting',
      reason: firstSoft.reason ?? firstSoft.state,
    };
  }
  if (compiled.rgd !== undefined) {
    const projected = yield* projectStatus(pass, scope);
    result.status = projected.status;
    result.statusErrors = projected.errors;
    if (input.instance !== undefined && hasCustomConditions(compiled.rgd.status)) {
      const { apiVersion, kind } = input.instance;
      const type =
        typeof apiVersion === 'string' && typeof kind === 'string' ? { apiVersion, kind } : undefined;
      const withBuiltins = {
        ...schemaValue(input.instance),
        status: { conditions: (input.builtinConditions ?? []).map((c) => ({ ...c })) },
      };
      result.customConditions = yield* evaluateCustomConditions(
        host,
        compiled.rgd.status,
        scope,
        host.fromJson(withBuiltins, type),
      );
      // Kept so that the controller can evaluate them again once it knows this pass's built-ins.
      Object.defineProperty(result, SCOPE, { value: scope, enumerable: false });
    }
  }
  return result;
}

/** Where a result keeps its root scope for `customConditionsWith` (not enumerable, not serialised). */
const SCOPE = Symbol('kgraph.scope');

/**
 * The custom conditions (design/rgd.md §20.3) of an evaluated pass, evaluated against the built-in conditions the
 * controller computed for it afterwards (they depend on the applies and prunes that followed the
 * evaluation). Only the condition expressions run; the nodes are not evaluated again. Undefined when
 * the RGD declares no custom conditions or `result` did not come from `evaluate` on an instance.
 */
export function customConditionsWith(
  compiled: CompiledGraph,
  instance: KubeObject,
  result: EvaluationResult,
  builtins: readonly BuiltinCondition[],
  options: EvaluateOptions = {},
): CustomConditionsResult | undefined {
  const scope = (result as unknown as Record<symbol, Record<string, unknown> | undefined>)[SCOPE];
  if (compiled.rgd === undefined || scope === undefined) return undefined;
  const host = options.host ?? defaultHost();
  const { apiVersion, kind } = instance;
  const type = typeof apiVersion === 'string' && typeof kind === 'string' ? { apiVersion, kind } : undefined;
  const withBuiltins = {
    ...schemaValue(instance),
    status: { conditions: builtins.map((c) => ({ ...c })) },
  };
  const steps = evaluateCustomConditions(host, compiled.rgd.status, scope, host.fromJson(withBuiltins, type));
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
  }
}

/** The `schema` variable of an RGD: the instance without its status (design/rgd.md §20.1). */
function schemaValue(instance: KubeObject): KubeObject {
  const { status: _status, ...rest } = instance;
  return rest;
}

function asRecord(v: unknown): Record<string, unknown> | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
    ? (v as Record<string, unknown>)
    : undefined;
}

function* runFrame(pass: Pass, run: FrameRun): Steps<void> {
  for (const id of run.frame.order) {
    const node = frameNode(run.frame, id);
    if (node === undefined) continue;
    const slot = pass.results.length;
    pass.results.push(placeholder(node));
    const result = yield* runNode(pass, run, node);
    pass.results[slot] = result;
    run.states.set(id, result);
    // A graph node that did not run (excluded or pending) still reports its descendants, in the same
    // state, so callers prune (excluded) or keep (pending) their objects by node path.
    if (node.kind === 'graph' && pass.results.length === slot + 1 && node.children !== undefined) {
      if (result.state === 'excluded' || result.state === 'pending') reportDescendants(pass, node, result);
    }
  }
}

function reportDescendants(pass: Pass, graphNode: CompiledNode, outer: NodeResult): void {
  const frame = graphNode.children!;
  for (const id of frame.order) {
    const child = frameNode(frame, id);
    if (child === undefined) continue;
    const reason = `graph "${graphNode.path}" is ${outer.state}`;
    const r =
      outer.state === 'excluded'
        ? excludedResult(child, graphNode.path, reason)
        : pendingResult(
            child,
            issue(child, RuntimeCode.DependencyPending, reason, { reference: graphNode.path }),
          );
    pass.results.push(r);
    if (child.kind === 'graph' && child.children !== undefined) reportDescendants(pass, child, r);
  }
}

function placeholder(node: CompiledNode): NodeResult {
  return base(node, 'pending');
}

function base(node: CompiledNode, state: NodeResult['state']): NodeResult {
  return {
    id: node.id,
    path: node.path,
    kind: node.kind,
    target: node.target,
    state,
    collection: node.forEach.length > 0,
    objects: [],
    items: [],
    ready: state === 'excluded',
    applyLayer: node.applyLayer,
  };
}

function issue(
  node: CompiledNode,
  code: string,
  message: string,
  extra: Partial<RuntimeIssue> = {},
): RuntimeIssue {
  return { code, message, node: node.path, ...extra };
}

function pendingResult(node: CompiledNode, pending: RuntimeIssue): NodeResult {
  return { ...base(node, 'pending'), reason: pending.message, code: pending.code, pending };
}

function errorResult(node: CompiledNode, error: RuntimeIssue): NodeResult {
  return { ...base(node, 'error'), reason: error.message, code: error.code, error };
}

function excludedResult(node: CompiledNode, by: string, reason: string): NodeResult {
  return { ...base(node, 'excluded'), reason, excludedBy: by, ready: true };
}

function fromStop(node: CompiledNode, stop: ExprStop): NodeResult {
  const extra: Partial<RuntimeIssue> = { expression: stop.expression, field: stop.field };
  if (stop.reference !== undefined) extra.reference = stop.reference;
  const iss = issue(node, stop.code, stop.message, extra);
  return stop.kind === 'pending' ? pendingResult(node, iss) : errorResult(node, iss);
}

/** Contagion (design/graph.md §9): an excluded dependency excludes the node without evaluating it. */
function contagion(run: FrameRun, node: CompiledNode): NodeResult | undefined {
  for (const dep of node.dependencies) {
    if (run.states.get(dep)?.state === 'excluded') {
      return excludedResult(node, dep, `dependency "${dep}" is excluded`);
    }
  }
  return undefined;
}

/** Gating (design/graph.md §7.5): whether the given dependencies let the node run; a pending result when not. */
function gate(
  pass: Pass,
  run: FrameRun,
  node: CompiledNode,
  deps: readonly string[],
): NodeResult | undefined {
  for (const dep of deps) {
    const r = run.states.get(dep);
    if (r === undefined) {
      if (dep === 'schema' && pass.compiled.rgd !== undefined && !Object.hasOwn(run.scope, 'schema')) {
        return pendingResult(
          node,
          issue(node, RuntimeCode.DataPending, 'data pending: the instance (schema) is not available', {
            reference: 'schema',
          }),
        );
      }
      continue;
    }
    if (r.state === 'error') {
      return pendingResult(
        node,
        issue(node, RuntimeCode.DependencyPending, `dependency "${dep}" failed`, { reference: dep }),
      );
    }
    if (r.state === 'pending') {
      return pendingResult(
        node,
        issue(node, RuntimeCode.DependencyPending, `dependency "${dep}" is pending`, { reference: dep }),
      );
    }
    if (pass.compiled.gating === 'ready' && r.state !== 'ready' && r.state !== 'excluded') {
      return pendingResult(
        node,
        issue(node, RuntimeCode.DependencyNotReady, `waiting for dependency "${dep}" to become ready`, {
          reference: dep,
        }),
      );
    }
  }
  return undefined;
}

/** The dependencies read by the node's includeWhen expressions. */
function includeWhenDeps(node: CompiledNode): string[] {
  const deps = new Set<string>();
  for (const slot of node.includeWhen) {
    for (const part of slot.parts) {
      if (typeof part === 'string') continue;
      for (const ref of part.refs) {
        if ((ref.kind === 'node' || ref.kind === 'schema') && node.dependencies.includes(ref.name))
          deps.add(ref.name);
      }
    }
  }
  return [...deps];
}

function* runNode(pass: Pass, run: FrameRun, node: CompiledNode): Steps<NodeResult> {
  const excluded = contagion(run, node);
  if (excluded !== undefined) return excluded;
  try {
    // includeWhen first, as soon as what it reads is available: a node whose own condition is false
    // is excluded even while its payload still waits for data. AND-ed; pending is not false (design/graph.md §9).
    if (node.includeWhen.length > 0) {
      const gated = gate(pass, run, node, includeWhenDeps(node));
      if (gated !== undefined) return gated;
      for (const [i, slot] of node.includeWhen.entries()) {
        const v = yield* conditionValue(pass, slot, run.scope, `includeWhen[${i}]`);
        if (!v) {
          return excludedResult(node, node.path, `includeWhen ${slot.source} is false`);
        }
      }
    }
    const gated = gate(pass, run, node, node.dependencies);
    if (gated !== undefined) return gated;
    if (node.kind === 'graph') return yield* runGraphNode(pass, run, node);
    const items = yield* expandItems(pass, node, run.scope);
    if ('state' in items) return items;
    switch (node.kind) {
      case 'def':
        return yield* runDef(pass, run, node, items);
      case 'template':
      case 'patch':
        return yield* runObjectNode(pass, run, node, items);
      case 'ref':
      case 'externalRef':
        return yield* runRef(pass, run, node);
      case 'watch':
        return yield* runWatch(pass, run, node);
      default:
        return errorResult(node, issue(node, RuntimeCode.Unsupported, `unsupported node kind ${node.kind}`));
    }
  } catch (err) {
    if (err instanceof ExprStop) return fromStop(node, err);
    throw err;
  }
}

/** Evaluates an includeWhen / readyWhen slot to a boolean; an absent optional counts as false (design/graph.md §10). */
function* conditionValue(pass: Pass, slot: ExprSlot, vars: Vars, where: string): Steps<boolean> {
  let v = yield* evalStandalone(pass.host, slot, vars);
  if (isOptionalValue(v)) v = v.hasValue() ? v.value() : false;
  if (typeof v !== 'boolean') {
    throw new ExprStop(
      'error',
      RuntimeCode.NotBool,
      `${where} must return bool, ${slot.source} returned ${describe(v)}`,
      slot.source,
      where,
    );
  }
  return v;
}

/** forEach (design/graph.md §8): one unnamed item for a plain node; the cartesian product for a collection. */
function* expandItems(pass: Pass, node: CompiledNode, scope: Vars): Steps<CollectionItem[] | NodeResult> {
  if (node.forEach.length === 0) return [{ index: 0, bindings: {}, key: '' }];
  const dims: { name: string; values: unknown[] }[] = [];
  for (const dim of node.forEach) {
    const v = yield* evalStandalone(pass.host, dim.slot, scope);
    if (!Array.isArray(v)) {
      throw new ExprStop(
        'error',
        RuntimeCode.NotList,
        `forEach iterator "${dim.name}" must return a list, ${dim.slot.source} returned ${describe(v)}`,
        dim.slot.source,
        `forEach.${dim.name}`,
      );
    }
    dims.push({ name: dim.name, values: v as unknown[] });
  }
  const expanded = expandForEach(dims, pass.limit);
  if (!expanded.ok) {
    return errorResult(
      node,
      issue(
        node,
        RuntimeCode.CollectionTooLarge,
        `collection "${node.path}" has ${expanded.count} items, more than the limit of ${expanded.limit}`,
      ),
    );
  }
  return expanded.items;
}

/** The variables of one item: the frame scope plus the item's iterator values. */
function itemVars(scope: Vars, item: CollectionItem): Vars {
  return Object.keys(item.bindings).length === 0 ? scope : { ...scope, ...item.bindings };
}

function* renderPayload(pass: Pass, node: CompiledNode, vars: Vars): Steps<Record<string, unknown>> {
  if (node.payload === undefined) {
    throw new ExprStop('error', RuntimeCode.Unsupported, `node "${node.path}" has no payload`, '', '');
  }
  const v = yield* renderTree(pass.host, node.payload, vars);
  const obj = v === OMITTED ? undefined : asRecord(v);
  if (obj === undefined) {
    throw new ExprStop(
      'error',
      RuntimeCode.BadIdentity,
      `node "${node.path}" payload is not an object`,
      '',
      '',
    );
  }
  return obj;
}

/** Readiness of one item (design/graph.md §10): AND of readyWhen with the node id and `each` bound to the value. */
function* itemReadiness(
  pass: Pass,
  node: CompiledNode,
  value: unknown,
): Steps<{ ready: boolean; reason?: string }> {
  const vars: Vars = { [node.id]: value, each: value };
  for (const [i, slot] of node.readyWhen.entries()) {
    try {
      if (!(yield* conditionValue(pass, slot, vars, `readyWhen[${i}]`))) {
        return { ready: false, reason: `readyWhen ${slot.source} is false` };
      }
    } catch (err) {
      // Data pending in readyWhen means not ready (requeue), not an error (design/graph.md §10).
      if (err instanceof ExprStop && err.kind === 'pending') {
        return { ready: false, reason: `readyWhen ${slot.source} is pending: ${err.message}` };
      }
      throw err;
    }
  }
  return { ready: true };
}

function summarise(result: NodeResult): NodeResult {
  const notReady = result.items.filter((i) => !i.ready);
  if (notReady.length === 0) return { ...result, state: 'ready', ready: true };
  const first = notReady[0]!;
  const where = result.collection ? `item ${first.index}: ` : '';
  const more = notReady.length > 1 ? ` (${notReady.length} items not ready)` : '';
  return {
    ...result,
    state: 'waiting',
    ready: false,
    reason: `${where}${first.reason ?? 'not ready'}${more}`,
  };
}

function* runDef(pass: Pass, run: FrameRun, node: CompiledNode, items: CollectionItem[]): Steps<NodeResult> {
  const values: unknown[] = [];
  for (const item of items) {
    values.push(
      node.payload === undefined
        ? {}
        : stripOmit(yield* renderTree(pass.host, node.payload, itemVars(run.scope, item))),
    );
  }
  const readiness: { ready: boolean; reason?: string }[] = [];
  for (const v of values) readiness.push(yield* itemReadiness(pass, node, v));
  const published = node.forEach.length > 0 ? values : values[0];
  run.scope[node.id] = published;
  const result: NodeResult = {
    ...base(node, 'ready'),
    objects: values.map((v, i) => objectOf(v, node, i)),
    items: items.map((item, i) => ({
      index: item.index,
      key: item.key,
      observed: true,
      ...(readiness[i] as { ready: boolean; reason?: string }),
    })),
  };
  return summarise(result);
}

function stripOmit(v: unknown): unknown {
  return v === OMITTED ? null : v;
}

/** CEL value → exact JSON; a value JSON cannot hold (NaN, an unknown type) is a hard error. */
function toPlain(v: unknown, field: string): PlainValue {
  try {
    return celToPlain(v);
  } catch (err) {
    if (err instanceof KgraphError) throw new ExprStop('error', err.code, err.message, '', field);
    throw err;
  }
}

function objectOf(v: unknown, node: CompiledNode, index: number): RenderedObject {
  const out: RenderedObject = { value: toPlain(v, node.forEach.length > 0 ? `item ${index}` : '') };
  if (node.forEach.length > 0) out.index = index;
  return out;
}

/** Namespacing of a rendered object: dynamic nodes ask the observed state whether the type is served. */
function resolveScope(
  pass: Pass,
  node: CompiledNode,
  apiVersion: string,
  kind: string,
): { namespaced: boolean } | { held: string } {
  if (node.dynamic) {
    const served = pass.input.observed.servedType(apiVersion, kind);
    if (served === undefined) return { held: `type ${kind} (${apiVersion}) is not served yet` };
    return { namespaced: served.namespaced };
  }
  if (node.resolved !== undefined && node.resolved.scope !== 'unknown') {
    return { namespaced: node.resolved.scope === 'Namespaced' };
  }
  const served = pass.input.observed.servedType(apiVersion, kind);
  return { namespaced: served?.namespaced ?? true };
}

/** Reads apiVersion/kind/metadata.name of a rendered object and defaults its namespace. */
function identify(
  pass: Pass,
  node: CompiledNode,
  obj: Record<string, unknown>,
  index: number,
): ObjectIdentity | { held: string } {
  const where = node.forEach.length > 0 ? ` (item ${index})` : '';
  const apiVersion = obj.apiVersion;
  const kind = obj.kind;
  const metadata = asRecord(obj.metadata);
  const name = metadata?.name;
  if (typeof apiVersion !== 'string' || apiVersion === '' || typeof kind !== 'string' || kind === '') {
    throw new ExprStop(
      'error',
      RuntimeCode.BadIdentity,
      `rendered object${where} has no apiVersion/kind`,
      '',
      'apiVersion',
    );
  }
  if (typeof name !== 'string' || name === '') {
    throw new ExprStop(
      'error',
      RuntimeCode.BadIdentity,
      `rendered object${where} has no metadata.name`,
      '',
      'metadata.name',
    );
  }
  const scope = resolveScope(pass, node, apiVersion, kind);
  if ('held' in scope) return scope;
  if (!scope.namespaced) return { apiVersion, kind, name };
  let namespace = metadata?.namespace;
  if (typeof namespace !== 'string' || namespace === '') {
    namespace = pass.namespace;
    obj.metadata = { ...metadata, namespace };
  }
  return { apiVersion, kind, namespace: namespace as string, name };
}

/** An object in a node's reason, kubectl-style (`configmap/settings -n ns`), as every command names one. */
function describeIdentity(id: ObjectIdentity): string {
  return kubectlNameIn(id);
}

/** The endpoint a patch writes (design/graph.md §13.1): a top-level `status` key means the status subresource. */
function patchEndpoint(node: CompiledNode, obj: Record<string, unknown>): 'main' | 'status' {
  return node.patchEndpoint ?? (Object.hasOwn(obj, 'status') ? 'status' : 'main');
}

function* runObjectNode(
  pass: Pass,
  run: FrameRun,
  node: CompiledNode,
  items: CollectionItem[],
): Steps<NodeResult> {
  const rendered: { item: CollectionItem; obj: Record<string, unknown>; id: ObjectIdentity }[] = [];
  const seen = new Map<string, number>();
  for (const item of items) {
    const obj = yield* renderPayload(pass, node, itemVars(run.scope, item));
    const id = identify(pass, node, obj, item.index);
    if ('held' in id) {
      // A dynamic type that is not served yet: the node is held, not ready, and publishes nothing (design/graph.md §15).
      return {
        ...base(node, 'waiting'),
        held: true,
        reason: id.held,
        code: RuntimeCode.TypeNotServed,
        pending: issue(node, RuntimeCode.TypeNotServed, id.held),
      };
    }
    const key = identityKey(id);
    const dupe = seen.get(key);
    if (dupe !== undefined) {
      throw new ExprStop(
        'error',
        RuntimeCode.DuplicateIdentity,
        `items ${dupe} and ${item.index} of "${node.path}" both render ${describeIdentity(id)}`,
        '',
        'metadata.name',
      );
    }
    seen.set(key, item.index);
    rendered.push({ item, obj, id });
  }
  if (node.kind === 'template') {
    // Per plane (design/planes.md §12.1): a provider and a host object of the same identity are distinct.
    for (const { id } of rendered) {
      const key = `${node.target}|${identityKey(id)}`;
      const owner = pass.identities.get(key);
      if (owner !== undefined) {
        throw new ExprStop(
          'error',
          RuntimeCode.DuplicateIdentity,
          `nodes "${owner}" and "${node.path}" both render ${describeIdentity(id)}`,
          '',
          'metadata.name',
        );
      }
    }
    for (const { id } of rendered) pass.identities.set(`${node.target}|${identityKey(id)}`, node.path);
  }

  const itemResults: ItemResult[] = [];
  const observedValues: unknown[] = [];
  for (const { item, id } of rendered) {
    const observed = pass.input.observed.get(id, node.path);
    if (observed === undefined) {
      const reason =
        node.kind === 'patch'
          ? `patch target ${describeIdentity(id)} does not exist yet`
          : `${describeIdentity(id)} is not observed yet`;
      itemResults.push({
        index: item.index,
        key: item.key,
        identity: id,
        observed: false,
        ready: false,
        reason,
      });
      continue;
    }
    if (node.kind === 'patch') {
      itemResults.push({ index: item.index, key: item.key, identity: id, observed: true, ready: true });
      continue;
    }
    const value = pass.host.fromJson(observed, id);
    observedValues.push(value);
    itemResults.push({
      index: item.index,
      key: item.key,
      identity: id,
      observed: true,
      ...(yield* itemReadiness(pass, node, value)),
    });
  }
  if (node.kind === 'template') {
    // Single: the observed object (nothing until it exists). Collection: the observed items in desired
    // order — the ordered intersection of desired and observed (design/graph.md §8).
    if (node.forEach.length > 0) run.scope[node.id] = observedValues;
    else if (observedValues.length === 1) run.scope[node.id] = observedValues[0];
  }
  const result: NodeResult = {
    ...base(node, 'ready'),
    objects: rendered.map(({ obj, item }) => objectOf(obj, node, item.index)),
    items: itemResults,
  };
  if (node.kind === 'patch') {
    const first = rendered[0];
    result.patchEndpoint = first ? patchEndpoint(node, first.obj) : (node.patchEndpoint ?? 'main');
  }
  return summarise(result);
}

function* runRef(pass: Pass, run: FrameRun, node: CompiledNode): Steps<NodeResult> {
  const obj = yield* renderPayload(pass, node, run.scope);
  const apiVersion = obj.apiVersion;
  const kind = obj.kind;
  const metadata = asRecord(obj.metadata) ?? {};
  if (typeof apiVersion !== 'string' || typeof kind !== 'string') {
    throw new ExprStop('error', RuntimeCode.BadIdentity, 'ref has no apiVersion/kind', '', 'apiVersion');
  }
  const scope = resolveScope(pass, node, apiVersion, kind);
  if ('held' in scope) return heldResult(node, scope.held);
  const bySelector =
    node.refMode === 'selector' || node.refMode === 'selectorExpr' || metadata.selector !== undefined;
  if (bySelector) {
    return yield* readSelected(pass, run, node, { apiVersion, kind, namespaced: scope.namespaced }, metadata);
  }
  const name = metadata.name;
  if (typeof name !== 'string' || name === '') {
    throw new ExprStop(
      'error',
      RuntimeCode.BadIdentity,
      'ref has neither metadata.name nor metadata.selector',
      '',
      'metadata',
    );
  }
  let id: ObjectIdentity = { apiVersion, kind, name };
  if (scope.namespaced) {
    const ns =
      typeof metadata.namespace === 'string' && metadata.namespace !== ''
        ? metadata.namespace
        : pass.namespace;
    id = { apiVersion, kind, namespace: ns, name };
  }
  const observed = pass.input.observed.get(id, node.path);
  if (observed === undefined) {
    return pendingResult(
      node,
      issue(node, RuntimeCode.RefTargetMissing, `ref target ${describeIdentity(id)} does not exist yet`, {
        reference: node.path,
      }),
    );
  }
  const value = pass.host.fromJson(observed, id);
  run.scope[node.id] = value;
  const result: NodeResult = {
    ...base(node, 'ready'),
    items: [
      {
        index: 0,
        key: '',
        identity: identityOf(observed) ?? id,
        observed: true,
        ...(yield* itemReadiness(pass, node, value)),
      },
    ],
  };
  return summarise(result);
}

/**
 * A selector read, shared by a selector `ref` and a `watch` (kro KREP-024): every object of the kind
 * that matches, as a list. An omitted namespace lists across all namespaces (design/graph.md §3.2); an empty result is
 * an empty list, not pending. `where` holds the authored `selector` and `namespace`.
 */
function* readSelected(
  pass: Pass,
  run: FrameRun,
  node: CompiledNode,
  type: { apiVersion: string; kind: string; namespaced: boolean },
  where: Record<string, unknown>,
  field = 'metadata.',
): Steps<NodeResult> {
  const { apiVersion, kind } = type;
  const check = toLabelSelector(toPlain(where.selector, `${field}selector`));
  if (!check.ok) {
    return errorResult(
      node,
      issue(node, RuntimeCode.InvalidSelector, `invalid selector: ${check.message}`, {
        field: `${field}selector`,
      }),
    );
  }
  const ns = typeof where.namespace === 'string' && where.namespace !== '' ? where.namespace : undefined;
  const found = pass.input.observed.list(
    apiVersion,
    kind,
    type.namespaced ? ns : undefined,
    check.selector,
    node.path,
  );
  const value = found.map((o) => pass.host.fromJson(o, { apiVersion, kind }));
  run.scope[node.id] = value;
  const result: NodeResult = {
    ...base(node, 'ready'),
    items: [{ index: 0, key: '', observed: true, ...(yield* itemReadiness(pass, node, value)) }],
  };
  return summarise(result);
}

/**
 * A `watch` node (kro KREP-024): read-only, the list of objects matching its selector. The selector and
 * namespace may sit at the top of the payload (kro's design) or under `metadata` (its RGD-as-Graph
 * example); the compiler allows one place each.
 */
function* runWatch(pass: Pass, run: FrameRun, node: CompiledNode): Steps<NodeResult> {
  const obj = yield* renderPayload(pass, node, run.scope);
  const { apiVersion, kind } = obj;
  if (typeof apiVersion !== 'string' || typeof kind !== 'string') {
    throw new ExprStop('error', RuntimeCode.BadIdentity, 'watch has no apiVersion/kind', '', 'apiVersion');
  }
  const scope = resolveScope(pass, node, apiVersion, kind);
  if ('held' in scope) return heldResult(node, scope.held);
  const metadata = asRecord(obj.metadata) ?? {};
  const top = obj.selector !== undefined;
  const where = {
    selector: top ? obj.selector : metadata.selector,
    namespace: obj.namespace ?? metadata.namespace,
  };
  const type = { apiVersion, kind, namespaced: scope.namespaced };
  return yield* readSelected(pass, run, node, type, where, top ? '' : 'metadata.');
}

/** A node whose type is not served yet (design/graph.md §15): it waits, and keeps what it had. */
function heldResult(node: CompiledNode, held: string): NodeResult {
  return {
    ...base(node, 'waiting'),
    held: true,
    reason: held,
    code: RuntimeCode.TypeNotServed,
    pending: issue(node, RuntimeCode.TypeNotServed, held),
  };
}

/** An inline subgraph (design/graph.md §14.1): a child frame seeded with a copy of the parent scope. */
function* runGraphNode(pass: Pass, run: FrameRun, node: CompiledNode): Steps<NodeResult> {
  if (node.children === undefined) {
    return errorResult(
      node,
      issue(node, RuntimeCode.Unsupported, `graph node "${node.path}" has no children`),
    );
  }
  const child: FrameRun = { frame: node.children, scope: { ...run.scope }, states: new Map() };
  yield* runFrame(pass, child);
  // The graph node's value: its children's published values, addressed as ${graphId.childId…}.
  const value: Record<string, unknown> = {};
  for (const c of node.children.nodes) {
    if (child.states.get(c.id) !== undefined && Object.hasOwn(child.scope, c.id)) {
      value[c.id] = child.scope[c.id];
    }
  }
  run.scope[node.id] = value;
  const direct = node.children.nodes.map((c) => child.states.get(c.id)).filter((r): r is NodeResult => !!r);
  const worst =
    direct.find((r) => r.state === 'error') ??
    direct.find((r) => r.state === 'pending') ??
    direct.find((r) => r.state === 'waiting');
  const result: NodeResult = { ...base(node, 'ready'), ready: worst === undefined };
  if (worst !== undefined) {
    result.state = worst.state;
    result.reason = `${worst.path}: ${worst.reason ?? worst.state}`;
    if (worst.code !== undefined) result.code = worst.code;
  }
  return result;
}

/** RGD status projection (design/rgd.md §20.2): each field rendered on its own; pending fields are left out. */
function* projectStatus(
  pass: Pass,
  scope: Record<string, unknown>,
): Steps<{ status: Record<string, PlainValue>; errors: RuntimeIssue[] }> {
  const status: Record<string, PlainValue> = {};
  const errors: RuntimeIssue[] = [];
  for (const field of pass.compiled.rgd?.status ?? []) {
    if (field.path[0] === 'conditions') continue; // custom conditions: ./conditions.ts
    let value: unknown;
    try {
      value = yield* renderTree(pass.host, { t: 'expr', slot: field.slot }, scope);
    } catch (err) {
      if (err instanceof ExprStop) {
        if (err.kind === 'error') {
          errors.push({
            code: err.code,
            message: err.message,
            node: 'instance',
            expression: err.expression,
            field: `status.${formatPath(field.path)}`,
          });
        }
        continue;
      }
      throw err;
    }
    if (value === OMITTED) continue;
    try {
      setPath(status, field.path, celToPlain(value));
    } catch (err) {
      if (!(err instanceof KgraphError)) throw err;
      errors.push({
        code: err.code,
        message: err.message,
        node: 'instance',
        field: `status.${formatPath(field.path)}`,
      });
    }
  }
  return { status: compact(status) as Record<string, PlainValue>, errors };
}

function setPath(
  root: Record<string, PlainValue>,
  path: readonly (string | number)[],
  value: PlainValue,
): void {
  let cur: Record<string, PlainValue> | PlainValue[] = root;
  for (let i = 0; i < path.length; i++) {
    const step = path[i]!;
    const last = i === path.length - 1;
    if (last) {
      (cur as Record<string | number, PlainValue>)[step] = value;
      return;
    }
    const next = path[i + 1]!;
    const existing: PlainValue | undefined = (cur as Record<string | number, PlainValue>)[step];
    if (existing === undefined || existing === null || typeof existing !== 'object') {
      const created: Record<string, PlainValue> | PlainValue[] = typeof next === 'number' ? [] : {};
      (cur as Record<string | number, PlainValue>)[step] = created;
      cur = created;
    } else {
      cur = existing as Record<string, PlainValue> | PlainValue[];
    }
  }
}

/** Removes the holes left in arrays by left-out elements. */
function compact(v: PlainValue): PlainValue {
  if (Array.isArray(v)) return v.filter((x) => x !== undefined).map(compact);
  if (v !== null && typeof v === 'object') {
    const out: Record<string, PlainValue> = {};
    for (const [k, x] of Object.entries(v)) out[k] = compact(x);
    return out;
  }
  return v;
}
