/**
 * Nodes that render objects or values (design/graph.md §8, §10, §13): a `template` or `patch` renders one
 * object per item, identifies it, claims its identity and reads its observed state; a `def` renders values.
 */

import { kubectlNameIn } from '../diag/objectName.ts';
import { asRecord } from '../diag/record.ts';
import type { CompiledNode } from '../graph/model.ts';
import { RuntimeCode } from './codes.ts';
import type { CollectionItem } from './forEach.ts';
import { itemVars } from './nodeCollection.ts';
import { itemReadiness } from './nodeGating.ts';
import { base, heldResult, objectOf, stripOmit, summarise } from './nodeResult.ts';
import { identityKey, type ObjectIdentity } from './observed.ts';
import type { FrameRun, Pass } from './pass.ts';
import { ExprStop, OMITTED, renderTree, type Steps, type Vars } from './payload.ts';
import type { ItemResult, NodeResult } from './types.ts';

export function* renderPayload(pass: Pass, node: CompiledNode, vars: Vars): Steps<Record<string, unknown>> {
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

/** Namespacing of a rendered object: dynamic nodes ask the observed state whether the type is served. */
export function resolveScope(
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
    // A cluster-scoped instance has no namespace to lend (design/rgd.md §19.4): its namespaced children must name
    // theirs, and an expression that yields "" is the author's to fix, as kro reports it, not `default`.
    if (pass.compiled.rgd?.scope === 'Cluster') {
      throw new ExprStop(
        'error',
        RuntimeCode.BadIdentity,
        `rendered object${where} has an empty metadata.namespace: a namespaced resource of a cluster-scoped instance must set one`,
        '',
        'metadata.namespace',
      );
    }
    namespace = pass.namespace;
    obj.metadata = { ...metadata, namespace };
  }
  return { apiVersion, kind, namespace: namespace as string, name };
}

/** An object in a node's reason, kubectl-style (`configmap/settings -n ns`), as every command names one. */
export function describeIdentity(id: ObjectIdentity): string {
  return kubectlNameIn(id);
}

/** The endpoint a patch writes (design/graph.md §13.1): a top-level `status` key means the status subresource. */
function patchEndpoint(node: CompiledNode, obj: Record<string, unknown>): 'main' | 'status' {
  return node.patchEndpoint ?? (Object.hasOwn(obj, 'status') ? 'status' : 'main');
}

/** One rendered item of a template or patch: the object and the identity it was given. */
interface RenderedItem {
  item: CollectionItem;
  obj: Record<string, unknown>;
  id: ObjectIdentity;
}

/** A `template` or `patch` node: render → claim identities → observe → publish. */
export function* runObjectNode(
  pass: Pass,
  run: FrameRun,
  node: CompiledNode,
  items: CollectionItem[],
): Steps<NodeResult> {
  const rendered = yield* renderItems(pass, run, node, items);
  if (!Array.isArray(rendered)) return rendered;
  if (node.kind === 'template') claimIdentities(pass, node, rendered);
  const { itemResults, observedValues } = yield* observeItems(pass, node, rendered);
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

/** Renders and identifies every item; two items of one node rendering the same object is a hard error. */
function* renderItems(
  pass: Pass,
  run: FrameRun,
  node: CompiledNode,
  items: CollectionItem[],
): Steps<RenderedItem[] | NodeResult> {
  const rendered: RenderedItem[] = [];
  const seen = new Map<string, number>();
  for (const item of items) {
    const obj = yield* renderPayload(pass, node, itemVars(run.scope, item));
    const id = identify(pass, node, obj, item.index);
    // A dynamic type that is not served yet: the node is held, not ready, and publishes nothing (design/graph.md §15).
    if ('held' in id) return heldResult(node, id.held);
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
  return rendered;
}

/** Claims the template's identities for the pass; one already claimed by another node is a hard error. */
function claimIdentities(pass: Pass, node: CompiledNode, rendered: readonly RenderedItem[]): void {
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

/** Each item's observed state and readiness; a patch is ready once its target exists. */
function* observeItems(
  pass: Pass,
  node: CompiledNode,
  rendered: readonly RenderedItem[],
): Steps<{ itemResults: ItemResult[]; observedValues: unknown[] }> {
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
  return { itemResults, observedValues };
}

export function* runDef(
  pass: Pass,
  run: FrameRun,
  node: CompiledNode,
  items: CollectionItem[],
): Steps<NodeResult> {
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
