/**
 * Workload builders: Deployment, StatefulSet, DaemonSet, Job, CronJob. Before sealing the resource they
 * propagate selectors, expand the serviceAccount / headlessService shorthands, inject availability spread,
 * request a companion PodDisruptionBudget and run the build-time validators.
 */
import { kubectlNameIn } from '../diag/objectName.ts';
import { objectKey, type ResNode } from './build.ts';
import { type AvailabilityLevel, availabilityLevels } from './cluster.ts';
import { isKStr, lazy, type Str } from './context.ts';
import { SdkCode, type SdkCodeValue, SdkError } from './errors.ts';
import { materialize } from './materialize.ts';
import type { NetworkIntent } from './networkIntent.ts';
import { isPendingPart, resolvePendingPart } from './pendingPart.ts';
import {
  type CommonArgs,
  createResource,
  isResource,
  type ResourceArgs,
  type ScopeState,
  type Workload,
} from './resource.ts';
import { checkSpreadSelectors } from './selectors.ts';
import { headlessServiceName } from './statefulSetService.ts';
import {
  asArr,
  asObj,
  asText,
  checkDaemonSet,
  checkNamedPorts,
  checkSelectorSubset,
  checkSpreadFeasible,
  podTemplateChecks,
  type ValidationTarget,
} from './validators.ts';
import type { Value, ValueObject } from './values.ts';

export type WorkloadKind = 'Deployment' | 'StatefulSet' | 'DaemonSet' | 'Job' | 'CronJob';
export const workloadKinds: readonly WorkloadKind[] = [
  'Deployment',
  'StatefulSet',
  'DaemonSet',
  'Job',
  'CronJob',
];
export const workloadBuilder: Record<WorkloadKind, string> = {
  Deployment: 'scope.mkDeployment',
  StatefulSet: 'scope.mkStatefulSet',
  DaemonSet: 'scope.mkDaemonSet',
  Job: 'scope.mkJob',
  CronJob: 'scope.mkCronJob',
};

export type AvailabilityMax = 'none' | 'pod' | 'node';

/**
 * A workload builder's arguments (`mkDeployment`, `mkStatefulSet`, `mkJob`, `mkCronJob`; `mkDaemonSet`
 * without `availability`); `S` is the kind's spec type (kubeTypes.ts), untyped for internal use. Before the
 * object is sealed the builder fills the pod template's labels from the selector, expands the
 * `serviceAccount` and `headlessService` shorthands, may add topology spread and a PodDisruptionBudget,
 * and runs the pod checks (design/sdk.md §A4.2, §A4.3).
 */
export interface WorkloadArgs<S = ValueObject> extends CommonArgs {
  /**
   * The kind's spec. `selector.matchLabels` is required for Deployments, StatefulSets and DaemonSets
   * (`scope.selectorLabels` is the usual value); a Job needs a selector or pod-template labels, a CronJob
   * template labels. `template.spec.serviceAccount` may be a ServiceAccount resource (it becomes
   * `serviceAccountName`, with the edge); a Job may not set `ttlSecondsAfterFinished`.
   */
  spec: S;
  /**
   * Caps the availability level this workload is spread for: the effective level is the lower of this
   * and the cluster's (`none < pod < node < zone`). At `none` no spread constraints and no
   * PodDisruptionBudget are generated.
   * @default {} (the cluster's level)
   */
  availability?: { max?: AvailabilityMax };
  /**
   * Traffic the workload needs beyond what its `.out` references imply (the internet, the API server, a
   * peer it reaches by a literal address), for network-policy synthesis (networkPolicy.ts).
   * @default {} (only the traffic its references imply)
   */
  meta?: { network?: { intents?: readonly NetworkIntent[] } };
}
export type DaemonSetArgs<S = ValueObject> = Omit<WorkloadArgs<S>, 'availability'>;

type Mut = Record<string, Value>;

function copyObj(v: unknown): Mut {
  const o = asObj(v);
  return o ? { ...(o as Mut) } : {};
}

const levelRank = (l: AvailabilityLevel): number => availabilityLevels.indexOf(l);

export function effectiveLevel(
  cluster: AvailabilityLevel,
  max: AvailabilityMax | undefined,
): AvailabilityLevel {
  if (max === undefined) return cluster;
  return levelRank(max) < levelRank(cluster) ? max : cluster;
}

function textMap(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, x] of Object.entries(asObj(v) ?? {})) {
    const t = asText(x);
    if (t !== undefined) out[k] = t;
  }
  return out;
}

/** Where a workload is named in errors and warnings: kubectl-style, and the build's object key. */
interface WorkloadWhere {
  label: string;
  key: string;
}

/** A workload's pod template, opened for editing (at `spec.jobTemplate.spec.template` for a CronJob). */
interface PodTemplate {
  jobTemplate: Mut | undefined;
  jobSpec: Mut | undefined;
  template: Mut;
  templateMeta: Mut;
  podSpec: Mut;
  podPath: string;
}

/**
 * A workload builder (design/sdk.md §A4.2): argument checks → selector propagation → shorthands → availability
 * spread → pod checks → the resource, its network intents and its PodDisruptionBudget request.
 */
export function buildWorkload(st: ScopeState, kind: WorkloadKind, a: WorkloadArgs): Workload {
  const apiVersion = kind === 'Job' || kind === 'CronJob' ? 'batch/v1' : 'apps/v1';
  const nameText = asText(a.name) ?? '';
  const label = kubectlNameIn({ apiVersion, kind, namespace: st.namespaceName, name: nameText });
  const key = objectKey(apiVersion, kind, st.namespaceName, nameText);
  const where: WorkloadWhere = { label, key };
  const specIn = asObj(a.spec);
  if (!specIn) throw new SdkError(SdkCode.invalidArgument, `${label}: spec is required`);
  const spec: Mut = { ...(specIn as Mut) };
  const max = checkWorkloadArgs(kind, a, spec, where);
  const pod = openPodTemplate(kind, spec);
  const selectorLabels = propagateSelector(kind, spec, pod.templateMeta, where);
  expandServiceAccount(pod, where);
  expandHeadlessService(st, kind, spec, where);
  const spreadEligible = spreadAvailability(st, kind, spec, pod.podSpec, max, selectorLabels);
  closePodTemplate(kind, spec, pod);
  checkWorkload(st, kind, spec, pod, spreadEligible, where);
  return registerWorkload(st, kind, apiVersion, a, spec, pod, selectorLabels, spreadEligible, where);
}

/** Refusals of the arguments themselves; returns the requested `availability.max`. */
function checkWorkloadArgs(
  kind: WorkloadKind,
  a: WorkloadArgs,
  spec: Mut,
  { label, key }: WorkloadWhere,
): AvailabilityMax | undefined {
  if (kind === 'Job' && spec.ttlSecondsAfterFinished !== undefined && spec.ttlSecondsAfterFinished !== null) {
    throw new SdkError(
      SdkCode.jobTtlRefused,
      `${label}: spec.ttlSecondsAfterFinished is refused: Kubernetes would delete the finished Job and the next deploy would run it again; a finished Job stays until a build no longer contains it`,
      { node: key, path: 'spec.ttlSecondsAfterFinished' },
    );
  }
  if (kind === 'DaemonSet' && (a as { availability?: unknown }).availability !== undefined) {
    throw new SdkError(SdkCode.availabilityMax, `${label}: a DaemonSet does not accept availability.max`);
  }
  const max = a.availability?.max;
  if (max !== undefined && !['none', 'pod', 'node'].includes(max)) {
    throw new SdkError(SdkCode.availabilityMax, `${label}: availability.max must be "none", "pod" or "node"`);
  }
  const rerun = a.annotations?.['kix.run/rerun'];
  if (rerun !== undefined) {
    if (kind !== 'Job')
      throw new SdkError(SdkCode.rerunAnnotation, `${label}: kix.run/rerun applies to Jobs only`);
    if (asText(rerun) !== 'on-change') {
      throw new SdkError(SdkCode.rerunAnnotation, `${label}: kix.run/rerun must be "on-change"`);
    }
  }
  return max;
}

function openPodTemplate(kind: WorkloadKind, spec: Mut): PodTemplate {
  let jobTemplate: Mut | undefined;
  let jobSpec: Mut | undefined;
  let template: Mut;
  if (kind === 'CronJob') {
    jobTemplate = copyObj(spec.jobTemplate);
    jobSpec = copyObj(jobTemplate.spec);
    template = copyObj(jobSpec.template);
  } else template = copyObj(spec.template);
  const podPath = kind === 'CronJob' ? 'spec.jobTemplate.spec.template.spec' : 'spec.template.spec';
  return {
    jobTemplate,
    jobSpec,
    template,
    templateMeta: copyObj(template.metadata),
    podSpec: copyObj(template.spec),
    podPath,
  };
}

function closePodTemplate(kind: WorkloadKind, spec: Mut, pod: PodTemplate): void {
  const { template, jobSpec, jobTemplate } = pod;
  template.metadata = pod.templateMeta;
  template.spec = pod.podSpec;
  if (kind === 'CronJob') {
    jobSpec!.template = template;
    jobTemplate!.spec = jobSpec!;
    spec.jobTemplate = jobTemplate!;
  } else spec.template = template;
}

/** Selector propagation: the pods' labels from the selector, or checked against it; returns the selector labels. */
function propagateSelector(
  kind: WorkloadKind,
  spec: Mut,
  templateMeta: Mut,
  { label, key }: WorkloadWhere,
): Record<string, Value> {
  const selector = asObj(spec.selector);
  const matchLabels = asObj(selector?.matchLabels);
  const explicitPodLabels = asObj(templateMeta.labels);
  let selectorLabels: Record<string, Value>;
  if (kind === 'Deployment' || kind === 'StatefulSet' || kind === 'DaemonSet') {
    if (!matchLabels || Object.keys(matchLabels).length === 0) {
      throw new SdkError(SdkCode.selectorRequired, `${label}: spec.selector.matchLabels is required`, {
        node: key,
        path: 'spec.selector.matchLabels',
      });
    }
    if (explicitPodLabels) checkSelectorSubset({ label, key }, matchLabels, explicitPodLabels);
    else templateMeta.labels = { ...(matchLabels as Mut) };
    selectorLabels = { ...(matchLabels as Mut) };
  } else if (kind === 'Job') {
    if (!matchLabels && !explicitPodLabels) {
      throw new SdkError(
        SdkCode.podLabelsRequired,
        `${label}: spec.selector.matchLabels or spec.template.metadata.labels is required`,
        { node: key },
      );
    }
    if (!explicitPodLabels) templateMeta.labels = { ...(matchLabels as Mut) };
    selectorLabels = { ...((matchLabels ?? explicitPodLabels) as Mut) };
  } else {
    if (!explicitPodLabels) {
      throw new SdkError(
        SdkCode.podLabelsRequired,
        `${label}: spec.jobTemplate.spec.template.metadata.labels is required`,
        {
          node: key,
        },
      );
    }
    selectorLabels = { ...(explicitPodLabels as Mut) };
  }
  return selectorLabels;
}

/** The serviceAccount shorthand: a ServiceAccount resource becomes `serviceAccountName`. */
function expandServiceAccount({ podSpec, podPath }: PodTemplate, { label, key }: WorkloadWhere): void {
  if (
    podSpec.serviceAccount !== undefined &&
    podSpec.serviceAccount !== null &&
    typeof podSpec.serviceAccount === 'object' &&
    !isKStr(podSpec.serviceAccount)
  ) {
    const sa = podSpec.serviceAccount;
    if (!isResource(sa) || sa.kind !== 'ServiceAccount') {
      throw new SdkError(
        SdkCode.serviceAccountShorthand,
        `${label}: ${podPath}.serviceAccount must be a ServiceAccount resource`,
        {
          node: key,
        },
      );
    }
    podSpec.serviceAccountName = sa.out.name;
    delete podSpec.serviceAccount;
  }
}

/**
 * The headlessService shorthand (StatefulSet): serviceName as a plain string, so no edge and no cycle with the
 * Service's selector. The Service may still be under construction (it reads this StatefulSet's out.selector):
 * then the name is filled in at synth.
 */
function expandHeadlessService(
  st: ScopeState,
  kind: WorkloadKind,
  spec: Mut,
  { label, key }: WorkloadWhere,
): void {
  if (kind === 'StatefulSet' && spec.headlessService !== undefined && spec.headlessService !== null) {
    const svc = spec.headlessService;
    const where = { label, key, namespace: st.namespaceName };
    delete spec.headlessService;
    spec.serviceName = isPendingPart(svc)
      ? (lazy(() => headlessServiceName(resolvePendingPart(svc), where, true)) as unknown as Value)
      : headlessServiceName(svc, where, true);
  }
}

/** The availability spread: topology spread constraints when the cluster and the replicas allow; whether it applied. */
function spreadAvailability(
  st: ScopeState,
  kind: WorkloadKind,
  spec: Mut,
  podSpec: Mut,
  max: AvailabilityMax | undefined,
  selectorLabels: Record<string, Value>,
): boolean {
  const cluster = st.build.cluster;
  const replicas = typeof spec.replicas === 'number' ? spec.replicas : 1;
  const level = effectiveLevel(cluster.availability, max);
  const keys = cluster.topology.failureDomainKeys;
  const spreadEligible =
    (kind === 'Deployment' || kind === 'StatefulSet') &&
    replicas > 1 &&
    keys.length > 0 &&
    cluster.capabilities.multiNode !== false &&
    level !== 'none' &&
    asArr(podSpec.topologySpreadConstraints).length === 0;
  if (spreadEligible) {
    podSpec.topologySpreadConstraints = keys.map((topologyKey) => ({
      maxSkew: 1,
      topologyKey,
      whenUnsatisfiable:
        (level === 'zone' && topologyKey === cluster.topology.zoneKey) ||
        (level === 'node' && topologyKey === cluster.topology.hostKey)
          ? 'DoNotSchedule'
          : 'ScheduleAnyway',
      labelSelector: { matchLabels: { ...selectorLabels } },
      ...(kind === 'Deployment' ? { matchLabelKeys: ['pod-template-hash'] } : {}),
    }));
  }
  return spreadEligible;
}

/** The build-time pod checks (design/sdk.md §A4.3). */
function checkWorkload(
  st: ScopeState,
  kind: WorkloadKind,
  spec: Mut,
  { podSpec, podPath, templateMeta }: PodTemplate,
  spreadEligible: boolean,
  { label, key }: WorkloadWhere,
): void {
  const cluster = st.build.cluster;
  const target: ValidationTarget = {
    label,
    key,
    kind,
    namespace: st.namespaceName,
    spec,
    podSpec,
    podPath,
    cluster,
    warn: (code: SdkCodeValue, message: string, path?: string) =>
      st.build.warn(code, message, { node: key, ...(path === undefined ? {} : { path }) }),
  };
  for (const check of podTemplateChecks) check(target);
  if (!spreadEligible) checkSpreadSelectors(label, key, podSpec, textMap(templateMeta.labels));
  if (kind === 'Deployment' || kind === 'StatefulSet' || kind === 'DaemonSet') {
    checkNamedPorts(target);
    checkSpreadFeasible(target);
  }
  if (kind === 'DaemonSet') checkDaemonSet(target);
}

/** The workload resource, its record for network policies, and (spread) its PodDisruptionBudget request. */
function registerWorkload(
  st: ScopeState,
  kind: WorkloadKind,
  apiVersion: string,
  a: WorkloadArgs,
  spec: Mut,
  { podSpec, templateMeta }: PodTemplate,
  selectorLabels: Record<string, Value>,
  spreadEligible: boolean,
  { label, key }: WorkloadWhere,
): Workload {
  const cluster = st.build.cluster;
  // DNS: a ClusterFirst pod depends on the cluster DNS provider.
  const structural: ResNode[] = [];
  const expects: string[] = [];
  const dnsPolicy = asText(podSpec.dnsPolicy);
  if (cluster.providers.dns !== undefined && (dnsPolicy === undefined || dnsPolicy === 'ClusterFirst')) {
    expects.push('role:dns');
    const dnsNode = st.build.roleNodes.get('dns');
    if (dnsNode) structural.push(dnsNode);
  }
  const holdsData = kind === 'StatefulSet' && asArr(spec.volumeClaimTemplates).length > 0;

  const extraLabels: Record<string, Str> = {
    ...(kind === 'Deployment' || kind === 'StatefulSet' || kind === 'DaemonSet'
      ? { 'app.kubernetes.io/name': st.instanceName }
      : {}),
    ...(Object.fromEntries(
      Object.entries(selectorLabels).filter(([, v]) => typeof v === 'string' || isKStr(v)),
    ) as Record<string, Str>),
  };
  const rawSelector = Object.freeze(textMap(selectorLabels));
  const { meta, ...args } = a;
  const intents = meta?.network?.intents ?? [];
  if (!Array.isArray(intents)) {
    throw new SdkError(SdkCode.networkIntent, `${label}: meta.network.intents must be a list`, {
      node: key,
      path: 'meta.network.intents',
    });
  }
  const { node, resource } = createResource(
    st,
    { ...args, apiVersion, kind, spec },
    {
      namespaced: true,
      extraLabels,
      structural,
      systemAnnotations: {
        ...(expects.length ? { 'kix.run/expects': expects.join(',') } : {}),
        ...(holdsData ? { 'kix.run/holds-data': 'true' } : {}),
      },
      resourceExtra: { rawSelector },
    },
  );
  st.build.workloads.push({
    node,
    selector: rawSelector,
    podLabels: textMap(templateMeta.labels),
    clusterFirstDns: dnsPolicy === undefined || dnsPolicy === 'ClusterFirst',
    intents,
    createInScope: (p) => createResource(st, p as ResourceArgs, { namespaced: true }).node,
  });
  if (spreadEligible) {
    const podLabels = textMap(templateMeta.labels);
    st.build.pdbRequests.push({
      workload: node,
      podLabels,
      create: () => {
        createResource(
          st,
          {
            apiVersion: 'policy/v1',
            kind: 'PodDisruptionBudget',
            name: node.name,
            spec: { maxUnavailable: 1, selector: { matchLabels: resource.out.selector } },
          },
          { namespaced: true },
        );
      },
    });
  }
  return resource as Workload;
}

/** Whether a PDB's selector (plain text) selects pods with the given labels. */
export function pdbSelects(pdb: ResNode, podLabels: Readonly<Record<string, string>>): boolean {
  const m = materialize(asObj(asObj(pdb.draft.spec)?.selector)?.matchLabels, 'text').value;
  const ml = asObj(m);
  if (!ml || Object.keys(ml).length === 0) return false;
  return Object.entries(ml).every(([k, v]) => podLabels[k] === v);
}
