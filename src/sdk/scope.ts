/**
 * `scope`: the builders of one package instance (or a child scope for another namespace). `makeScope` assembles
 * the `Scope` (scopeApi.ts) from the builders: generic resources here, secrets (scopeSecrets.ts), CRDs and their
 * custom resources (scopeCrds.ts), service references and webhooks (scopeServices.ts), workloads (workloads.ts).
 */
import type { Build, ResNode } from './build.ts';
import { type ChartManifest, clusterScopedKinds, importChart } from './chart.ts';
import { type Ctx, inspectStr, isKStr, type KStr, nodeCtx, toKStr, unionCtx, withCtx } from './context.ts';
import { SdkCode, SdkError } from './errors.ts';
import {
  type AnyResource,
  createResource,
  type DepLike,
  depNode,
  instanceLabels,
  isResource,
  MANAGED_BY,
  makeResourceObject,
  nodeOf,
  type Resource,
  type ResourceArgs,
  type ScopeState,
} from './resource.ts';
import type { OutFor, Scope, ScopeOptions } from './scopeApi.ts';
import { type CrdsByNode, mkCR, mkCRD, mkCRDRef } from './scopeCrds.ts';
import { mkSecret, mkSecretRef } from './scopeSecrets.ts';
import { mkServiceRef, mkWebhookService } from './scopeServices.ts';
import { asText } from './validators.ts';
import { buildWorkload, type WorkloadKind, workloadBuilder, workloadKinds } from './workloads.ts';

export * from './scopeApi.ts';
export { validateReadiness } from './scopeCrds.ts';

/** Marks Service args produced by `kix.service.fromWorkload` (adds `out.port`). */
export const FROM_WORKLOAD: unique symbol = Symbol.for('kgraph.sdk.fromWorkload');
/** Marks a `loadBalancerClass` wrapped by `kix.providedLoadBalancerClass`. */
export const providedClasses = new WeakSet<KStr>();

export function namespaceResource(build: Build, ns: string): AnyResource {
  const existing = build.namespaceNodes.get(ns);
  if (existing) return existing as AnyResource;
  const managed = build.cluster.namespaces.includes(ns);
  const st: ScopeState = {
    build,
    instanceName: '',
    namespaceName: '',
    labelStyle: 'kix',
    selectorLabels: {},
    structural: [],
  };
  const { resource } = createResource(
    st,
    { apiVersion: 'v1', kind: 'Namespace', name: ns },
    {
      namespaced: false,
      noInstanceLabels: true,
      isImport: !managed,
      systemAnnotations: managed ? {} : { 'kix.run/import': 'true' },
    },
  );
  build.namespaceNodes.set(ns, resource);
  return resource;
}

function ctxOfDeps(passengers: readonly DepLike[], what: string): Ctx {
  return unionCtx(...passengers.map((p) => nodeCtx(depNode(p, what), true)));
}

function refuseKind(a: ResourceArgs): void {
  const kind = a.kind;
  if ((workloadKinds as readonly string[]).includes(kind)) {
    throw new SdkError(
      SdkCode.workloadKindInMkResource,
      `${kind} must be built with ${workloadBuilder[kind as WorkloadKind]} (pod validation and availability spread run there)`,
    );
  }
  if (kind === 'Secret' && a.apiVersion === 'v1') {
    throw new SdkError(
      SdkCode.secretInMkResource,
      'v1/Secret must be built with scope.mkSecret (or scope.mkSecretRef)',
    );
  }
  if (kind === 'CustomResourceDefinition') {
    throw new SdkError(
      SdkCode.crdInMkResource,
      'CustomResourceDefinition must be built with scope.mkCRD (or scope.mkCRDRef)',
    );
  }
}

/** Refuses `metrics.k8s.io` consumers on a cluster that does not serve it; warns when that is unknown. */
function requireMetricsApi(build: Build, subject: string): null {
  const cluster = build.cluster;
  const m = cluster.capabilities.metricsApi;
  if (m === 'absent') {
    throw new SdkError(
      SdkCode.metricsApi,
      `${subject} needs metrics.k8s.io, which the cluster does not serve`,
    );
  }
  if (m === 'unknown')
    build.warn(
      SdkCode.metricsApi,
      `${subject} needs metrics.k8s.io; whether the cluster serves it is unknown`,
    );
  return null;
}

/** Build-time checks of a generic resource; what it expects of the cluster (`kix.run/expects`). */
function resourceChecks(build: Build, a: ResourceArgs): { expects: string[] } {
  const cluster = build.cluster;
  const expects: string[] = [];
  if (a.kind === 'HorizontalPodAutoscaler') {
    requireMetricsApi(build, `HorizontalPodAutoscaler ${asText(a.name) ?? ''}`);
    expects.push('api:metrics.k8s.io');
  }
  if (a.kind === 'Service' && a.apiVersion === 'v1' && asText(a.spec?.type) === 'LoadBalancer') {
    const cls = a.spec?.loadBalancerClass;
    const provided = isKStr(cls) && providedClasses.has(cls);
    if (!provided && cluster.providers.loadBalancer === undefined) {
      throw new SdkError(
        SdkCode.loadBalancerProvider,
        `Service ${asText(a.name) ?? ''}: type LoadBalancer needs a package providing the "loadBalancer" role, or spec.loadBalancerClass wrapped with kix.providedLoadBalancerClass`,
        { path: 'spec.type' },
      );
    }
    if (!provided) expects.push('role:loadBalancer');
  }
  return { expects };
}

/** `mkResource` / `mkClusterResource`: any kind but those with builders of their own (design/sdk.md §A2). */
function generic(st: ScopeState, a: ResourceArgs, namespaced: boolean): AnyResource {
  refuseKind(a);
  const { expects } = resourceChecks(st.build, a);
  const holdsData = a.kind === 'PersistentVolumeClaim';
  return createResource(st, a, {
    namespaced,
    servicePort: (a as { [FROM_WORKLOAD]?: boolean })[FROM_WORKLOAD] === true,
    systemAnnotations: {
      ...(expects.length ? { 'kix.run/expects': expects.join(',') } : {}),
      ...(holdsData ? { 'kix.run/holds-data': 'true' } : {}),
    },
  }).resource;
}

export function makeScope(build: Build, o: ScopeOptions, structural: readonly ResNode[] = []): Scope {
  const labelStyle = o.labelStyle ?? 'kix';
  const selectorLabels = Object.freeze(
    o.selectorLabels ??
      (labelStyle === 'helm'
        ? { app: o.instanceName, release: o.instanceName }
        : { 'app.kubernetes.io/name': o.instanceName, 'app.kubernetes.io/instance': o.instanceName }),
  );
  const st: ScopeState = {
    build,
    instanceName: o.instanceName,
    namespaceName: o.namespaceName,
    labelStyle,
    selectorLabels,
    structural,
  };
  const cluster = build.cluster;

  const crds: CrdsByNode = new Map();

  const childScope = (ns: string): Scope => {
    const nsRes = namespaceResource(build, ns);
    return makeScope(build, { ...o, namespaceName: ns, labelStyle, selectorLabels: { ...selectorLabels } }, [
      ...structural.filter((n) => n.kind !== 'Namespace'),
      nodeOf(nsRes)!,
    ]);
  };

  const scope: Scope = {
    instanceName: o.instanceName,
    namespaceName: o.namespaceName,
    labelStyle,
    get namespace() {
      return namespaceResource(build, o.namespaceName);
    },
    get namespaces() {
      return Object.fromEntries(cluster.namespaces.map((n) => [n, namespaceResource(build, n)]));
    },
    selectorLabels,
    labels: {
      selector: selectorLabels,
      common: Object.freeze({ ...selectorLabels, ...instanceLabels(st) }),
      clusterScoped: Object.freeze({
        'app.kubernetes.io/name': o.instanceName,
        'app.kubernetes.io/managed-by': MANAGED_BY,
      }),
    },
    mkResource: <const A extends ResourceArgs>(a: A) => generic(st, a, true) as Resource<OutFor<A['kind']>>,
    mkClusterResource: <const A extends ResourceArgs>(a: A) =>
      generic(st, a, false) as Resource<OutFor<A['kind']>>,
    mkDeployment: (a) => buildWorkload(st, 'Deployment', a),
    mkStatefulSet: (a) => buildWorkload(st, 'StatefulSet', a),
    mkDaemonSet: (a) => buildWorkload(st, 'DaemonSet', a),
    mkJob: (a) => buildWorkload(st, 'Job', a),
    mkCronJob: (a) => buildWorkload(st, 'CronJob', a),
    mkOptional: (cond, r) => (cond ? r() : null),

    mkSecret: (a) => mkSecret(st, a),
    mkSecretRef: (a) => mkSecretRef(st, a),

    mkCRD: (a) => mkCRD(st, crds, a),
    mkCRDRef: (a) => mkCRDRef(st, crds, a),
    mkCR: (crd, a) => mkCR(st, crd, a),

    mkServiceRef: (a) => mkServiceRef(st, a),
    mkWebhookService: (a) => mkWebhookService(st, a),

    helm: { importChart: (a) => importChart(st, a) },
    forNamespace: (ns) => childScope(ns),
    forService: (dep) => {
      const ns = (dep as { _meta?: { namespaceName?: unknown } } | undefined)?._meta?.namespaceName;
      if (typeof ns !== 'string' || ns === '') {
        throw new SdkError(SdkCode.forService, 'forService: the dependency has no _meta.namespaceName');
      }
      return childScope(ns);
    },
    requireMetricsApi: (subject) => requireMetricsApi(build, subject),
    augmentEdge: (passengers, s) => withCtx(s, ctxOfDeps(passengers, 'augmentEdge')),
    augmentAllEdges: <T extends Record<string, unknown>>(passengers: readonly DepLike[], obj: T): T => {
      const ctx = ctxOfDeps(passengers, 'augmentAllEdges');
      return Object.fromEntries(
        Object.entries(obj).map(([k, v]) => [k, typeof v === 'string' || isKStr(v) ? withCtx(v, ctx) : v]),
      ) as T;
    },
    forwardEdges: (dep, passengers) => {
      const ctx = ctxOfDeps(passengers, 'forwardEdges');
      return Object.fromEntries(
        Object.entries(dep.out).map(([k, v]) => [
          k,
          typeof v === 'string' || isKStr(v) ? withCtx(v, ctx) : v,
        ]),
      );
    },
  };
  return scope;
}

export { type ChartManifest, clusterScopedKinds, inspectStr, isResource, makeResourceObject, toKStr };
