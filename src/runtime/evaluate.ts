/**
 * The evaluation engine's public entry (design/graph.md §7–§15, design/rgd.md §20): a pure function from a compiled
 * graph and the observed state to the desired state. No I/O, no clock, no randomness: the same inputs give the
 * same result, so every controller pass is reproducible. The walk is `walk.ts`; each kind of node step has a
 * `node*.ts` of its own, as kro's pkg/runtime splits node_*.go.
 */

import type { OpenApiSchema } from '../cel/types/openapi.ts';
import { asRecord } from '../diag/record.ts';
import type { CompiledGraph } from '../graph/model.ts';
import {
  type BuiltinCondition,
  type CustomConditionsResult,
  evaluateCustomConditions,
  hasCustomConditions,
} from './conditions.ts';
import { DEFAULT_MAX_COLLECTION_SIZE } from './forEach.ts';
import { celHost, type EngineHost, withKindSchemas } from './host.ts';
import type { KubeObject } from './observed.ts';
import type { EvaluateInput, Pass } from './pass.ts';
import type { Steps } from './payload.ts';
import { projectStatus } from './statusProjection.ts';
import type { EvaluationResult } from './types.ts';
import { runFrame } from './walk.ts';

export type { EvaluateInput } from './pass.ts';

export interface EvaluateOptions {
  /** The expression layer; default: the CEL facade. */
  host?: EngineHost;
}

let sharedHost: EngineHost | undefined;

/** Hosts of graphs that carry kind schemas, one per compiled graph (collected with it). */
const schemaHosts = new WeakMap<CompiledGraph, EngineHost>();

/** The shared CEL host, converting what the graph reads by the kinds' schemas when the compiler had them. */
function defaultHost(compiled: CompiledGraph): EngineHost {
  sharedHost ??= celHost();
  const schemas = compiled.kindSchemas;
  if (!schemas) return sharedHost;
  let host = schemaHosts.get(compiled);
  if (!host) {
    host = withKindSchemas(
      sharedHost,
      (apiVersion, kind) => schemas.get(`${apiVersion}/${kind}`) as OpenApiSchema | undefined,
    );
    schemaHosts.set(compiled, host);
  }
  return host;
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
  const host = options.host ?? defaultHost(compiled);
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
  const host = options.host ?? defaultHost(compiled);
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
