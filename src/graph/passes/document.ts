/**
 * Document-level field rules of a Graph (issue #10 item 4): what sits directly under `spec`, and the
 * type of `metadata.namespace`. The API server would prune an unknown `spec` field silently (the Graph
 * CRD is structural) and reject a number in `metadata.namespace`; kgraph says so before it is applied.
 */
import { GraphCode } from '../codes.ts';
import type { YMap, YNode } from '../yamlTree.ts';
import type { CompilerState } from './state.ts';
import { entryOf } from './yamlAccess.ts';

const GRAPH_SPEC_FIELDS = ['serviceAccountName', 'nodes'];

/** Graph only: unknown `spec` keys and a non-string namespace are errors with their location. */
export function checkGraphDocument(s: CompilerState, metadata: YNode | undefined, spec: YMap): void {
  if (s.flavor.rgd) return;
  for (const e of spec.entries) {
    if (GRAPH_SPEC_FIELDS.includes(e.key)) continue;
    s.ctx.error(
      GraphCode.UnknownSpecField,
      `unknown field ${JSON.stringify(e.key)} in spec (a Graph's spec holds ${GRAPH_SPEC_FIELDS.join(', ')}); the API server would drop it`,
      { segs: ['spec', e.key], at: { pos: e.keyPos } },
    );
  }
  const ns = entryOf(metadata, 'namespace');
  if (ns && !(ns.value.t === 'scalar' && (typeof ns.value.value === 'string' || ns.value.value === null))) {
    const shown =
      ns.value.t === 'scalar' ? JSON.stringify(ns.value.value) : `a ${ns.value.t === 'map' ? 'map' : 'list'}`;
    s.ctx.error(
      GraphCode.InvalidNamespace,
      `metadata.namespace must be a string, got ${shown}; quote it if the namespace name looks like a number`,
      { segs: ['metadata', 'namespace'], at: { pos: ns.value.pos } },
    );
  }
}
