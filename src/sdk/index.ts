/**
 * kgraph/sdk — the Kix-style authoring SDK (pure synth; no cluster access).
 * See docs/sdk.md for the model and the synth output contract, docs/design/sdk.md for the design.
 */

export type {
  ChartManifest,
  ChartRenderer,
  ChartRenderRequest,
  ImportChartArgs,
  RenderedChart,
  RenderedChartDocument,
} from './chart.ts';
export type {
  AvailabilityLevel,
  Capabilities,
  ClusterDef,
  InstanceDef,
  LabelStyle,
  ResolvedCluster,
  Topology,
  TriState,
} from './cluster.ts';
export { defineCluster, resolveCluster } from './cluster.ts';
export type { Ctx, CtxNode, Interpolable, Segment, Str } from './context.ts';
export { isKStr, KStr, k, Lazy, lazy, unsafeDiscardContext, withStrictContext } from './context.ts';
export { SdkCode, type SdkCodeValue, SdkError } from './errors.ts';
export { type KroGraph, toKroGraph } from './graph.ts';
export { canonicalJson, identityHash, nixBase32 } from './hash.ts';
export {
  type ContainerPort,
  contentHash,
  type FromWorkloadArgs,
  fromWorkload,
  type ImageRef,
  imageRef,
  kix,
  mkEnvVars,
  pick,
  port,
  providedLoadBalancerClass,
  type ServiceArgs,
  untrackedRef,
} from './kix.ts';
export type {
  Authored,
  AuthoredObject,
  AuthoredPodSpec,
  AuthoredPodTemplate,
  CronJobArgsSpec,
  DaemonSetArgsSpec,
  DeploymentArgsSpec,
  JobArgsSpec,
  StatefulSetArgsSpec,
} from './kubeTypes.ts';
export type { IntentPeer, IntentPort, NetworkIntent } from './networkIntent.ts';
export { type EdgeKind, manifestHash, type PlannedObject, parseDependsOn, planOrder } from './order.ts';
export {
  type BuildArgs,
  definePackage,
  isPackage,
  type Package,
  type PackageDef,
  type PackageView,
  type PartDefs,
  type Root,
} from './package.ts';
export { compareQuantity, parseQuantity, type Quantity } from './quantity.ts';
export {
  type AnyResource,
  type BaseOut,
  type CedeSelector,
  type CedeStep,
  type CommonArgs,
  type DepLike,
  isResource,
  type ObjRef,
  type Ownership,
  parseCedePath,
  type Resource,
  type ResourceArgs,
  type ServiceOut,
  type ServicePort,
  type Workload,
} from './resource.ts';
export type {
  CrArgs,
  CrdArgs,
  CrdOut,
  CrdRefArgs,
  CrdSpec,
  EnvVar,
  EnvVarSource,
  Readiness,
  Scope,
  ScopeOptions,
  SecretArgs,
  SecretOut,
  SecretRefArgs,
  ServiceRefArgs,
  WebhookEntry,
  WebhookService,
  WebhookServiceArgs,
} from './scope.ts';
export { clusterScopedKinds, validateReadiness } from './scope.ts';
export {
  createSession,
  type DeployGraph,
  type DeployGraphNode,
  finalize,
  type Session,
  type SynthOptions,
  type SynthResult,
  synth,
} from './synth.ts';
export { isSupportedFieldPath, type ValidatorName } from './validators.ts';
export {
  type Json,
  type JsonObject,
  keep,
  type Manifest,
  recursiveUpdate,
  type Value,
  type ValueObject,
} from './values.ts';
export {
  type AvailabilityMax,
  type DaemonSetArgs,
  effectiveLevel,
  type WorkloadArgs,
  type WorkloadKind,
} from './workloads.ts';
