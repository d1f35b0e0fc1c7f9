/**
 * Offline simulation of reconciles (`kgraph render`): one evaluation pass, or passes repeated until
 * nothing changes, where each rendered object is treated as observed — its desired state echoed back,
 * with the status supplied for it in the state files, if any. Pure: the caller reads the files.
 */

import { isRecord } from '../diag/record.ts';
import type { CompiledGraph } from '../graph/model.ts';
import { canonicalKey } from './canonical.ts';
import { evaluate } from './evaluate.ts';
import type { EngineHost } from './host.ts';
import {
  identityKey,
  identityOf,
  type KubeObject,
  type ObservedState,
  observedFromObjects,
  type TypeInfo,
  withServedTypes,
} from './observed.ts';
import type { EvaluationResult, NodeState } from './types.ts';
import type { PlainValue } from './values.ts';

export interface SimulateInput {
  /** RGD: the instance (defaults already applied). */
  instance?: KubeObject;
  /** Observed objects from the state files. */
  state: readonly KubeObject[];
  /** Types served besides those of the state objects and CRDs among them (built-ins, --crd files). */
  servedType?: (apiVersion: string, kind: string) => TypeInfo | undefined;
  untilConverged?: boolean;
  /** Upper bound on passes with untilConverged. */
  maxPasses?: number;
  namespace?: string;
  host?: EngineHost;
}

/** The printed shape: `{"nodes":[{"id","kind","state","reason","objects":[…]}],"status":{…}}`. */
export interface RenderOutput {
  nodes: { id: string; kind: string; state: NodeState; reason: string | null; objects: PlainValue[] }[];
  status?: Record<string, PlainValue>;
  passes?: number;
}

export interface SimulateResult {
  output: RenderOutput;
  /** The last evaluation. */
  result: EvaluationResult;
  passes: number;
  /** False when untilConverged stopped at maxPasses with the output still changing. */
  converged: boolean;
}

export function toRenderOutput(result: EvaluationResult): RenderOutput {
  const out: RenderOutput = {
    nodes: result.nodes.map((n) => ({
      id: n.path,
      kind: n.kind,
      state: n.state,
      reason: n.reason ?? null,
      objects: n.objects.map((o) => o.value),
    })),
  };
  if (result.status !== undefined) out.status = result.status;
  return out;
}

/** Deep merge of a patch contribution into its target (maps merge, everything else replaces). */
function mergeInto(target: unknown, patch: unknown): unknown {
  if (!isRecord(target) || !isRecord(patch)) return patch;
  const out: Record<string, unknown> = { ...target };
  for (const [k, v] of Object.entries(patch)) out[k] = mergeInto(out[k], v);
  return out;
}

/**
 * The observed state of the next pass: the state objects, then every rendered template object
 * (with the status of the state object of the same identity), then patch contributions merged
 * into their existing targets.
 */
/** `top` over `base`: maps merge key by key, anything else (lists, scalars) is taken from `top`. */
function overlay(base: unknown, top: unknown): unknown {
  if (!isRecord(base) || !isRecord(top)) return top;
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(top)) out[key] = key in base ? overlay(base[key], value) : value;
  return out;
}

function echo(result: EvaluationResult, state: readonly KubeObject[]): KubeObject[] {
  const byKey = new Map<string, KubeObject>();
  for (const obj of state) {
    const id = identityOf(obj);
    if (id !== undefined) byKey.set(identityKey(id), obj);
  }
  const statusOf = new Map<string, unknown>();
  for (const [k, obj] of byKey) if (obj.status !== undefined) statusOf.set(k, obj.status);
  for (const n of result.nodes) {
    if (n.kind !== 'template') continue;
    for (const o of n.objects) {
      if (!isRecord(o.value)) continue;
      const desired = o.value as KubeObject;
      const id = identityOf(desired);
      if (id === undefined) continue;
      const k = identityKey(id);
      const observed = byKey.get(k);
      // What the server would hold after an apply: the desired fields over what --state says the server
      // already filled in (uid, a Service's clusterIP, defaults), with the observed status.
      const merged = observed === undefined ? desired : (overlay(observed, desired) as KubeObject);
      const status = statusOf.get(k);
      byKey.set(k, status === undefined ? merged : { ...merged, status });
    }
  }
  for (const n of result.nodes) {
    if (n.kind !== 'patch') continue;
    for (const o of n.objects) {
      if (!isRecord(o.value)) continue;
      const id = identityOf(o.value as KubeObject);
      if (id === undefined) continue;
      const k = identityKey(id);
      const existing = byKey.get(k);
      if (existing === undefined) continue;
      const { apiVersion: _a, kind: _k, metadata, ...contribution } = o.value as KubeObject;
      const meta = isRecord(metadata) ? metadata : {};
      const { name: _n, namespace: _ns, ...metaContribution } = meta;
      const merged = mergeInto(existing, { ...contribution, metadata: metaContribution }) as KubeObject;
      byKey.set(k, merged);
    }
  }
  return [...byKey.values()];
}

function observedOf(objects: readonly KubeObject[], input: SimulateInput): ObservedState {
  const base = observedFromObjects(objects);
  return input.servedType ? withServedTypes(base, input.servedType) : base;
}

export function simulate(compiled: CompiledGraph, input: SimulateInput): SimulateResult {
  const run = (objects: readonly KubeObject[]): EvaluationResult =>
    evaluate(
      compiled,
      {
        observed: observedOf(objects, input),
        ...(input.instance !== undefined ? { instance: input.instance } : {}),
        ...(input.namespace !== undefined ? { namespace: input.namespace } : {}),
      },
      input.host ? { host: input.host } : {},
    );
  let result = run(input.state);
  let passes = 1;
  if (input.untilConverged !== true) {
    return { output: toRenderOutput(result), result, passes, converged: true };
  }
  const max = input.maxPasses ?? 100;
  let previous = canonicalKey(toRenderOutput(result));
  let converged = false;
  while (passes < max) {
    result = run(echo(result, input.state));
    passes++;
    const current = canonicalKey(toRenderOutput(result));
    if (current === previous) {
      converged = true;
      break;
    }
    previous = current;
  }
  const output = { ...toRenderOutput(result), passes };
  return { output, result, passes, converged };
}
