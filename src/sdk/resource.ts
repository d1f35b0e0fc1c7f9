/**
 * The resource object every builder returns, its `.out` surface, and the shared core builder
 * (labels, annotations, extra/ownership rules, requires/extraDeps, outputs).
 */

import { kubectlNameIn } from '../diag/objectName.ts';
import { type Build, graphIdFor, ResNode } from './build.ts';
import type { LabelStyle } from './cluster.ts';
import {
  type Ctx,
  inspectStr,
  isKStr,
  KStr,
  nodeCtx,
  type Segment,
  type Str,
  toKStr,
  unionCtx,
  withCtx,
} from './context.ts';
import { SdkCode, SdkError } from './errors.ts';
import { materialize } from './materialize.ts';
import { sdkRegistry } from './registry.ts';
import { isPlainObject, type Json, type Manifest, type Value, type ValueObject } from './values.ts';

export const MANAGED_BY = 'kix';

export interface BaseOut {
  /** `metadata.name` with the resource's context. */
  readonly name: KStr;
  /** `<name>.<ns>.svc.<clusterDomain>` (namespaced) or `<name>` (cluster-scoped), with connect context. */
  readonly fqdn: KStr;
  /** The identity hash (known at synth), with context. */
  readonly identityHash: KStr;
  /** `spec.selector.matchLabels`, else `metadata.labels`; every value carries context. */
  readonly selector: Readonly<Record<string, KStr>>;
  readonly [custom: string]: unknown;
}

export interface ServicePort {
  name?: string;
  port: number;
  targetPort?: number | string;
  protocol?: 'TCP' | 'UDP' | 'SCTP';
  nodePort?: number;
  appProtocol?: string;
}

export interface ServiceOut extends BaseOut {
  readonly ports?: readonly ServicePort[];
  /** First port number, when built with `kix.service.fromWorkload` or `scope.mkServiceRef`. */
  readonly port?: KStr;
  url(o?: { scheme?: string; port?: number | null }): KStr;
  readonly labels?: Readonly<Record<string, string>>;
}

export interface ObjRef {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace: string | undefined;
  readonly name: string;
  readonly key: string;
}

export interface Resource<O extends BaseOut = BaseOut> {
  readonly __kgraphResource: true;
  readonly apiVersion: string;
  readonly kind: string;
  /** Plain `metadata.name` (no context). */
  readonly name: string;
  readonly namespace: string | undefined;
  readonly out: O;
  /** The stamped manifest; available after synth. */
  readonly manifest: Manifest;
  /** Same as `manifest` (kgraph keeps context beside the JSON, not inside it). */
  readonly rawManifest: Manifest;
  /** `k8s-<kind>-<ns>-<name>` */
  readonly outPath: string;
  readonly identity: ObjRef;
  readonly _meta: { readonly namespaceName: string | undefined; readonly instanceName: string | undefined };
  /** `${resource}` yields the identity path `k8s-<kind>-<ns>-<name>` with the resource's context. */
  [Symbol.toPrimitive](): string;
}

export interface Workload extends Resource<BaseOut> {
  /** `spec.selector.matchLabels` as plain strings, without context (breaks selector cycles). */
  readonly rawSelector: Readonly<Record<string, string>>;
}

export type AnyResource = Resource<BaseOut>;

// Process-wide (registry.ts): a resource built by another copy of the SDK is still a resource.
const nodes = sdkRegistry.resources;
export function nodeOf(r: unknown): ResNode | undefined {
  return typeof r === 'object' && r !== null ? (nodes.get(r) as ResNode | undefined) : undefined;
}
export function isResource(r: unknown): r is AnyResource {
  return nodeOf(r) !== undefined;
}

/** The state a scope carries. */
export interface ScopeState {
  readonly build: Build;
  readonly instanceName: string;
  readonly namespaceName: string;
  readonly labelStyle: LabelStyle;
  readonly selectorLabels: Readonly<Record<string, string>>;
  /** Structural edges for every resource built in this scope (a child scope's Namespace). */
  readonly structural: readonly ResNode[];
}

export function instanceLabels(st: Pick<ScopeState, 'instanceName' | 'labelStyle'>): Record<string, string> {
  return st.labelStyle === 'helm'
    ? { release: st.instanceName, 'app.kubernetes.io/managed-by': MANAGED_BY }
    : { 'app.kubernetes.io/instance': st.instanceName, 'app.kubernetes.io/managed-by': MANAGED_BY };
}

/** Who owns which fields once the object is applied (design/sdk.md §A2.4). */
export interface Ownership {
  /**
   * Field paths an in-cluster controller changes at run time (`spec.replicas` under an autoscaler,
   * `webhooks[*].clientConfig.caBundle`): sent when the object is created, then left to that controller —
   * never reported as drift, never applied over. Dotted names; list elements by `[*]`, `[<index>]` or
   * `[<key>="<value>"]`. Recorded in the `kix.run/cede-fields` annotation.
   * @default [] (the deployer owns every field it sends)
   */
  cede?: readonly string[];
}

/** Something that stands for a resource in `requires` / `extraDeps`: a resource or a package view. */
export type DepLike = AnyResource | { readonly root: unknown; readonly _type: 'kix.packageView' };

/**
 * The arguments every builder takes (design/sdk.md §A2.2). Dependencies between objects are normally
 * recorded without any argument: using another resource's `.out` value in the manifest makes this object
 * deploy after it. `requires` and `extraDeps` add edges the manifest does not show.
 */
export interface CommonArgs {
  /** `metadata.name`: a lowercase RFC 1123 name (Role and ClusterRole may use colons). */
  name: Str;
  /**
   * Labels added after the cluster's and the instance's labels (`app.kubernetes.io/instance`,
   * `app.kubernetes.io/managed-by`); on a shared key these win.
   * @default {}
   */
  labels?: Record<string, Str>;
  /**
   * Annotations, next to the `kix.run/*` annotations synth stamps (those are refused here, except
   * `kix.run/rerun: on-change` on a Job).
   * @default {}
   */
  annotations?: Record<string, Str>;
  /**
   * Custom `.out` fields for the objects and packages that use this one; their strings carry this
   * resource's context, so using them records the dependency. A key set to `null` removes the derived field
   * of that name (`fqdn: null` on a Service that must not be addressed).
   * @default {} (only the derived `.out` fields: name, fqdn, identityHash, selector, …)
   */
  outputs?: Record<string, unknown>;
  /**
   * Objects this one must deploy after although its manifest uses nothing of theirs (a Deployment after
   * its migration Job). Recorded as `requires:<hash>` in `kix.run/depends-on`; the deployer waits until
   * each is ready. Naming an object the manifest already uses through `.out` warns ("redundant requires"):
   * that edge exists already. On `mkServiceRef`, how the runtime Service waits for the operator's
   * resource that creates it.
   * @default []
   */
  requires?: readonly DepLike[];
  /**
   * The escape hatch for an edge that is neither data flow nor a plain "after" (`requires`): ordered the
   * same way, but recorded apart as `extra:<hash>` and never checked for redundancy, so every use stays
   * visible and greppable. Prefer `.out` references, then `requires`.
   * @default []
   */
  extraDeps?: readonly DepLike[];
  /**
   * Top-level manifest fields outside `spec`/`data` (`rules`, `roleRef`, `subjects`, `webhooks`,
   * `provisioner`, a Secret's `type`, …). It may not set `apiVersion`, `kind`, `metadata.name` or
   * `metadata.namespace`, nor a `spec`/`data`/`stringData` the argument of that name sets;
   * `metadata.labels`/`annotations` here merge with `labels`/`annotations`.
   * @default {}
   */
  extra?: ValueObject;
  /**
   * Fields ceded to in-cluster controllers.
   * @default {} (no field ceded)
   */
  ownership?: Ownership;
  /**
   * For network-policy synthesis through custom resources (design/sdk.md §A2.5): `conduct` when the
   * resource forwards traffic to pods (a Service or proxy), `terminate` when it is the destination.
   * @default {} (no endpoint facts propagate through this resource)
   */
  factBehavior?: { endpoint?: 'conduct' | 'terminate' };
}

/** `scope.mkResource` / `scope.mkClusterResource`: any kind but workloads, Secrets and CRDs. */
export interface ResourceArgs extends CommonArgs {
  /** API group and version (`v1`, `networking.k8s.io/v1`). */
  apiVersion: string;
  kind: string;
  /**
   * `.spec`, left out of the manifest when empty.
   * @default {}
   */
  spec?: ValueObject;
  /**
   * `.data` (ConfigMap), left out when empty.
   * @default {}
   */
  data?: ValueObject;
  /**
   * `.stringData`, left out when empty.
   * @default {}
   */
  stringData?: ValueObject;
}

export interface CoreOptions {
  readonly namespaced: boolean;
  readonly isImport?: boolean;
  readonly reflected?: boolean;
  readonly structural?: readonly ResNode[];
  readonly systemAnnotations?: Readonly<Record<string, string>>;
  /** Labels between the instance labels and the author's labels (workload selector labels). */
  readonly extraLabels?: Readonly<Record<string, Str>>;
  /** Extra `.out` fields derived by a specialised builder. */
  readonly outExtras?: (node: ResNode, base: Record<string, unknown>) => object;
  /** Whether `out.port` is set on a Service (fromWorkload, mkServiceRef). */
  readonly servicePort?: boolean;
  /** Part of the body other than spec/data/stringData (e.g. a Secret's `type`). */
  readonly body?: ValueObject;
  /** Overrides the instance-label source (namespaces are labelled by the cluster only). */
  readonly noInstanceLabels?: boolean;
  /** Extra attributes of the returned resource object (a workload's `rawSelector`). */
  readonly resourceExtra?: object;
}

const SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const RBAC_NAME = /^[a-z0-9]([-a-z0-9.:]*[a-z0-9])?$/;

export function checkName(kind: string, name: string): void {
  const rbac = kind === 'Role' || kind === 'ClusterRole';
  const ok = name.length <= 253 && (rbac ? RBAC_NAME.test(name) : SUBDOMAIN.test(name));
  if (!ok) {
    throw new SdkError(
      SdkCode.invalidName,
      `${kind} name "${name}" is not a valid lowercase RFC 1123 name${rbac ? ' (colon-separated RBAC names are allowed)' : ''}`,
    );
  }
}

function nonEmpty(o: ValueObject | undefined): boolean {
  return o !== undefined && o !== null && Object.keys(o).length > 0;
}

/** `extra` shadowing rules. Returns the metadata part and the other top-level fields. */
function splitExtra(
  label: string,
  extra: ValueObject | undefined,
  a: Pick<ResourceArgs, 'spec' | 'data' | 'stringData'>,
): { meta: Record<string, Value>; rest: Record<string, Value> } {
  const meta: Record<string, Value> = {};
  const rest: Record<string, Value> = {};
  if (!extra) return { meta, rest };
  for (const key of ['apiVersion', 'kind']) {
    if (key in extra) {
      throw new SdkError(SdkCode.extraIdentity, `${label}: extra cannot set ${key}`, {
        path: `extra.${key}`,
      });
    }
  }
  for (const key of ['spec', 'data', 'stringData'] as const) {
    if (key in extra && nonEmpty(a[key])) {
      throw new SdkError(
        SdkCode.extraShadowsArgument,
        `${label}: extra.${key} shadows the non-empty ${key} argument; set one of them`,
        { path: `extra.${key}` },
      );
    }
  }
  for (const [k, v] of Object.entries(extra)) {
    if (k === 'metadata') {
      if (!isPlainObject(v)) {
        throw new SdkError(SdkCode.invalidArgument, `${label}: extra.metadata must be an object`);
      }
      for (const forbidden of ['name', 'namespace']) {
        if (forbidden in v) {
          throw new SdkError(
            SdkCode.extraMetadataIdentity,
            `${label}: extra.metadata cannot set ${forbidden}`,
            {
              path: `extra.metadata.${forbidden}`,
            },
          );
        }
      }
      Object.assign(meta, v);
    } else rest[k] = v;
  }
  return { meta, rest };
}

// ---- ownership.cede ------------------------------------------------------------------------

export type CedeSelector =
  | { readonly all: true }
  | { readonly index: number }
  | { readonly key: string; readonly value: string };
export interface CedeStep {
  readonly field: string;
  readonly selectors: readonly CedeSelector[];
}

/** Parses `spec.replicas`, `webhooks[*].clientConfig.caBundle`, `.webhooks[name="x"].rules`.
 * `.*` is a literal field named `*`. */
export function parseCedePath(path: string): CedeStep[] {
  const fail = (why: string): never => {
    throw new SdkError(SdkCode.invalidCedePath, `ownership.cede path "${path}": ${why}`);
  };
  let i = path.startsWith('.') ? 1 : 0;
  const steps: CedeStep[] = [];
  while (i < path.length) {
    let field = '';
    while (i < path.length && path[i] !== '.' && path[i] !== '[') field += path[i++];
    if (field === '') fail('empty field name');
    const selectors: CedeSelector[] = [];
    while (path[i] === '[') {
      const end = path.indexOf(']', i);
      if (end < 0) fail('unterminated [');
      const body = path.slice(i + 1, end);
      i = end + 1;
      if (body === '*') selectors.push({ all: true });
      else if (/^\d+$/.test(body)) selectors.push({ index: Number(body) });
      else {
        const m = /^([A-Za-z0-9_.\-/]+)="((?:[^"\\]|\\.)*)"$/.exec(body);
        if (!m) fail(`bad list selector [${body}] (use [*], [<index>] or [<key>="<value>"])`);
        selectors.push({ key: m![1]!, value: m![2]!.replace(/\\(.)/g, '$1') });
      }
    }
    steps.push({ field, selectors });
    if (i < path.length) {
      if (path[i] !== '.') fail(`unexpected "${path[i]}"`);
      i++;
      if (i === path.length) fail('trailing dot');
    }
  }
  if (steps.length === 0) fail('empty path');
  return steps;
}

// ---- deps ----------------------------------------------------------------------------------

export function depNode(d: unknown, what: string): ResNode {
  const direct = nodeOf(d);
  if (direct) return direct;
  if (typeof d === 'object' && d !== null && (d as { _type?: unknown })._type === 'kix.packageView') {
    const root = (d as { root?: unknown }).root;
    const viaRoot = nodeOf(root) ?? nodeOf((root as { resource?: unknown } | undefined)?.resource);
    if (viaRoot) return viaRoot;
  }
  throw new SdkError(SdkCode.notAResource, `${what}: expected a resource built by a scope builder`);
}

// ---- core builder --------------------------------------------------------------------------

function textOf(v: unknown): string | undefined {
  if (typeof v === 'string' || isKStr(v)) return inspectStr(v).text;
  if (typeof v === 'number') return String(v);
  return undefined;
}

function labelSelectorOut(labels: unknown, ctx: Ctx): Record<string, KStr> {
  const out: Record<string, KStr> = {};
  if (!isPlainObject(labels)) return out;
  for (const [k, v] of Object.entries(labels)) {
    if (v === null || v === undefined) continue;
    const s = typeof v === 'string' || isKStr(v) ? toKStr(v) : toKStr(String(v));
    out[k] = new KStr(s.segments, unionCtx(s.ctx, ctx));
  }
  return out;
}

/**
 * The one builder under every scope builder (design/sdk.md §A2, §A8): identity → draft manifest → node with its
 * dependencies → `.out`. Workloads, secrets, CRDs and services add their own checks and `.out` fields through `opts`.
 */
export function createResource(
  st: ScopeState,
  a: ResourceArgs,
  opts: CoreOptions,
): { node: ResNode; resource: AnyResource } {
  const { nameK, name } = checkIdentity(a);
  const namespace = opts.namespaced ? st.namespaceName : undefined;
  const label = kubectlNameIn({ apiVersion: a.apiVersion, kind: a.kind, namespace, name });
  const draft = draftOf(st, a, opts, label, namespace);
  const node = buildNode(st, a, opts, label, namespace, name, draft);
  st.build.add(node);
  const base = outOf(st, a, opts, node, nameK, label);
  const resource = makeResourceObject(node, Object.freeze(base) as BaseOut, st, opts.resourceExtra);
  return { node, resource };
}

/** apiVersion, kind and a name known at build time (an identityHash is only known at synth). */
function checkIdentity(a: ResourceArgs): { nameK: KStr; name: string } {
  if (typeof a.apiVersion !== 'string' || a.apiVersion === '') {
    throw new SdkError(SdkCode.invalidArgument, 'apiVersion is required');
  }
  if (typeof a.kind !== 'string' || a.kind === '')
    throw new SdkError(SdkCode.invalidArgument, 'kind is required');
  if (a.name === undefined || a.name === null) {
    throw new SdkError(SdkCode.invalidArgument, `${a.kind}: name is required`);
  }
  const nameK = toKStr(a.name, `${a.kind} name`);
  if (nameK.segments.some((s) => typeof s !== 'string' && s.kind === 'hash')) {
    throw new SdkError(
      SdkCode.deferredValue,
      `${a.kind} name cannot contain an identityHash (only known at synth); use kix.contentHash(inputs) instead`,
    );
  }
  const name = nameK.text;
  checkName(a.kind, name);
  return { nameK, name };
}

/** The manifest as authored, with the stamped labels and the author's annotations (kix.run/* is ours). */
function draftOf(
  st: ScopeState,
  a: ResourceArgs,
  opts: CoreOptions,
  label: string,
  namespace: string | undefined,
): Record<string, unknown> {
  const { build } = st;
  const { meta, rest } = splitExtra(label, a.extra, a);

  const labels: Record<string, Value> = {
    ...build.cluster.labels,
    ...(opts.noInstanceLabels ? { 'app.kubernetes.io/managed-by': MANAGED_BY } : instanceLabels(st)),
    ...(opts.extraLabels ?? {}),
    ...(a.labels ?? {}),
    ...(isPlainObject(meta.labels) ? (meta.labels as Record<string, Value>) : {}),
  };
  const annotations: Record<string, Value> = {
    ...(a.annotations ?? {}),
    ...(isPlainObject(meta.annotations) ? (meta.annotations as Record<string, Value>) : {}),
  };
  for (const key of Object.keys(annotations)) {
    if (key.startsWith('kix.run/') && key !== 'kix.run/rerun') {
      throw new SdkError(
        SdkCode.invalidArgument,
        `${label}: annotation ${key} is written by kgraph, not by authors`,
      );
    }
  }
  const { labels: _l, annotations: _a, ...metaRest } = meta;
  const metadata: Record<string, Value> = {
    ...metaRest,
    name: a.name,
    ...(namespace === undefined ? {} : { namespace }),
    labels,
    ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
  };
  const draft: Record<string, unknown> = {
    ...rest,
    ...(opts.body ?? {}),
    apiVersion: a.apiVersion,
    kind: a.kind,
    metadata,
  };
  for (const key of ['spec', 'data', 'stringData'] as const) {
    if (nonEmpty(a[key])) draft[key] = a[key];
  }

  return draft;
}

/** The build node: identity, system annotations and what it must wait for. */
function buildNode(
  st: ScopeState,
  a: ResourceArgs,
  opts: CoreOptions,
  label: string,
  namespace: string | undefined,
  name: string,
  draft: Record<string, unknown>,
): ResNode {
  const node = new ResNode({
    apiVersion: a.apiVersion,
    kind: a.kind,
    namespace,
    name,
    instance: st.instanceName === '' ? undefined : st.instanceName,
    isImport: opts.isImport ?? false,
    reflected: opts.reflected ?? false,
    graphId: graphIdFor(a.kind, name),
    draft,
  });

  Object.assign(node.systemAnnotations, opts.systemAnnotations ?? {});
  const cede = a.ownership?.cede ?? [];
  if (cede.length > 0) {
    for (const p of cede) parseCedePath(p);
    node.systemAnnotations['kix.run/cede-fields'] = JSON.stringify([...new Set(cede)]);
  }
  for (const r of a.requires ?? []) node.requires.push(depNode(r, `${label}: requires`));
  for (const r of a.extraDeps ?? []) node.extraDeps.push(depNode(r, `${label}: extraDeps`));
  node.structural.push(...st.structural, ...(opts.structural ?? []));
  if (a.factBehavior?.endpoint !== undefined && !['conduct', 'terminate'].includes(a.factBehavior.endpoint)) {
    throw new SdkError(
      SdkCode.invalidArgument,
      `${label}: factBehavior.endpoint must be "conduct" or "terminate"`,
    );
  }
  node.endpointBehavior = a.factBehavior?.endpoint;
  return node;
}

/** `.out` (design/sdk.md §A8.2): name, fqdn, identityHash, selector; for a Service ports, port and url; then extras. */
function outOf(
  st: ScopeState,
  a: ResourceArgs,
  opts: CoreOptions,
  node: ResNode,
  nameK: KStr,
  label: string,
): Record<string, unknown> {
  const { build } = st;
  const { name, namespace, draft } = node;
  const labels = (draft.metadata as { labels: Record<string, Value> }).labels;
  const self = nodeCtx(node);
  const selfConnect = nodeCtx(node, true);
  const nameOut = new KStr(
    nameK.segments.length === 1 && typeof nameK.segments[0] === 'string'
      ? [{ kind: 'field', text: name, node, path: 'metadata.name' }]
      : nameK.segments,
    unionCtx(nameK.ctx, self),
  );
  const nameSegs: Segment[] = [...nameOut.segments];
  const fqdn =
    namespace === undefined
      ? new KStr(nameSegs, unionCtx(nameK.ctx, selfConnect))
      : new KStr(
          [
            ...nameSegs,
            '.',
            { kind: 'field', text: namespace, node, path: 'metadata.namespace' },
            `.svc.${build.cluster.clusterDomain}`,
          ],
          unionCtx(nameK.ctx, selfConnect),
        );
  const spec = draft.spec as Record<string, unknown> | undefined;
  const matchLabels = (spec?.selector as Record<string, unknown> | undefined)?.matchLabels;
  const base: Record<string, unknown> = {
    name: nameOut,
    fqdn,
    identityHash: new KStr([{ kind: 'hash', node }], self),
    selector: labelSelectorOut(isPlainObject(matchLabels) ? matchLabels : labels, self),
  };
  if (a.kind === 'Service' && a.apiVersion === 'v1') {
    const ports = materialize(spec?.ports, 'text').value as ServicePort[] | undefined;
    if (Array.isArray(ports)) base.ports = ports;
    const first = Array.isArray(ports) ? ports[0]?.port : undefined;
    if (opts.servicePort && first !== undefined) {
      base.port = new KStr([String(first)], selfConnect);
    }
    base.url = (o: { scheme?: string; port?: number | null } = {}): KStr => {
      const p = o.port ?? first;
      if (p === undefined || p === null) {
        throw new SdkError(
          SdkCode.invalidArgument,
          `${label}: out.url needs a port (the Service has no spec.ports)`,
        );
      }
      return new KStr([`${o.scheme ?? 'http'}://`, ...fqdn.segments, `:${p}`], selfConnect);
    };
  }
  Object.assign(base, opts.outExtras?.(node, base) ?? {});
  for (const [k, v] of Object.entries(a.outputs ?? {})) {
    if (v === null) delete base[k];
    else if (typeof v === 'string' || isKStr(v)) base[k] = withCtx(v, self);
    else base[k] = v;
  }
  return base;
}

export function makeResourceObject<O extends BaseOut>(
  node: ResNode,
  out: O,
  st: ScopeState | undefined,
  extra: object = {},
): Resource<O> {
  const finalManifest = (): Manifest => {
    if (!node.rawManifest) {
      throw new SdkError(SdkCode.deferredValue, `${node.label}: the manifest is only available after synth`);
    }
    return node.rawManifest;
  };
  const r = {
    __kgraphResource: true as const,
    apiVersion: node.apiVersion,
    kind: node.kind,
    name: node.name,
    namespace: node.namespace,
    out,
    get manifest() {
      return finalManifest();
    },
    get rawManifest() {
      return finalManifest();
    },
    outPath: node.outPath,
    /** As in Nix, interpolating the resource itself yields its identity path (with its context), not
     * its name: authors use `.out.name`. */
    [Symbol.toPrimitive]: (): string => String(new KStr([node.outPath], nodeCtx(node))),
    identity: {
      apiVersion: node.apiVersion,
      kind: node.kind,
      namespace: node.namespace,
      name: node.name,
      key: node.key,
    },
    _meta: { namespaceName: node.namespace ?? st?.namespaceName, instanceName: node.instance },
    ...extra,
  };
  nodes.set(r, node);
  return r;
}

/** Reads text of a draft field (undefined when absent or lazy). */
export function draftText(v: unknown): string | undefined {
  return textOf(v);
}

export type { Json };
