/**
 * Document-level field rules: what sits directly under `spec` of a Graph or an RGD,
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
 * namespace, whose identity the instance's reads and child writes use. A cluster-scoped RGD's instances
 * have no namespace, so there the map is `"*": NAMESPACE/NAME` alone: one ServiceAccount, in the
 * namespace the RGD author names, for every instance (docs/rgd.md, "Trust model"). A namespaced RGD may
 * not name another namespace's ServiceAccount: its instance authors would act as it. Returns the map
 * when it is valid (undefined when absent or invalid; each fault is a located error).
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
  const out: Record<string, string> = {};
  let ok = true;
  for (const e of entry.value.entries) {
    if (clusterScoped && e.key !== '*') {
      ok = false;
      s.ctx.error(
        GraphCode.InvalidShape,
        `spec.defaultServiceAccounts key ${JSON.stringify(e.key)}: the instances of a cluster-scoped RGD have no namespace to look up; map "*" to NAMESPACE/NAME, the one ServiceAccount they all run as`,
        { segs: [...segs, e.key], at: { pos: e.keyPos } },
      );
      continue;
    }
    if (e.key !== '*' && !isNamespaceName(e.key)) {
      ok = false;
      s.ctx.error(
        GraphCode.InvalidShape,
        `spec.defaultServiceAccounts key ${JSON.stringify(e.key)} must be a namespace name (a DNS-1123 label) or "*"`,
        { segs: [...segs, e.key], at: { pos: e.keyPos } },
      );
      continue;
    }
    const v = e.value;
    const value = v.t === 'scalar' && typeof v.value === 'string' ? v.value : undefined;
    const problem = serviceAccountProblem(value ?? '', clusterScoped);
    if (value === undefined || problem !== undefined) {
      ok = false;
      const shown = v.t === 'scalar' ? JSON.stringify(v.value) : `a ${v.t === 'map' ? 'map' : 'list'}`;
      s.ctx.error(
        GraphCode.InvalidServiceAccountName,
        `spec.defaultServiceAccounts[${JSON.stringify(e.key)}] ${shown} ${problem}`,
        { segs: [...segs, e.key], at: { pos: v.pos } },
      );
      continue;
    }
    out[e.key] = value;
  }
  return ok && Object.keys(out).length > 0 ? out : undefined;
}

const isNamespaceName = (s: string): boolean => s.length <= 63 && DNS_LABEL.test(s);
const isServiceAccountName = (s: string): boolean => s.length <= 253 && DNS_SUBDOMAIN.test(s);

/** What is wrong with a `defaultServiceAccounts` value (undefined: nothing). */
function serviceAccountProblem(value: string, clusterScoped: boolean): string | undefined {
  const slash = value.indexOf('/');
  if (clusterScoped) {
    const ns = value.slice(0, slash);
    const name = value.slice(slash + 1);
    return slash >= 0 && isNamespaceName(ns) && isServiceAccountName(name)
      ? undefined
      : 'must be NAMESPACE/NAME, a namespace and the name of a ServiceAccount in it: the instances of a cluster-scoped RGD have no namespace of their own';
  }
  if (isServiceAccountName(value)) return undefined;
  return slash >= 0
    ? "must be the name of a ServiceAccount in the instance's namespace, not NAMESPACE/NAME: a namespaced RGD's instances may not run as another namespace's ServiceAccount"
    : 'must be a ServiceAccount name (a DNS-1123 subdomain of at most 253 characters)';
}
