/**
 * One instance of `kgraph fleet diff` (design/rgd.md §19.9): what the controller's next reconcile of it
 * would write once the new spec is in force — the passes of one reconcile (design/graph.md §22.2) run
 * against the observed snapshot, each pass's applies laid over it (overlay.ts), then the prune:
 *
 *   evaluate (new graph, instance with the new schema's defaults) → desired objects stamped as the
 *   controller stamps them → an object not observed is `add`ed; one whose fields our manager does not
 *   already hold as desired (the controller's own no-write test) is `change`d → evaluate again while a
 *   pass wrote something → children of the instance's ApplySet that nothing keeps are `prune`d (only
 *   after a pass without errors, as the controller) → nodes left pending `wait`.
 *
 * The old spec runs the same way: an object the old spec would write as well is drift (the instance
 * had not converged), marked so. Pure: no I/O.
 */
import { appliedFieldsAgree } from '../controller/core/applyNeeded.ts';
import { type DesiredObject, desiredTemplates } from '../controller/core/desired.ts';
import { LABEL_NODE_ID, labelValue } from '../controller/core/names.ts';
import { APPLYSET_MANAGER, LABEL_APPLYSET_PART_OF } from '../controller/rgd/names.ts';
import { type InstanceIdentity, stampChild } from '../controller/rgd/stamp.ts';
import { isRecord } from '../diag/record.ts';
import type { CompiledGraph } from '../graph/model.ts';
import { evaluate } from '../runtime/evaluate.ts';
import {
  identityKey,
  identityOf,
  type KubeObject,
  type ObjectIdentity,
  type ObservedState,
} from '../runtime/observed.ts';
import type { EvaluationResult } from '../runtime/types.ts';
import { type FieldChange, fieldChanges } from './fieldDiff.ts';
import { OverlayState } from './overlay.ts';

export type ObjectAction = 'add' | 'change' | 'prune';

export interface ObjectDiff {
  action: ObjectAction;
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
  /** The node that renders it (for `prune`: the node label it carries). */
  node: string;
  /** `change`: the fields that differ. */
  fields?: FieldChange[];
  /** The old spec would write this too: the instance had not converged (drift, or a change still in flight). */
  drift?: boolean;
  /** `add`/`change`: the object the controller would apply (for `--server-side` and `-o json`). */
  desired?: KubeObject;
}

export interface NodeWait {
  node: string;
  state: 'pending' | 'waiting';
  reason: string;
}

export interface InstanceDiff {
  namespace?: string;
  name: string;
  /** Skipped instances (suspended, being deleted) say why and report nothing else. */
  skipped?: string;
  objects: ObjectDiff[];
  waits: NodeWait[];
  /** Hard errors of the new spec's evaluation: the controller would write nothing and set ERROR. */
  errors: string[];
  /** Schema problems of the instance against the new spec's schema (schemaVerdict.ts). */
  invalid?: string[];
}

export interface InstanceDiffInput {
  oldGraph: CompiledGraph;
  newGraph: CompiledGraph;
  /** The instance as read (the old schema's defaults applied by the server). */
  instance: KubeObject;
  /** The instance with the new schema's defaults applied (what the API server serves once the CRD changes). */
  newInstance: KubeObject;
  identity: InstanceIdentity;
  observed: ObservedState;
  /** Every object carrying the instance's ApplySet label (its children, as the prune finds them). */
  children: readonly KubeObject[];
  maxCollectionSize?: number;
}

/** The passes of one reconcile are bounded as the controller bounds them (controller/core/converge.ts). */
const MAX_PASSES = 12;

interface Planned {
  writes: Map<string, { desired: DesiredObject; live: KubeObject | undefined }>;
  result: EvaluationResult;
  errors: string[];
}

/** The writes of one reconcile of `instance` with `graph` against `observed`. */
function plan(
  graph: CompiledGraph,
  instance: KubeObject,
  identity: InstanceIdentity,
  observed: ObservedState,
  maxCollectionSize: number | undefined,
): Planned {
  const overlay = new OverlayState(observed);
  const writes = new Map<string, { desired: DesiredObject; live: KubeObject | undefined }>();
  let result: EvaluationResult | undefined;
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    result = evaluate(graph, {
      instance,
      observed: overlay,
      ...(identity.namespace ? { namespace: identity.namespace } : {}),
      ...(maxCollectionSize !== undefined ? { maxCollectionSize } : {}),
    });
    if (result.errors.length > 0) {
      return { writes, result, errors: result.errors.map((e) => `node ${e.node}: ${e.message}`) };
    }
    let wrote = false;
    for (const d of desiredTemplates(result, (value, item) => stampChild(value, item, identity))) {
      const current = overlay.get(d.id);
      if (appliedFieldsAgree(d.obj, current, APPLYSET_MANAGER)) continue;
      const earlier = writes.get(d.key);
      if (earlier && sameJson(earlier.desired.obj, d.obj)) continue;
      writes.set(d.key, { desired: d, live: observed.get(d.id) });
      overlay.write(withManager(d.obj), current);
      wrote = true;
    }
    if (!wrote) break;
  }
  if (!result) throw new Error('internal: no evaluation');
  return { writes, result, errors: [] };
}

/** What `instance` would see written by the next reconcile under the new spec. */
export function diffInstance(input: InstanceDiffInput): InstanceDiff {
  const { identity } = input;
  const base: InstanceDiff = {
    ...(identity.namespace ? { namespace: identity.namespace } : {}),
    name: identity.name,
    objects: [],
    waits: [],
    errors: [],
  };
  const next = plan(input.newGraph, input.newInstance, identity, input.observed, input.maxCollectionSize);
  const prev = plan(input.oldGraph, input.instance, identity, input.observed, input.maxCollectionSize);
  if (next.errors.length > 0) return { ...base, errors: next.errors };

  const prevRendered = renderedByKey(prev.result, identity);
  const objects: ObjectDiff[] = [];
  for (const [key, { desired, live }] of next.writes) {
    const where = address(desired.id);
    if (!live) {
      objects.push({
        action: 'add',
        ...where,
        node: desired.node.path,
        desired: desired.obj,
        ...drift(prev, key),
      });
      continue;
    }
    const fields = fieldChanges(live, prevRendered.get(key), desired.obj);
    objects.push({
      action: 'change',
      ...where,
      node: desired.node.path,
      fields,
      desired: desired.obj,
      ...drift(prev, key),
    });
  }

  // The prune keeps what this reconcile applies or agrees with, and the objects of nodes still pending.
  const keep = new Set(
    desiredTemplates(next.result, (v, item) => stampChild(v, item, identity)).map((d) => d.key),
  );
  const pendingNodes = new Set(
    next.result.nodes
      .filter((n) => n.state === 'pending' || n.held === true)
      .map((n) => labelValue(n.path).value),
  );
  for (const child of input.children) {
    const id = identityOf(child);
    if (!id || keep.has(identityKey(id))) continue;
    const meta = isRecord(child.metadata) ? child.metadata : {};
    if (meta.deletionTimestamp !== undefined) continue;
    const labels = isRecord(meta.labels) ? meta.labels : {};
    const node = typeof labels[LABEL_NODE_ID] === 'string' ? labels[LABEL_NODE_ID] : '';
    if (pendingNodes.has(node)) continue;
    objects.push({ action: 'prune', ...address(id), node });
  }

  const waits: NodeWait[] = next.result.nodes
    .filter((n) => n.state === 'pending' || (n.state === 'waiting' && n.held === true))
    .map((n) => ({ node: n.path, state: n.state as 'pending' | 'waiting', reason: n.reason ?? '' }));
  objects.sort(byAddress);
  return { ...base, objects, waits };
}

/** The ApplySet children of each instance, found once for the fleet (a label index over the snapshot). */
export function childrenByApplySet(objects: Iterable<KubeObject>): Map<string, KubeObject[]> {
  const out = new Map<string, KubeObject[]>();
  for (const o of objects) {
    const labels = isRecord(o.metadata) && isRecord(o.metadata.labels) ? o.metadata.labels : undefined;
    const id = labels?.[LABEL_APPLYSET_PART_OF];
    if (typeof id !== 'string') continue;
    const list = out.get(id);
    if (list) list.push(o);
    else out.set(id, [o]);
  }
  return out;
}

function renderedByKey(result: EvaluationResult, identity: InstanceIdentity): Map<string, KubeObject> {
  return new Map(
    desiredTemplates(result, (v, item) => stampChild(v, item, identity)).map((d) => [d.key, d.obj] as const),
  );
}

function drift(prev: Planned, key: string): { drift?: true } {
  return prev.errors.length === 0 && prev.writes.has(key) ? { drift: true } : {};
}

function address(id: ObjectIdentity): { apiVersion: string; kind: string; namespace?: string; name: string } {
  return {
    apiVersion: id.apiVersion,
    kind: id.kind,
    ...(id.namespace ? { namespace: id.namespace } : {}),
    name: id.name,
  };
}

const ACTION_ORDER: Record<ObjectAction, number> = { change: 0, add: 1, prune: 2 };

function byAddress(a: ObjectDiff, b: ObjectDiff): number {
  return (
    ACTION_ORDER[a.action] - ACTION_ORDER[b.action] ||
    a.kind.localeCompare(b.kind) ||
    (a.namespace ?? '').localeCompare(b.namespace ?? '') ||
    a.name.localeCompare(b.name)
  );
}

/**
 * The object as our manager would then hold it: a managedFields entry owning exactly the desired fields,
 * so the next pass's no-write test agrees with what this pass applied.
 */
function withManager(obj: KubeObject): KubeObject {
  const meta = isRecord(obj.metadata) ? obj.metadata : {};
  const entry = {
    manager: APPLYSET_MANAGER,
    operation: 'Apply',
    apiVersion: obj.apiVersion,
    fieldsV1: fieldsOf(trackedOf(obj)),
  };
  return { ...obj, metadata: { ...meta, managedFields: [entry] } };
}

function trackedOf(obj: KubeObject): Record<string, unknown> {
  const { apiVersion: _a, kind: _k, metadata, ...rest } = obj;
  if (isRecord(metadata)) {
    const { name: _n, namespace: _ns, managedFields: _m, ...m } = metadata;
    if (Object.keys(m).length > 0) return { metadata: m, ...rest };
  }
  return rest;
}

/** A fieldsV1 tree for a desired value: maps by key, lists atomic (contains() then compares them whole). */
function fieldsOf(value: unknown): Record<string, unknown> {
  if (!isRecord(value)) return {};
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value))
    out[`f:${k}`] = isRecord(v) && Object.keys(v).length > 0 ? fieldsOf(v) : {};
  return out;
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a, bigints) === JSON.stringify(b, bigints);
}

function bigints(_k: string, v: unknown): unknown {
  return typeof v === 'bigint' ? v.toString() : v;
}
