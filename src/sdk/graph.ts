/**
 * `--as graph`: a finalized build as a kro Graph (kro.run/v1alpha1). Managed objects become `template`
 * nodes, ref builders (imports) become `ref` nodes, and `.out` field uses become `${id.metadata.name}`-style
 * expressions. Dependencies that no expression carries (requires, extraDeps, identityHash, selectors,
 * structural edges) are kept as expressions in the annotation `kix.run/after`, so the Graph's DAG keeps them.
 */

import { KRO_API_VERSION } from '../graph/kroApi.ts';
import type { Build } from './build.ts';
import { SdkCode, SdkError } from './errors.ts';
import { materialize } from './materialize.ts';
import type { Json, JsonObject } from './values.ts';

export interface KroGraph {
  apiVersion: typeof KRO_API_VERSION;
  kind: 'Graph';
  metadata: { name: string; namespace?: string };
  spec: { nodes: JsonObject[] };
}

export function toKroGraph(build: Build, name: string, namespace?: string): KroGraph {
  if (!build.finalized) throw new SdkError(SdkCode.invalidArgument, 'toKroGraph needs a finalized build');
  const nodes: JsonObject[] = [];
  for (const node of build.order) {
    if (node.isImport) {
      nodes.push({
        id: node.graphId,
        ref: {
          apiVersion: node.apiVersion,
          kind: node.kind,
          metadata: {
            name: node.name,
            ...(node.namespace === undefined ? {} : { namespace: node.namespace }),
          },
        },
      });
      continue;
    }
    const m = materialize(node.draft, 'graph');
    const tmpl = (m.value ?? {}) as JsonObject;
    const metadata = { ...((tmpl.metadata ?? {}) as JsonObject) };
    const annotations: Record<string, Json> = {
      ...((metadata.annotations ?? {}) as JsonObject),
      ...node.systemAnnotations,
    };
    const all = new Set([
      ...(node.derived?.order ?? []),
      ...node.structural,
      ...node.requires,
      ...node.extraDeps,
    ]);
    all.delete(node);
    const implicit = [...all]
      .filter((d) => !m.fieldNodes.has(d))
      .sort((a, b) => (a.graphId < b.graphId ? -1 : 1));
    if (implicit.length > 0) {
      annotations['kix.run/after'] = implicit.map((d) => '${' + d.graphId + '.metadata.name}').join(',');
    }
    if (Object.keys(annotations).length > 0) metadata.annotations = annotations;
    const { apiVersion, kind, metadata: _m, ...rest } = tmpl;
    nodes.push({ id: node.graphId, template: { apiVersion: apiVersion!, kind: kind!, metadata, ...rest } });
  }
  return {
    apiVersion: KRO_API_VERSION,
    kind: 'Graph',
    metadata: { name, ...(namespace === undefined ? {} : { namespace }) },
    spec: { nodes },
  };
}
