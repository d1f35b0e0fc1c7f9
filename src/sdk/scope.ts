/**
 * `scope`: the builders of one package instance (or a child scope for another namespace).
 */
import type { Build, ResNode } from './build.ts';
import { type ChartManifest, clusterScopedKinds, type ImportChartArgs, importChart } from './chart.ts';
import type { LabelStyle } from './cluster.ts';
import {
  type Ctx,
  inspectStr,
  isKStr,
  type KStr,
  nodeCtx,
  type Str,
  toKStr,
  unionCtx,
  withCtx,
} from './context.ts';
import { SdkCode, SdkError } from './errors.ts';
import type {
  CronJobArgsSpec,
  DaemonSetArgsSpec,
  DeploymentArgsSpec,
  JobArgsSpec,
  StatefulSetArgsSpec,
} from './kubeTypes.ts';
import { sdkRegistry } from './registry.ts';
import type { Workload } from './resource.ts';
import {
  type AnyResource,
  type BaseOut,
  type CommonArgs,
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
  type ServiceOut,
  type ServicePort,
} from './resource.ts';
import { asObj, asText } from './validators.ts';
import type { Value, ValueObject } from './values.ts';
import {
  buildWorkload,
  type DaemonSetArgs,
  type WorkloadArgs,
  type WorkloadKind,
  workloadBuilder,
  workloadKinds,
} from './workloads.ts';

// ---- readiness ---------------------------------------------------------------------------

export type Readiness =
  | { condition: { type: string; status: 'True' | 'False' | 'Unknown' } }
  | { path: `/${string}`; equals: string }
  | { path: `/${string}`; notEquals: string };

export function validateReadiness(r: unknown, where: string): Readiness {
  const o = asObj(r);
  const bad = (why: string): never => {
    throw new SdkError(SdkCode.invalidReadiness, `${where}: readiness ${why}`);
  };
  if (!o) return bad('must be an object');
  const keys = Object.keys(o).sort().join(',');
  if (keys === 'condition') {
    const c = asObj(o.condition);
    if (
      !c ||
      typeof c.type !== 'string' ||
      c.type === '' ||
      !['True', 'False', 'Unknown'].includes(String(c.status))
    ) {
      bad('condition needs a type and a status of "True", "False" or "Unknown"');
    }
    return { condition: { type: c!.type as string, status: c!.status as 'True' | 'False' | 'Unknown' } };
  }
  if (keys === 'equals,path' || keys === 'notEquals,path') {
    if (typeof o.path !== 'string' || !o.path.startsWith('/'))
      bad('path must be a JSON pointer starting with "/"');
    const op = 'equals' in o ? 'equals' : 'notEquals';
    if (typeof o[op] !== 'string') bad(`${op} must be a string`);
    return { path: o.path as `/${string}`, [op]: o[op] } as Readiness;
  }
  return bad('must be {condition}, {path, equals} or {path, notEquals}');
}

function readinessAnnotation(r: Readiness): string {
  if ('condition' in r)
    return JSON.stringify({ condition: { type: r.condition.type, status: r.condition.status } });
  if ('equals' in r) return JSON.stringify({ path: r.path, equals: r.equals });
  return JSON.stringify({ path: r.path, notEquals: r.notEquals });
}

// ---- secrets -----------------------------------------------------------------------------

export interface EnvVarSource {
  secretKeyRef?: { name: Str; key: string; optional?: boolean };
  configMapKeyRef?: { name: Str; key: string; optional?: boolean };
  fieldRef?: { fieldPath: string; apiVersion?: string };
  resourceFieldRef?: { resource: string; containerName?: string; divisor?: string };
}
export interface EnvVar {
  name: string;
  value?: Str;
  valueFrom?: EnvVarSource;
}

export interface SecretOut extends BaseOut, SecretHelpers {}

export interface SecretHelpers {
  readonly keys: readonly string[];
  readonly type: string;
  keyRef(key: string, o?: { optional?: boolean }): EnvVarSource;
  mkEnv(map: Record<string, string>): EnvVar[];
  envFrom(o?: { prefix?: string }): { secretRef: { name: KStr }; prefix?: string };
  volume(
    name: string,
    o?: { items?: { key: string; path: string }[]; defaultMode?: number },
  ): {
    name: string;
    secret: { secretName: KStr; items?: { key: string; path: string }[]; defaultMode?: number };
  };
}

/** `scope.mkSecret`: a `v1/Secret` whose `.out` has helpers to consume it (`keyRef`, `envFrom`, `volume`). */
export interface SecretArgs extends CommonArgs {
  /** @default "Opaque" */
  type?: string;
  /**
   * Base64-encoded values.
   * @default {} (left out)
   */
  data?: Record<string, Str>;
  /**
   * Plain-text values (the API server encodes them).
   * @default {} (left out)
   */
  stringData?: Record<string, Str>;
  /** @default unset (Kubernetes: mutable) */
  immutable?: boolean;
}

/**
 * `scope.mkSecretRef`: a Secret created elsewhere (an operator, a person). Never applied or pruned: the
 * deployer waits until it exists (with `keys`, until it has them).
 */
export interface SecretRefArgs {
  name: Str;
  /** @default the scope's namespace */
  namespace?: string;
  /**
   * Keys the deployer waits for; `keyRef`/`mkEnv` refuse other keys when given.
   * @default [] (any key; the deployer waits for the Secret alone)
   */
  keys?: string[];
  /**
   * The Secret is reflected into the workload's namespace from another one, so pods may use it
   * although it is no `.out` of this namespace (accepted by the namespaced-references check).
   * @default false
   */
  reflect?: boolean;
  /** @default "Opaque" */
  type?: string;
}

function secretOut(
  nameOut: KStr,
  keys: readonly string[] | undefined,
  type: string,
  label: string,
): SecretHelpers {
  const checkKey = (key: string) => {
    if (keys !== undefined && !keys.includes(key)) {
      throw new SdkError(
        SdkCode.secretKey,
        `${label}: key "${key}" is not one of ${keys.join(', ') || '(none)'}`,
      );
    }
  };
  return {
    keys: keys ?? [],
    type,
    keyRef: (key, o = {}) => {
      checkKey(key);
      return {
        secretKeyRef: { name: nameOut, key, ...(o.optional === undefined ? {} : { optional: o.optional }) },
      };
    },
    mkEnv: (map) =>
      Object.keys(map)
        .sort()
        .map((envName) => {
          const key = map[envName]!;
          checkKey(key);
          return { name: envName, valueFrom: { secretKeyRef: { name: nameOut, key } } };
        }),
    envFrom: (o = {}) => ({
      secretRef: { name: nameOut },
      ...(o.prefix === undefined ? {} : { prefix: o.prefix }),
    }),
    volume: (name, o = {}) => ({ name, secret: { secretName: nameOut, ...o } }),
  };
}

// ---- CRDs --------------------------------------------------------------------------------

/** A custom resource of a CRD built with `mkCRD` / `mkCRDRef` (`crd.out.mkCR`, `scope.mkCR`). */
export interface CrArgs extends CommonArgs {
  /** @default {} (left out) */
  spec?: ValueObject;
}

export interface CrdOut extends BaseOut {
  /** apiVersion of the custom resources (`<group>/<storage version>`). */
  readonly crApiVersion: string;
  readonly crKind: string;
  readonly readiness: Readiness | undefined;
  /** Builds a custom resource in the CRD's own scope. */
  cr(a: CrArgs): AnyResource;
  /** Builds a custom resource in the given scope. */
  mkCR(scope: Scope, a: CrArgs): AnyResource;
}

export interface CrdSpec {
  group: string;
  names: { kind: string; plural: string; singular?: string; listKind?: string; shortNames?: string[] };
  scope: 'Namespaced' | 'Cluster';
  versions: { name: string; served: boolean; storage: boolean; [k: string]: Value }[];
  [k: string]: Value | CrdSpec['names'] | CrdSpec['versions'];
}

/** `scope.mkCRD`: a CustomResourceDefinition; its custom resources depend on it. */
export interface CrdArgs extends Omit<CommonArgs, 'name'> {
  /** @default `<plural>.<group>` (the only name the API server accepts) */
  name?: Str;
  spec: CrdSpec;
  /**
   * When a custom resource of this CRD counts as ready; stamped as `kix.run/readiness` on every one
   * built from it (design/sdk.md §A2.6).
   * @default none (the deployer's generic rule: a `Ready` condition, else existence)
   */
  readiness?: Readiness;
}

/** `scope.mkCRDRef`: a CRD installed elsewhere. Never applied: the deployer waits until it is Established. */
export interface CrdRefArgs {
  group: string;
  /** The version custom resources are built with. */
  version: string;
  kind: string;
  /** @default the lower-cased kind + "s" */
  plural?: string;
  /** @default "Namespaced" */
  scope?: 'Namespaced' | 'Cluster';
  /** @default none (the deployer's generic rule) */
  readiness?: Readiness;
}

interface CrdInfo {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespaced: boolean;
  readonly readiness: Readiness | undefined;
  /** Set right after the CRD node is created. */
  node: ResNode;
}
const crdInfos = sdkRegistry.crdInfos as WeakMap<object, CrdInfo>;

// ---- services ----------------------------------------------------------------------------

/**
 * `scope.mkServiceRef`: a Service an operator creates at run time (design/sdk.md §A5.2). Never applied or
 * pruned; the deployer waits for it, and its `.out` has the fields of a built Service.
 */
export interface ServiceRefArgs {
  /** The runtime Service's name, in the scope's namespace. */
  name: Str;
  /** Labels of the operator's pods behind it (non-empty); used for network policies. */
  selector: Record<string, Str>;
  /** Its ports (non-empty, 1–65535). */
  ports: ServicePort[];
  /** @default {} (`out.labels`) */
  labels?: Record<string, string>;
  /**
   * What must be applied before the Service can exist — usually the operator's custom resource.
   * @default []
   */
  requires?: readonly DepLike[];
}

/**
 * One webhook of a configuration; other fields are copied. `admissionReviewVersions` defaults to
 * `["v1"]` and `sideEffects` to `None`; `clientConfig.service` is set to the generated Service.
 */
export interface WebhookEntry {
  name: string;
  /** The URL path on the Service. */
  path: string;
  rules: ValueObject[];
  [k: string]: Value;
}

/** `scope.mkWebhookService`: an admission-webhook Service and its webhook configurations in one call. */
export interface WebhookServiceArgs {
  /** Names the Service and both configurations. */
  name: Str;
  /** The webhook server's pods, typically a workload's `.out.selector`. */
  selector: Record<string, Str>;
  /** The Service port (named `https`). */
  port: number;
  /** @default port */
  targetPort?: number | string;
  /** @default [] (no ValidatingWebhookConfiguration) */
  validating?: WebhookEntry[];
  /** @default [] (no MutatingWebhookConfiguration) */
  mutating?: WebhookEntry[];
  /**
   * Labels of the Service.
   * @default {}
   */
  labels?: Record<string, Str>;
  /**
   * Annotations of the Service.
   * @default {}
   */
  annotations?: Record<string, Str>;
}

export interface WebhookService {
  service: Resource<ServiceOut>;
  validatingConfiguration?: AnyResource;
  mutatingConfiguration?: AnyResource;
}

/** Marks Service args produced by `kix.service.fromWorkload` (adds `out.port`). */
export const FROM_WORKLOAD: unique symbol = Symbol.for('kgraph.sdk.fromWorkload');
/** Marks a `loadBalancerClass` wrapped by `kix.providedLoadBalancerClass`. */
export const providedClasses = new WeakSet<KStr>();

export type OutFor<K extends string> = K extends 'Service' ? ServiceOut : BaseOut;

/** Package view, as seen by `forService` / `forwardEdges` (see package.ts). */
export interface PackageViewLike {
  readonly _type: 'kix.packageView';
  readonly _meta: { readonly namespaceName?: string | undefined; readonly instanceName?: string | undefined };
  readonly out: Readonly<Record<string, unknown>>;
  readonly root: unknown;
}

/**
 * The builders of one package instance, handed to its `build` (design/sdk.md §A6). Every builder checks
 * its arguments, stamps the standard labels and returns a resource whose `.out` strings carry its
 * identity: using them in another manifest makes that object deploy after this one.
 */
export interface Scope {
  /** The package instance's name. */
  readonly instanceName: string;
  /** The namespace `mkResource` puts objects in. */
  readonly namespaceName: string;
  /** `kix` (`app.kubernetes.io/instance`) or `helm` (`release`) instance labels, set per instance. */
  readonly labelStyle: LabelStyle;
  /** The generated `v1/Namespace` of `namespaceName`. */
  readonly namespace: AnyResource;
  /** Every generated Namespace of the cluster definition, by name. */
  readonly namespaces: Readonly<Record<string, AnyResource>>;
  /**
   * The usual workload `spec.selector.matchLabels`: `app.kubernetes.io/name` and `…/instance` (helm style:
   * `app` and `release`) unless the instance overrides them.
   */
  readonly selectorLabels: Readonly<Record<string, string>>;
  readonly labels: {
    /** Alias of `selectorLabels`. */
    readonly selector: Readonly<Record<string, string>>;
    /** Selector and instance labels together, for sub-resources and operator templates. */
    readonly common: Readonly<Record<string, string>>;
    /** `app.kubernetes.io/name` and `managed-by` only, without selector overrides. */
    readonly clusterScoped: Readonly<Record<string, string>>;
  };
  /**
   * A namespaced object, always in `namespaceName` whatever the kind. Refuses workloads (use their
   * builders), Secrets (`mkSecret`) and CRDs (`mkCRD`).
   */
  mkResource<const A extends ResourceArgs>(a: A): Resource<OutFor<A['kind']>>;
  /** A cluster-scoped object: no `metadata.namespace`. */
  mkClusterResource<const A extends ResourceArgs>(a: A): Resource<OutFor<A['kind']>>;
  /** An `apps/v1` Deployment, with pod checks, availability spread and a PodDisruptionBudget. */
  mkDeployment(a: WorkloadArgs<DeploymentArgsSpec>): Workload;
  /** An `apps/v1` StatefulSet; `spec.headlessService` may name its Service resource. */
  mkStatefulSet(a: WorkloadArgs<StatefulSetArgsSpec>): Workload;
  /** An `apps/v1` DaemonSet, checked against the cluster's `daemonSets` capability. */
  mkDaemonSet(a: DaemonSetArgs<DaemonSetArgsSpec>): Workload;
  /** A `batch/v1` Job; no `ttlSecondsAfterFinished` (the deployer would run it again). */
  mkJob(a: WorkloadArgs<JobArgsSpec>): Workload;
  /** A `batch/v1` CronJob. */
  mkCronJob(a: WorkloadArgs<CronJobArgsSpec>): Workload;
  /** `r()` when `cond` holds; else `null`, and `r` never runs, so nothing is built. */
  mkOptional<R>(cond: boolean, r: () => R): R | null;
  /** A `v1/Secret`. */
  mkSecret(a: SecretArgs): Resource<SecretOut>;
  /** A Secret made elsewhere: waited for, never applied. */
  mkSecretRef(a: SecretRefArgs): Resource<SecretOut>;
  /** A CustomResourceDefinition. */
  mkCRD(a: CrdArgs): Resource<CrdOut>;
  /** A CRD installed elsewhere: waited for, never applied. */
  mkCRDRef(a: CrdRefArgs): Resource<CrdOut>;
  /** A custom resource of `crd`, in this scope; it depends on the CRD and carries its readiness. */
  mkCR(crd: Resource<CrdOut>, a: CrArgs): AnyResource;
  /** A Service an operator creates: waited for, never applied. */
  mkServiceRef(a: ServiceRefArgs): Resource<ServiceOut>;
  /** An admission-webhook Service with its validating and mutating configurations. */
  mkWebhookService(a: WebhookServiceArgs): WebhookService;
  /** A child scope for namespace `ns`; what it builds depends on that Namespace. */
  forNamespace(ns: string): Scope;
  /** A child scope in the namespace of a dependency (a package or resource), e.g. for its RoleBindings. */
  forService(dep: PackageViewLike | AnyResource): Scope;
  /**
   * Checks that the cluster serves `metrics.k8s.io` for `subject`: an error when absent, a warning when
   * unknown. HorizontalPodAutoscalers run it on their own.
   */
  requireMetricsApi(subject: string): null;
  /** `s` carrying the passengers' identities too: whoever uses it depends on them. */
  augmentEdge(passengers: readonly DepLike[], s: Str): KStr;
  /** `augmentEdge` on every string of `o`; other values unchanged. */
  augmentAllEdges<T extends Record<string, unknown>>(passengers: readonly DepLike[], o: T): T;
  /** `dep.out` with the passengers' identities on every string (re-exporting a dependency). */
  forwardEdges(dep: PackageViewLike, passengers: readonly DepLike[]): Record<string, unknown>;
  readonly helm: {
    /**
     * Renders a chart with Helm (or takes rendered manifests) and imports its objects, namespaced or
     * cluster-scoped by kind (chart.ts).
     */
    importChart(a: ImportChartArgs): AnyResource[];
  };
}

// ---- namespaces --------------------------------------------------------------------------

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

// ---- the scope ---------------------------------------------------------------------------

/** What a scope is made for: one package instance (the cluster definition's `instances` entry). */
export interface ScopeOptions {
  instanceName: string;
  namespaceName: string;
  /** @default "kix" */
  labelStyle?: LabelStyle;
  /**
   * @default `app.kubernetes.io/name` and `app.kubernetes.io/instance` = the instance name (helm style:
   * `app` and `release`)
   */
  selectorLabels?: Record<string, string>;
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

  const requireMetricsApi = (subject: string): null => {
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
  };

  const resourceChecks = (a: ResourceArgs): { expects: string[] } => {
    const expects: string[] = [];
    if (a.kind === 'HorizontalPodAutoscaler') {
      requireMetricsApi(`HorizontalPodAutoscaler ${asText(a.name) ?? ''}`);
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
  };

  const generic = (a: ResourceArgs, namespaced: boolean) => {
    refuseKind(a);
    const { expects } = resourceChecks(a);
    const holdsData = a.kind === 'PersistentVolumeClaim';
    return createResource(st, a, {
      namespaced,
      servicePort: (a as { [FROM_WORKLOAD]?: boolean })[FROM_WORKLOAD] === true,
      systemAnnotations: {
        ...(expects.length ? { 'kix.run/expects': expects.join(',') } : {}),
        ...(holdsData ? { 'kix.run/holds-data': 'true' } : {}),
      },
    }).resource;
  };

  const mkCRFor = (scopeState: ScopeState, info: CrdInfo, a: CrArgs): AnyResource =>
    createResource(
      scopeState,
      { ...a, apiVersion: info.apiVersion, kind: info.kind },
      {
        namespaced: info.namespaced,
        structural: [info.node],
        systemAnnotations: info.readiness ? { 'kix.run/readiness': readinessAnnotation(info.readiness) } : {},
      },
    ).resource;

  const crdOutExtras = (info: CrdInfo, scopeState: ScopeState) => ({
    crApiVersion: info.apiVersion,
    crKind: info.kind,
    readiness: info.readiness,
    cr: (a: CrArgs) => mkCRFor(scopeState, info, a),
    mkCR: (s: Scope, a: CrArgs) => s.mkCR(crdByNode.get(info.node)!, a),
  });
  const crdByNode = new Map<ResNode, Resource<CrdOut>>();
  const registerCrd = (r: Resource<CrdOut>, info: CrdInfo) => {
    crdInfos.set(r, info);
    crdByNode.set(info.node, r);
  };

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
    mkResource: <const A extends ResourceArgs>(a: A) => generic(a, true) as Resource<OutFor<A['kind']>>,
    mkClusterResource: <const A extends ResourceArgs>(a: A) =>
      generic(a, false) as Resource<OutFor<A['kind']>>,
    mkDeployment: (a) => buildWorkload(st, 'Deployment', a),
    mkStatefulSet: (a) => buildWorkload(st, 'StatefulSet', a),
    mkDaemonSet: (a) => buildWorkload(st, 'DaemonSet', a),
    mkJob: (a) => buildWorkload(st, 'Job', a),
    mkCronJob: (a) => buildWorkload(st, 'CronJob', a),
    mkOptional: (cond, r) => (cond ? r() : null),

    mkSecret: (a) => {
      const type = a.type ?? 'Opaque';
      const keys = [...new Set([...Object.keys(a.data ?? {}), ...Object.keys(a.stringData ?? {})])].sort();
      const { data, stringData, type: _t, immutable, ...rest } = a;
      return createResource(
        st,
        { ...rest, apiVersion: 'v1', kind: 'Secret', data: data ?? {}, stringData: stringData ?? {} },
        {
          namespaced: true,
          body: { type, ...(immutable === undefined ? {} : { immutable }) },
          outExtras: (_n, base) => secretOut(base.name as KStr, keys, type, `Secret ${asText(a.name)}`),
        },
      ).resource as Resource<SecretOut>;
    },
    mkSecretRef: (a) => {
      const ns = a.namespace ?? o.namespaceName;
      const type = a.type ?? 'Opaque';
      return createResource(
        { ...st, namespaceName: ns },
        { apiVersion: 'v1', kind: 'Secret', name: a.name },
        {
          namespaced: true,
          isImport: true,
          reflected: a.reflect === true,
          systemAnnotations: {
            'kix.run/import': 'true',
            ...(a.keys?.length ? { 'kix.run/required-keys': [...a.keys].sort().join(',') } : {}),
          },
          outExtras: (_n, base) => secretOut(base.name as KStr, a.keys, type, `Secret ref ${asText(a.name)}`),
        },
      ).resource as Resource<SecretOut>;
    },

    mkCRD: (a) => {
      const spec = a.spec;
      if (!spec || typeof spec.group !== 'string' || !spec.names?.kind || !spec.names?.plural) {
        throw new SdkError(
          SdkCode.invalidArgument,
          'mkCRD: spec.group, spec.names.kind and spec.names.plural are required',
        );
      }
      const version = spec.versions?.find((v) => v.storage) ?? spec.versions?.find((v) => v.served);
      if (!version)
        throw new SdkError(SdkCode.invalidArgument, `mkCRD ${spec.names.kind}: a served version is required`);
      const readiness =
        a.readiness === undefined ? undefined : validateReadiness(a.readiness, `CRD ${spec.names.kind}`);
      const expectedName = `${spec.names.plural}.${spec.group}`;
      const name = a.name ?? expectedName;
      if (asText(name) !== expectedName) {
        throw new SdkError(SdkCode.invalidName, `CRD name must be ${expectedName}`);
      }
      const { readiness: _r, spec: _s, ...rest } = a;
      const info: CrdInfo = {
        apiVersion: `${spec.group}/${version.name}`,
        kind: spec.names.kind,
        namespaced: spec.scope !== 'Cluster',
        readiness,
        node: undefined as unknown as ResNode,
      };
      const { node, resource } = createResource(
        st,
        {
          ...rest,
          name,
          apiVersion: 'apiextensions.k8s.io/v1',
          kind: 'CustomResourceDefinition',
          spec: spec as ValueObject,
        },
        { namespaced: false, outExtras: () => crdOutExtras(info, st) },
      );
      info.node = node;
      registerCrd(resource as Resource<CrdOut>, info);
      return resource as Resource<CrdOut>;
    },
    mkCRDRef: (a) => {
      const readiness =
        a.readiness === undefined ? undefined : validateReadiness(a.readiness, `CRD ref ${a.kind}`);
      const plural = a.plural ?? `${a.kind.toLowerCase()}s`;
      const info: CrdInfo = {
        apiVersion: `${a.group}/${a.version}`,
        kind: a.kind,
        namespaced: a.scope !== 'Cluster',
        readiness,
        node: undefined as unknown as ResNode,
      };
      const { node, resource } = createResource(
        st,
        {
          apiVersion: 'apiextensions.k8s.io/v1',
          kind: 'CustomResourceDefinition',
          name: `${plural}.${a.group}`,
        },
        {
          namespaced: false,
          isImport: true,
          systemAnnotations: { 'kix.run/import': 'true' },
          outExtras: () => crdOutExtras(info, st),
        },
      );
      info.node = node;
      registerCrd(resource as Resource<CrdOut>, info);
      return resource as Resource<CrdOut>;
    },
    mkCR: (crd, a) => {
      const info = crdInfos.get(crd);
      if (!info)
        throw new SdkError(
          SdkCode.notAResource,
          'mkCR: the first argument must be a resource from mkCRD or mkCRDRef',
        );
      return mkCRFor(st, info, a);
    },

    mkServiceRef: (a) => {
      const sel = asObj(a.selector);
      const nameText = asText(a.name) ?? '';
      if (!sel || Object.keys(sel).length === 0) {
        throw new SdkError(
          SdkCode.serviceRef,
          `mkServiceRef ${nameText}: selector must be a non-empty label map`,
        );
      }
      if (!Array.isArray(a.ports) || a.ports.length === 0) {
        throw new SdkError(SdkCode.serviceRef, `mkServiceRef ${nameText}: ports must be a non-empty list`);
      }
      for (const p of a.ports) {
        if (typeof p?.port !== 'number' || p.port < 1 || p.port > 65535) {
          throw new SdkError(
            SdkCode.serviceRef,
            `mkServiceRef ${nameText}: every port needs a number in 1..65535`,
          );
        }
      }
      const marker = `service-ref-${o.instanceName}-${nameText}`;
      const { node, resource } = createResource(
        st,
        {
          apiVersion: 'v1',
          kind: 'Service',
          name: a.name,
          spec: { selector: a.selector, ports: a.ports as unknown as Value },
          ...(a.labels ? { labels: a.labels } : {}),
          ...(a.requires ? { requires: a.requires } : {}),
        },
        {
          namespaced: true,
          isImport: true,
          servicePort: true,
          systemAnnotations: { 'kix.run/import': 'true', 'kix.run/import-marker': marker },
          outExtras: (n) => ({
            selector: Object.fromEntries(
              Object.entries(a.selector).map(([k, v]) => [k, withCtx(v, nodeCtx(n))]),
            ),
            labels: { ...(a.labels ?? {}) },
          }),
        },
      );
      build.imports.push({ name: marker, kind: 'Service', namespace: node.namespace, objectName: node.name });
      return resource as Resource<ServiceOut>;
    },

    mkWebhookService: (a) => {
      const service = createResource(
        st,
        {
          apiVersion: 'v1',
          kind: 'Service',
          name: a.name,
          ...(a.labels ? { labels: a.labels } : {}),
          ...(a.annotations ? { annotations: a.annotations } : {}),
          spec: {
            selector: a.selector,
            ports: [{ name: 'https', port: a.port, targetPort: a.targetPort ?? a.port, protocol: 'TCP' }],
          },
        },
        { namespaced: true, servicePort: true },
      ).resource as Resource<ServiceOut>;
      const wire = (entries: readonly WebhookEntry[]) =>
        entries.map(({ path, ...entry }) => {
          if (typeof entry.name !== 'string' || typeof path !== 'string') {
            throw new SdkError(
              SdkCode.webhookService,
              'mkWebhookService: every webhook entry needs a name and a path',
            );
          }
          return {
            admissionReviewVersions: ['v1'],
            sideEffects: 'None',
            ...entry,
            clientConfig: {
              ...(asObj(entry.clientConfig) ?? {}),
              service: { name: service.out.name, namespace: o.namespaceName, path, port: a.port },
            },
          };
        });
      const result: WebhookService = { service };
      const cfg = (kind: string, entries: readonly WebhookEntry[] | undefined) =>
        entries && entries.length > 0
          ? createResource(
              st,
              {
                apiVersion: 'admissionregistration.k8s.io/v1',
                kind,
                name: a.name,
                extra: { webhooks: wire(entries) },
              },
              { namespaced: false },
            ).resource
          : undefined;
      const v = cfg('ValidatingWebhookConfiguration', a.validating);
      const m = cfg('MutatingWebhookConfiguration', a.mutating);
      if (v) result.validatingConfiguration = v;
      if (m) result.mutatingConfiguration = m;
      return result;
    },

    helm: { importChart: (a) => importChart(st, a) },
    forNamespace: (ns) => childScope(ns),
    forService: (dep) => {
      const ns = (dep as { _meta?: { namespaceName?: unknown } } | undefined)?._meta?.namespaceName;
      if (typeof ns !== 'string' || ns === '') {
        throw new SdkError(SdkCode.forService, 'forService: the dependency has no _meta.namespaceName');
      }
      return childScope(ns);
    },
    requireMetricsApi,
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
