import type { ImportChartArgs } from './chart.ts';
import type { LabelStyle } from './cluster.ts';
import type { KStr, Str } from './context.ts';
import type {
  CronJobArgsSpec,
  DaemonSetArgsSpec,
  DeploymentArgsSpec,
  JobArgsSpec,
  StatefulSetArgsSpec,
} from './kubeTypes.ts';
import type {
  AnyResource,
  BaseOut,
  CommonArgs,
  DepLike,
  Resource,
  ResourceArgs,
  ServiceOut,
  ServicePort,
  Workload,
} from './resource.ts';
import type { Value, ValueObject } from './values.ts';
import type { DaemonSetArgs, WorkloadArgs } from './workloads.ts';

export type Readiness =
  | { condition: { type: string; status: 'True' | 'False' | 'Unknown' } }
  | { path: `/${string}`; equals: string }
  | { path: `/${string}`; notEquals: string };

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
