/**
 * A node's items (design/graph.md §8): its `forEach` iterators evaluated and expanded (`forEach.ts`), and
 * the variables each item renders with.
 */

import type { CompiledNode } from '../graph/model.ts';
import { RuntimeCode } from './codes.ts';
import { type CollectionItem, expandForEach } from './forEach.ts';
import { errorResult, issue } from './nodeResult.ts';
import type { Pass } from './pass.ts';
import { describe, ExprStop, evalStandalone, type Steps, type Vars } from './payload.ts';
import type { NodeResult } from './types.ts';

/** forEach (design/graph.md §8): one unnamed item for a plain node; the cartesian product for a collection. */
export function* expandItems(
  pass: Pass,
  node: CompiledNode,
  scope: Vars,
): Steps<CollectionItem[] | NodeResult> {
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
export function itemVars(scope: Vars, item: CollectionItem): Vars {
  return Object.keys(item.bindings).length === 0 ? scope : { ...scope, ...item.bindings };
}
