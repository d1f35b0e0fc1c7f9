/**
 * The state of one build: every resource node created through a scope, warnings, import markers and
 * derived-PDB requests. `finalize` (synth.ts) turns it into ordered manifests.
 */
import type { Diagnostic } from '../diag/diagnostic.ts';
import { kubectlNameIn } from '../diag/objectName.ts';
import type { ChartRenderer } from './chartRenderer.ts';
import type { ResolvedCluster } from './cluster.ts';
import type { Ctx, CtxNode } from './context.ts';
import { callSite, SdkCode, type SdkCodeValue, SdkError, sdkDiagnostic } from './errors.ts';
import type { Json, Manifest } from './values.ts';

export function groupOf(apiVersion: string): string {
  const i = apiVersion.indexOf('/');
  return i < 0 ? '' : apiVersion.slice(0, i);
}

export function objectKey(
  apiVersion: string,
  kind: string,
  namespace: string | undefined,
  name: string,
): string {
  const g = groupOf(apiVersion);
  return namespace === undefined ? `${g}/${kind}/${name}` : `${g}/namespaces/${namespace}/${kind}/${name}`;
}

export interface PdbRequest {
  readonly workload: ResNode;
  /** Pod-template labels of the workload (plain text). */
  readonly podLabels: Readonly<Record<string, string>>;
  readonly create: () => void;
}

/** A workload as network-policy derivation sees it (networkPolicy.ts). */
export interface WorkloadRecord {
  readonly node: ResNode;
  /** The pod selector (plain text): `spec.selector.matchLabels`, else the pod-template labels. */
  readonly selector: Readonly<Record<string, string>>;
  /** Pod-template labels (plain text). */
  readonly podLabels: Readonly<Record<string, string>>;
  /** Whether the pods resolve names through the cluster DNS (`dnsPolicy` unset or ClusterFirst). */
  readonly clusterFirstDns: boolean;
  /** `meta.network.intents` as authored. */
  readonly intents: readonly unknown[];
  /** Builds a namespaced object in the workload's scope (its instance labels and namespace). */
  readonly createInScope: (a: {
    apiVersion: string;
    kind: string;
    name: string;
    spec: Record<string, unknown>;
  }) => ResNode;
}

export interface ImportMarker {
  /** e.g. `service-ref-<instance>-<name>` */
  readonly name: string;
  readonly kind: string;
  readonly namespace: string | undefined;
  readonly objectName: string;
}

/** One resource of the build. Implements the context node that `.out` values point to. */
export class ResNode implements CtxNode {
  readonly key: string;
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace: string | undefined;
  readonly name: string;
  readonly instance: string | undefined;
  readonly isImport: boolean;
  readonly reflected: boolean;
  graphId: string;
  /** Whether graphId comes from a part name (`self.<part>`). */
  namedByPart = false;
  /** The authored manifest tree (context strings, lazies, nulls). */
  draft: Record<string, unknown>;
  readonly requires: ResNode[] = [];
  readonly extraDeps: ResNode[] = [];
  /** Edges that do not come from data: forNamespace's Namespace, mkCR's CRD, the DNS provider. */
  readonly structural: ResNode[] = [];
  /** kix.run/* annotations added by builders (readiness, cede-fields, import, expects, holds-data). */
  readonly systemAnnotations: Record<string, string> = {};
  readonly expects = new Set<string>();
  hash: string | undefined;
  rawManifest: Manifest | undefined;
  /** Ordering context found in the manifest at synth. */
  derived: Ctx | undefined;
  /** The part evaluation that built this node (see `Build.currentPart`). */
  part: object | undefined;
  /** `factBehavior.endpoint`: how network-policy derivation treats endpoint facts through this object. */
  endpointBehavior: 'conduct' | 'terminate' | undefined;
  constructor(a: {
    apiVersion: string;
    kind: string;
    namespace: string | undefined;
    name: string;
    instance: string | undefined;
    isImport: boolean;
    reflected: boolean;
    graphId: string;
    draft: Record<string, unknown>;
  }) {
    this.apiVersion = a.apiVersion;
    this.kind = a.kind;
    this.namespace = a.namespace;
    this.name = a.name;
    this.instance = a.instance;
    this.isImport = a.isImport;
    this.reflected = a.reflected;
    this.graphId = a.graphId;
    this.draft = a.draft;
    this.key = objectKey(a.apiVersion, a.kind, a.namespace, a.name);
  }
  get outPath(): string {
    return `k8s-${this.kind}-${this.namespace ?? ''}-${this.name}`;
  }
  /** Human label used in messages, kubectl-style as every command names objects: `deployment.apps/api -n shop`. */
  get label(): string {
    return kubectlNameIn(this);
  }
}

export class Build {
  readonly cluster: ResolvedCluster;
  readonly nodes: ResNode[] = [];
  readonly diagnostics: Diagnostic[] = [];
  readonly byKey = new Map<string, ResNode>();
  /** Graph ids in use (kept in step with `ResNode.graphId` renames). */
  readonly graphIds = new Set<string>();
  readonly imports: ImportMarker[] = [];
  readonly pdbRequests: PdbRequest[] = [];
  readonly workloads: WorkloadRecord[] = [];
  /** The part evaluation under way: nodes built now belong to it and are dropped if it is retried. */
  currentPart: object | undefined;
  /** Namespace resources by name, created on first use. */
  readonly namespaceNodes = new Map<string, unknown>();
  /** Renders Helm charts for `scope.helm.importChart` (injected: synth itself does no I/O). */
  chartRenderer: ChartRenderer | undefined;
  /** Root resource of the instance providing a role (`dns`, `loadBalancer`), once built. */
  readonly roleNodes = new Map<string, ResNode>();
  finalized = false;
  /** Topological order computed by finalize. */
  order: ResNode[] = [];
  constructor(cluster: ResolvedCluster) {
    this.cluster = cluster;
  }
  warn(
    code: SdkCodeValue,
    message: string,
    extra: Partial<Omit<Diagnostic, 'code' | 'message' | 'severity'>> = {},
  ) {
    // Located, as the SDK's errors are: the package line that built what the warning is about.
    const location = extra.location ?? callSite(new Error().stack);
    this.diagnostics.push(
      sdkDiagnostic('warning', code, message, { ...(location ? { location } : {}), ...extra }),
    );
  }
  add(node: ResNode): void {
    const clash = this.byKey.get(node.key);
    if (clash) {
      throw new SdkError(SdkCode.invalidArgument, builtTwiceMessage(clash, node), { node: node.key });
    }
    node.part = this.currentPart;
    node.graphId = uniqueGraphId(this, node.graphId);
    this.graphIds.add(node.graphId);
    this.byKey.set(node.key, node);
    this.nodes.push(node);
  }

  /** Drops the nodes a part evaluation built before it was abandoned (it is evaluated again later).
   * Namespaces stay: they are shared by every part and cached by `namespaceResource`. */
  dropPart(part: object): void {
    const dropped = new Set(this.nodes.filter((n) => n.part === part && n.kind !== 'Namespace'));
    if (dropped.size === 0) return;
    const keep = this.nodes.filter((n) => !dropped.has(n));
    this.nodes.splice(0, this.nodes.length, ...keep);
    for (const n of dropped) {
      this.byKey.delete(n.key);
      this.graphIds.delete(n.graphId);
    }
    const imports = this.imports.filter(
      (i) =>
        ![...dropped].some(
          (n) => n.kind === i.kind && n.namespace === i.namespace && n.name === i.objectName,
        ),
    );
    this.imports.splice(0, this.imports.length, ...imports);
    const pdbs = this.pdbRequests.filter((r) => !dropped.has(r.workload));
    this.pdbRequests.splice(0, this.pdbRequests.length, ...pdbs);
    const workloads = this.workloads.filter((w) => !dropped.has(w.node));
    this.workloads.splice(0, this.workloads.length, ...workloads);
  }
}

/** Why an object key was built a second time, in words that fit the case. */
function builtTwiceMessage(first: ResNode, second: ResNode): string {
  const who = (i: string | undefined) => (i === undefined ? 'the cluster definition' : `instance ${i}`);
  const what = first.isImport && second.isImport ? 'referenced (as a ref)' : 'built';
  const by =
    first.instance === second.instance
      ? `twice by ${who(first.instance)}`
      : `by both ${who(first.instance)} and ${who(second.instance)}`;
  const scope =
    first.namespace === undefined
      ? 'a cluster-scoped object belongs to one instance'
      : `names are unique per kind within namespace ${first.namespace}`;
  return `${first.label} is ${what} ${by}; ${scope}: build it once and pass the resource (or its .out) where it is needed`;
}

export function uniqueGraphId(b: Build, base: string): string {
  const taken = b.graphIds;
  if (!taken.has(base)) return base;
  for (let i = 2; ; i++) if (!taken.has(`${base}${i}`)) return `${base}${i}`;
}

/** `Deployment` + `api-server` → `deploymentApiServer` (a valid Graph node id). */
export function graphIdFor(kind: string, name: string): string {
  const words = `${kind} ${name}`.split(/[^A-Za-z0-9]+/).filter((w) => w !== '');
  const id = words
    .map((w, i) =>
      i === 0 ? w.charAt(0).toLowerCase() + w.slice(1) : w.charAt(0).toUpperCase() + w.slice(1),
    )
    .join('');
  return /^[A-Za-z]/.test(id) ? id : `n${id}`;
}

export type { Json };
