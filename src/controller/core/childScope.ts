/**
 * Which objects a controller's child caches hold (design/sharding.md §1). A kind the graphs only
 * create (template nodes) is cached through an informer that selects kgraph's own objects — those the
 * stamp labelled with `kro.run/node-id` (Graph and RGD children alike) — so an unrelated ConfigMap of
 * the cluster never enters the cache. A kind some graph reads without owning it (`ref`, `externalRef`,
 * `watch`, `patch` targets) needs every object of the kind: its informer is unfiltered, and so is
 * every kind when a graph has such a node of dynamic kind (its kind is only known at evaluation).
 */
import type { CompiledFrame, CompiledGraph } from '../../graph/model.ts';
import { LABEL_NODE_ID } from './names.ts';

/** The label selector of kgraph-owned children: every stamped child carries its node id. */
export const OWNED_CHILD_SELECTOR = LABEL_NODE_ID;

/** The selector of a replica's child caches: kgraph's own objects, of its buckets when sharded. */
export function childSelector(shardSelector: string | undefined): string {
  return shardSelector ? `${OWNED_CHILD_SELECTOR},${shardSelector}` : OWNED_CHILD_SELECTOR;
}

/** The kinds a graph reads without owning them (`apiVersion/kind`), and whether any is dynamic. */
export interface ForeignReads {
  kinds: ReadonlySet<string>;
  dynamic: boolean;
}

/** Node kinds whose objects are not kgraph's: they are read (or patched) where they are. */
const FOREIGN_NODE_KINDS: ReadonlySet<string> = new Set(['ref', 'externalRef', 'watch', 'patch']);

const memo = new WeakMap<CompiledGraph, ForeignReads>();

export function foreignReads(compiled: CompiledGraph): ForeignReads {
  const known = memo.get(compiled);
  if (known) return known;
  const kinds = new Set<string>();
  let dynamic = false;
  const visit = (frame: CompiledFrame): void => {
    for (const n of frame.nodes) {
      if (n.children) visit(n.children);
      if (!FOREIGN_NODE_KINDS.has(n.kind)) continue;
      if (n.dynamic || !n.resolved) dynamic = true;
      else kinds.add(`${n.resolved.apiVersion}/${n.resolved.kind}`);
    }
  };
  visit(compiled.root);
  const out = { kinds, dynamic };
  memo.set(compiled, out);
  return out;
}
