/**
 * Document-level field rules (issue #10 item 4): what sits directly under `spec` of a Graph or an RGD,
 * the type of a Graph's `metadata.namespace`, and an RGD's `spec.defaultServiceAccounts`. The API
 * server would prune an unknown `spec` field silently (both CRDs are structural) and reject a number in
 * `metadata.namespace`; kgraph says so before it is applied.
 */
import { GraphCode } from '../codes.ts';
import type { YMap, YNode } from '../yamlTree.ts';
import type { CompilerState } from './state.ts';
import { entryOf } from './yamlAccess.ts';

const GRAPH_SPEC_FIELDS = ['serviceAccountName', 'nodes'];
/** kro v0.9's two fields, and kgraph's `defaultServiceAccounts` (docs/rgd.md, "Trust model"). */
const RGD_SPEC_FIELDS = ['schema', 'resources', 'defaultServiceAccounts'];

/** Unknown `spec` keys, and a Graph's non-string namespace, are errors with their location. */
export function checkGraphDocument(s: CompilerState, metadata: YNode | undefined, spec: YMap): void {
  const [allowed, what] = s.flavor.rgd
    ? [RGD_SPEC_FIELDS, "a ResourceGraphDefinition's"]
    : [GRAPH_SPEC_FIELDS, "a Graph's"];
  for (const e of spec.entries) {
    if (allowed.includes(e.key)) continue;
    s.ctx.error(
      GraphCode.UnknownSpecField,
      `unknown field ${JSON.stringify(e.key)} in spec (${what} spec holds ${allowed.join(', ')}); the API server would drop it`,
      { segs: ['spec', e.key], at: { pos: e.keyPos } },
    );
  }
  if (s.flavor.rgd) return;
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

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/**
 * RGD `spec.defaultServiceAccounts` (kgraph's extension, in the shape early kro releases had): a map from
 * an instance namespace (or `*`, every other namespace) to the name of a ServiceAccount in that
 * namespace, whose identity the instance's reads and child writes use. Returns the map when it is valid
 * (undefined when absent or invalid; each fault is a located error).
 */
export function compileDefaultServiceAccounts(
  s: CompilerState,
  spec: YMap,
  clusterScoped: boolean,
): Record<string, string> | undefined {
  const entry = entryOf(spec, 'defaultServiceAccounts');
  if (!entry || (entry.value.t === 'scalar' && entry.value.value === null)) return undefined;
  const segs = ['spec', 'defaultServiceAccounts'];
  if (entry.value.t !== 'map') {
    s.ctx.error(
      GraphCode.InvalidShape,
      'spec.defaultServiceAccounts must be a map from a namespace (or "*") to a ServiceAccount name',
      { segs, at: { pos: entry.value.pos } },
    );
    return undefined;
  }
  if (clusterScoped) {
    s.ctx.error(
      GraphCode.InvalidShape,
      "spec.defaultServiceAccounts names ServiceAccounts in the instance's namespace; the instances of a cluster-scoped RGD have none",
      { segs, at: { pos: entry.keyPos } },
    );
    return undefined;
  }
  const out: Record<string, string> = {};
  let ok = true;
  for (const e of entry.value.entries) {
    if (e.key !== '*' && (e.key.length > 63 || !DNS_LABEL.test(e.key))) {
      ok = false;
      s.ctx.error(
        GraphCode.InvalidShape,
        `spec.defaultServiceAccounts key ${JSON.stringify(e.key)} must be a namespace name (a DNS-1123 label) or "*"`,
        { segs: [...segs, e.key], at: { pos: e.keyPos } },
      );
      continue;
    }
    const v = e.value;
    const name = v.t === 'scalar' && typeof v.value === 'string' ? v.value : undefined;
    if (name === undefined || name.length > 253 || !DNS_SUBDOMAIN.test(name)) {
      ok = false;
      const shown = v.t === 'scalar' ? JSON.stringify(v.value) : `a ${v.t === 'map' ? 'map' : 'list'}`;
      s.ctx.error(
        GraphCode.InvalidServiceAccountName,
        `spec.defaultServiceAccounts[${JSON.stringify(e.key)}] ${shown} must be a ServiceAccount name (a DNS-1123 subdomain of at most 253 characters)`,
        { segs: [...segs, e.key], at: { pos: v.pos } },
      );
      continue;
    }
    out[e.key] = name;
  }
  return ok && Object.keys(out).length > 0 ? out : undefined;
}
