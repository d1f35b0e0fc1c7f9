// biome-ignore-all lint/suspicious/noTemplateCurlyInString: messages quote kgraph ${…} syntax
/**
 * Payload rules of the `watch` node (kro KREP-024, docs/watch-nodes.md), run by the identity pass after
 * apiVersion/kind were read and the kind resolved.
 *
 * A watch reads every object of one kind that matches a label selector, as a list. kro's design writes
 * the selector at the top of the payload (`watch: {apiVersion, kind, selector}`); its RGD-as-Graph
 * example writes it under `metadata`. Both spellings are accepted, never both at once, and the same goes
 * for the namespace. A watch has no name: one named object is a `ref`.
 */

import { isStandalone } from '../../expr/index.ts';
import { GraphCode } from '../codes.ts';
import type { YEntry, YMap } from '../yamlTree.ts';
import { type CompilerState, type Draft, nodePath } from './state.ts';
import { entryOf } from './yamlAccess.ts';

const TOP_FIELDS = new Set(['apiVersion', 'kind', 'selector', 'namespace', 'metadata']);
const METADATA_FIELDS = new Set(['selector', 'namespace']);

/** Checks a watch payload; records nothing on the draft (the expression pass reads the selector). */
export function readWatch(s: CompilerState, d: Draft, p: YMap): void {
  const { ctx } = s;
  const node = nodePath(d);
  const segs = d.payloadSegs;
  for (const e of p.entries) {
    if (!TOP_FIELDS.has(e.key)) {
      ctx.error(
        GraphCode.WatchInvalidField,
        `unknown field ${JSON.stringify(e.key)} in watch (allowed: apiVersion, kind, selector, namespace, metadata.selector, metadata.namespace)`,
        { node, segs: [...segs, e.key], at: { pos: e.keyPos } },
      );
    }
  }
  const metaE = entryOf(p, 'metadata');
  const meta = metaE?.value.t === 'map' ? metaE.value : undefined;
  if (metaE && !meta && !(metaE.value.t === 'scalar' && metaE.value.value === null)) {
    ctx.error(GraphCode.WatchInvalidField, 'watch metadata must be a map {selector, namespace}', {
      node,
      segs: [...segs, 'metadata'],
      at: { pos: metaE.value.pos },
    });
  }
  for (const e of meta?.entries ?? []) {
    if (e.key === 'name') {
      ctx.error(
        GraphCode.WatchWithName,
        'a watch reads every object matching its selector and takes no metadata.name; read one named object with a ref',
        { node, segs: [...segs, 'metadata', 'name'], at: { pos: e.keyPos } },
      );
    } else if (!METADATA_FIELDS.has(e.key)) {
      ctx.error(
        GraphCode.WatchInvalidField,
        `unknown field ${JSON.stringify(e.key)} in watch metadata (allowed: selector, namespace)`,
        { node, segs: [...segs, 'metadata', e.key], at: { pos: e.keyPos } },
      );
    }
  }
  const selE = single(s, d, p, meta, 'selector');
  const nsE = single(s, d, p, meta, 'namespace');
  if (!selE) {
    ctx.error(
      GraphCode.WatchNoSelector,
      'watch requires a selector (a LabelSelector; `selector: {}` watches every object of the kind)',
      { node, segs: [...segs, 'selector'], at: { pos: metaE ? metaE.keyPos : p.pos } },
    );
  } else {
    const sv = selE.entry.value;
    const ok =
      sv.t === 'map' || (sv.t === 'scalar' && typeof sv.value === 'string' && isStandalone(sv.value));
    if (!ok) {
      ctx.error(
        GraphCode.RefInvalidSelector,
        'watch selector must be a LabelSelector map (matchLabels / matchExpressions) or one standalone ${…} expression yielding one',
        { node, segs: [...segs, ...selE.under, 'selector'], at: { pos: sv.pos } },
      );
    }
  }
  if (nsE && d.info?.scope === 'Cluster') {
    const field = `${nsE.under.length > 0 ? 'metadata.' : ''}namespace`;
    const message =
      field === 'namespace'
        ? `${d.kindName} is cluster-scoped and must not set metadata.namespace (nor namespace)`
        : `${d.kindName} is cluster-scoped and must not set metadata.namespace`;
    ctx.error(GraphCode.ClusterScopedNamespace, message, {
      node,
      segs: [...segs, ...nsE.under, 'namespace'],
      at: { pos: nsE.entry.keyPos },
    });
  }
}

/** A field given at the top of the payload or under metadata; an error when it is given in both places. */
function single(
  s: CompilerState,
  d: Draft,
  p: YMap,
  meta: YMap | undefined,
  key: 'selector' | 'namespace',
): { entry: YEntry; under: string[] } | undefined {
  const top = entryOf(p, key);
  const inMeta = meta ? entryOf(meta, key) : undefined;
  if (top && inMeta) {
    s.ctx.error(
      GraphCode.WatchInvalidField,
      `watch sets ${key} twice (${key} and metadata.${key}); keep one`,
      { node: nodePath(d), segs: [...d.payloadSegs, 'metadata', key], at: { pos: inMeta.keyPos } },
    );
  }
  if (top) return { entry: top, under: [] };
  if (inMeta) return { entry: inMeta, under: ['metadata'] };
  return undefined;
}

/** Whether the watch's selector (wherever it is written) is one standalone expression. */
export function watchSelectorIsExpr(p: YMap): boolean {
  const sel = entryOf(p, 'selector') ?? entryOf(entryOf(p, 'metadata')?.value, 'selector');
  return sel?.value.t === 'scalar';
}
