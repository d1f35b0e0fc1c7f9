/**
 * Synth: evaluates every instance of a cluster definition, then finalizes the build:
 * materializes manifests (collecting context), orders resources over their edges (a cycle is an error
 * with its full path), hashes them in that order and stamps the `kix.run/*` annotations.
 */
import type { Diagnostic } from '../diag/diagnostic.ts';
import { Build, type ImportMarker, type ResNode } from './build.ts';
import type { ChartRenderer } from './chartRenderer.ts';
import { type ClusterDef, type InstanceDef, resolveCluster } from './cluster.ts';
import { type CtxNode, withStrictContext } from './context.ts';
import { SdkCode, SdkError, sdkDiagnostic } from './errors.ts';
import { identityHash } from './hash.ts';
import { materialize } from './materialize.ts';
import { synthesizeNetworkPolicies } from './networkPolicy.ts';
import { evaluateInstance, type PackageView } from './package.ts';
import { nodeOf } from './resource.ts';
import { makeScope, type Scope, type ScopeOptions } from './scope.ts';
import { checkTargetedSelector } from './selectors.ts';
import { checkStatefulSetServices } from './statefulSetService.ts';
import type { Json, Manifest } from './values.ts';
import { pdbSelects } from './workloads.ts';

export interface SynthOptions {
  /** `marker` (default): plain template literals keep context through markers; `strict`: they throw. */
  tokens?: 'marker' | 'strict';
  /** Renders charts for `scope.helm.importChart({ chart })` (src/helm: `binaryChartRenderer()`). */
  chartRenderer?: ChartRenderer;
}

export interface DeployGraphNode {
  readonly key: string;
  readonly id: string;
  readonly hash: string;
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace: string | undefined;
  readonly name: string;
  readonly import: boolean;
  /** Keys of the objects this one waits for (all edge kinds). */
  readonly dependsOn: readonly string[];
}

export interface DeployGraph {
  /** In apply order (topological, ties broken by key). */
  readonly nodes: readonly DeployGraphNode[];
}

export interface SynthResult {
  /** In apply order. */
  readonly manifests: Manifest[];
  readonly diagnostics: Diagnostic[];
  readonly graph: DeployGraph;
  readonly imports: readonly ImportMarker[];
  /** The finalized build (for `--as graph`). */
  readonly build: Build;
}

/** Synthesizes a whole cluster definition. */
export function synth(def: ClusterDef, opts: SynthOptions = {}): SynthResult {
  return withStrictContext(opts.tokens === 'strict', () => {
    const build = new Build(resolveCluster(def));
    build.chartRenderer = opts.chartRenderer;
    const instances = build.cluster.instances;
    const views = new Map<string, PackageView>();
    for (const name of instanceOrder(build, instances)) {
      const inst = instances[name]!;
      const deps: Record<string, PackageView> = {};
      for (const [depName, target] of Object.entries(inst.deps ?? {})) deps[depName] = views.get(target)!;
      const view = evaluateInstance(build, name, inst, deps);
      views.set(name, view);
      const rootNode = nodeOf(view.root);
      for (const role of inst.package.provides) {
        if (build.cluster.providers[role] === name && rootNode) build.roleNodes.set(role, rootNode);
      }
    }
    return finalize(build);
  });
}

/** Providers of roles first, then dependencies before dependents; ties by name. */
function instanceOrder(build: Build, instances: Readonly<Record<string, InstanceDef>>): string[] {
  const order: string[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (name: string, path: string[]) => {
    if (state.get(name) === 'done') return;
    if (state.get(name) === 'visiting') {
      throw new SdkError(
        SdkCode.clusterDefinition,
        `instance dependency cycle: ${[...path, name].join(' -> ')}`,
      );
    }
    const inst = instances[name];
    if (!inst)
      throw new SdkError(SdkCode.clusterDefinition, `unknown instance "${name}" (from ${path.join(' -> ')})`);
    state.set(name, 'visiting');
    for (const target of Object.values(inst.deps ?? {}).sort()) visit(target, [...path, name]);
    state.set(name, 'done');
    order.push(name);
  };
  const providers = new Set(Object.values(build.cluster.providers).filter((p) => p in instances));
  for (const name of [...providers].sort()) visit(name, []);
  for (const name of Object.keys(instances).sort()) visit(name, []);
  return order;
}

/** A build for direct use of scopes (tests, programmatic packages): build, then `finalize()`. */
export interface Session {
  readonly build: Build;
  scope(o: ScopeOptions): Scope;
  finalize(): SynthResult;
}

export function createSession(def: ClusterDef = {}, opts: Pick<SynthOptions, 'chartRenderer'> = {}): Session {
  const build = new Build(resolveCluster(def));
  build.chartRenderer = opts.chartRenderer;
  return {
    build,
    scope: (o) => makeScope(build, o),
    finalize: () => finalize(build),
  };
}

function errorFrom(diags: Diagnostic[]): SdkError {
  const first = diags[0]!;
  const msg = diags
    .map((d) => `${d.code} ${d.node ?? ''}${d.path ? ` ${d.path}` : ''}: ${d.message}`)
    .join('\n');
  const e = new SdkError(first.code as typeof SdkCode.markerCorrupted, msg);
  (e as { diagnostics: readonly Diagnostic[] }).diagnostics = diags;
  return e;
}

/**
 * Finalizes a build (design/sdk.md §B4, design/sdk.md §B5): derives the implicit resources (PodDisruptionBudgets, network
 * policies), collects every node's dependencies, orders the nodes, then hashes and stamps them in that
 * order (a node's `kix.run/depends-on` names the hashes of what it depends on).
 */
export function finalize(build: Build): SynthResult {
  if (build.finalized) throw new SdkError(SdkCode.invalidArgument, 'this build was already finalized');
  deriveImplicitResources(build);
  const deps = collectDependencies(build);
  for (const node of build.nodes) checkTargetedSelector(node);
  checkStatefulSetServices(build);
  const order = orderNodes(build, deps);
  for (const node of order) stamp(node, deps);
  build.order = order;
  build.finalized = true;
  return {
    manifests: order.map((n) => n.rawManifest!),
    diagnostics: build.diagnostics,
    graph: {
      nodes: order.map((n) => ({
        key: n.key,
        id: n.graphId,
        hash: n.hash!,
        apiVersion: n.apiVersion,
        kind: n.kind,
        namespace: n.namespace,
        name: n.name,
        import: n.isImport,
        dependsOn: [...(deps.get(n) ?? [])].map((d) => d.key).sort(),
      })),
    },
    imports: build.imports,
    build,
  };
}

/**
 * Derived PodDisruptionBudgets (unless one the author built already selects the workload's pods; a
 * derived PDB is for its own workload) and the network policies the build asks for.
 */
function deriveImplicitResources(build: Build): void {
  const authoredPdbs = build.nodes.filter((n) => n.kind === 'PodDisruptionBudget');
  for (const req of build.pdbRequests) {
    const existing = authoredPdbs.some(
      (n) =>
        n.instance === req.workload.instance &&
        n.namespace === req.workload.namespace &&
        pdbSelects(n, req.podLabels),
    );
    if (!existing) req.create();
  }
  synthesizeNetworkPolicies(build);
}

/**
 * Each node's dependencies: what its manifest reads through `.out`, its structural links, `requires`
 * and `extraDeps`. A dependency on another build, or a manifest that does not materialize, is an error.
 */
function collectDependencies(build: Build): Map<ResNode, Set<ResNode>> {
  const errors: Diagnostic[] = [];
  const deps = new Map<ResNode, Set<ResNode>>();
  const members = new Set(build.nodes);
  for (const node of build.nodes) {
    const m = materialize(node.draft, 'text');
    for (const p of m.problems) {
      errors.push(
        sdkDiagnostic('error', p.code, `${node.label}, field ${p.path || '(root)'}: ${p.message}`, {
          node: node.key,
          path: p.path,
        }),
      );
    }
    node.derived = m.ctx;
    const set = new Set<ResNode>();
    const addNode = (n: CtxNode) => {
      if (n === node) return;
      if (!members.has(n as ResNode)) {
        errors.push(
          sdkDiagnostic(
            'error',
            SdkCode.invalidArgument,
            `${node.label} uses ${n.key}, which belongs to another build`,
            {
              node: node.key,
            },
          ),
        );
        return;
      }
      set.add(n as ResNode);
    };
    for (const n of m.ctx.order) addNode(n);
    for (const n of node.structural) addNode(n);
    for (const r of node.requires) {
      // A ref's manifest is a description of an object created elsewhere (an operator's Service), not
      // something kgraph applies: `requires` is how it waits for the operator's resource, never redundant.
      if (m.ctx.order.has(r) && !node.isImport) {
        build.warn(
          SdkCode.redundantRequires,
          `${node.label}: redundant requires: ${r.label} is already referenced through .out in the manifest`,
          { node: node.key },
        );
      }
      addNode(r);
    }
    for (const r of node.extraDeps) addNode(r);
    deps.set(node, set);
  }
  if (errors.length > 0) throw errorFrom(errors);
  return deps;
}

/**
 * Dependency order. Ordering also puts a Namespace of the build before the objects it contains (not an
 * annotation: the deployer derives the same implicit edge, see order.ts).
 */
function orderNodes(build: Build, deps: Map<ResNode, Set<ResNode>>): ResNode[] {
  const orderDeps = new Map<ResNode, Set<ResNode>>();
  const nsNodes = new Map(
    build.nodes.filter((n) => n.kind === 'Namespace' && n.apiVersion === 'v1').map((n) => [n.name, n]),
  );
  for (const [n, set] of deps) {
    const ns = n.namespace === undefined ? undefined : nsNodes.get(n.namespace);
    orderDeps.set(n, ns && ns !== n ? new Set([...set, ns]) : set);
  }
  return topoOrder(build.nodes, orderDeps);
}

/** The final manifest of a node, its `kix.run/depends-on` annotation and its identity hash (dependencies first). */
function stamp(node: ResNode, deps: Map<ResNode, Set<ResNode>>): void {
  const m = materialize(node.draft, 'final');
  const manifest = (m.value ?? {}) as Record<string, Json>;
  const metadata = (manifest.metadata ?? {}) as Record<string, Json>;
  const annotations: Record<string, string> = {
    ...((metadata.annotations ?? {}) as Record<string, string>),
    ...node.systemAnnotations,
  };
  const derived = new Set<CtxNode>([...(node.derived?.order ?? []), ...node.structural]);
  const entries = new Set<string>();
  for (const d of deps.get(node) ?? []) {
    if (derived.has(d)) entries.add(d.hash!);
    else if (node.requires.includes(d)) entries.add(`requires:${d.hash!}`);
    else entries.add(`extra:${d.hash!}`);
  }
  if (entries.size > 0) annotations['kix.run/depends-on'] = [...entries].sort().join(',');
  if (Object.keys(annotations).length > 0) metadata.annotations = sortKeys(annotations);
  else delete metadata.annotations;
  const ordered = orderManifest({ ...manifest, metadata: sortKeys(metadata) });
  node.hash = identityHash(node.outPath, ordered as unknown as Json);
  node.rawManifest = ordered;
}

function sortKeys<T>(o: Record<string, T>): Record<string, T> {
  return Object.fromEntries(
    Object.keys(o)
      .sort()
      .map((k) => [k, o[k]!]),
  );
}

/** apiVersion, kind, metadata first; the rest sorted. */
function orderManifest(m: Record<string, Json>): Manifest {
  const { apiVersion, kind, metadata, ...rest } = m;
  return { apiVersion, kind, metadata, ...sortKeys(rest) } as unknown as Manifest;
}

/** Kahn's algorithm, ties broken by key; a cycle is reported with its full path. */
export interface Orderable {
  readonly key: string;
  readonly kind: string;
  readonly graphId: string;
}

export function topoOrder<T extends Orderable>(
  nodes: readonly T[],
  deps: ReadonlyMap<T, ReadonlySet<T>>,
): T[] {
  const remaining = new Map<T, number>();
  const dependents = new Map<T, T[]>();
  for (const n of nodes) {
    remaining.set(n, deps.get(n)?.size ?? 0);
    for (const d of deps.get(n) ?? []) {
      const list = dependents.get(d) ?? [];
      list.push(n);
      dependents.set(d, list);
    }
  }
  const byKey = (a: T, b: T) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
  const ready = nodes.filter((n) => remaining.get(n) === 0).sort(byKey);
  const order: T[] = [];
  while (ready.length > 0) {
    const n = ready.shift()!;
    order.push(n);
    for (const m of dependents.get(n) ?? []) {
      const left = remaining.get(m)! - 1;
      remaining.set(m, left);
      if (left === 0) {
        ready.push(m);
        ready.sort(byKey);
      }
    }
  }
  if (order.length < nodes.length) {
    const left = new Set(nodes.filter((n) => !order.includes(n)));
    const start = [...left].sort(byKey)[0]!;
    const path: T[] = [];
    const onPath = new Set<T>();
    let cur: T = start;
    while (!onPath.has(cur)) {
      path.push(cur);
      onPath.add(cur);
      cur = [...(deps.get(cur) ?? [])].filter((d) => left.has(d)).sort(byKey)[0]!;
    }
    // Report the cycle from its member created first, so the same package always gives the same message.
    const ring = path.slice(path.indexOf(cur));
    const index = new Map(nodes.map((n, i) => [n, i]));
    const first = ring.reduce((best, n, i) => (index.get(n)! < index.get(ring[best]!)! ? i : best), 0);
    const rotated = [...ring.slice(first), ...ring.slice(0, first)];
    const cycle = [...rotated, rotated[0]!];
    const hintNode =
      cycle.find((n) => ['Deployment', 'StatefulSet', 'DaemonSet'].includes(n.kind)) ?? cycle[0]!;
    throw new SdkError(
      SdkCode.cycle,
      `cycle: ${cycle.map((n) => n.key).join(' -> ')} (hint: use ${hintNode.graphId}.rawSelector, lazy() or unsafeDiscardContext)`,
    );
  }
  return order;
}
