/**
 * Nodes that only read (design/graph.md §3.2): a `ref` or `externalRef` by name or by selector, and a
 * `watch`. They render their payload to find what to read and publish the observed object or list.
 */

import { asRecord } from '../diag/record.ts';
import type { CompiledNode } from '../graph/model.ts';
import { RuntimeCode } from './codes.ts';
import { itemReadiness } from './nodeGating.ts';
import { describeIdentity, renderPayload, resolveScope } from './nodeObject.ts';
import { base, errorResult, heldResult, issue, pendingResult, summarise, toPlain } from './nodeResult.ts';
import { identityOf, type ObjectIdentity } from './observed.ts';
import type { FrameRun, Pass } from './pass.ts';
import { ExprStop, type Steps } from './payload.ts';
import { toLabelSelector } from './selector.ts';
import type { NodeResult } from './types.ts';

export function* runRef(pass: Pass, run: FrameRun, node: CompiledNode): Steps<NodeResult> {
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
export function* runWatch(pass: Pass, run: FrameRun, node: CompiledNode): Steps<NodeResult> {
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
