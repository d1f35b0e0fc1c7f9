/**
 * The cluster definition: instances (package + namespace + label style + config), namespaces,
 * capabilities, topology and the availability level. Capabilities are tri-state: `true` (available),
 * `false` (absent: dependent builders reject), `null` (unknown: they warn).
 */
import { SdkCode, SdkError } from './errors.ts';

export type AvailabilityLevel = 'none' | 'pod' | 'node' | 'zone';
export const availabilityLevels: readonly AvailabilityLevel[] = ['none', 'pod', 'node', 'zone'];
export type LabelStyle = 'kix' | 'helm';
export type TriState = boolean | null;

/** What the cluster allows; builders refuse what is `false` and warn about what is `null` (unknown). */
export interface Capabilities {
  /**
   * Host networking, host PID, hostPath volumes and privileged containers.
   * @default null
   */
  privilegedContainers?: TriState;
  /** @default null */
  daemonSets?: TriState;
  /**
   * More than one node: spread constraints and PodDisruptionBudgets need it.
   * @default null
   */
  multiNode?: TriState;
  /**
   * Whether the cluster serves metrics.k8s.io (HorizontalPodAutoscalers need it).
   * @default "unknown"
   */
  metricsApi?: 'provided' | 'unknown' | 'absent';
}

export interface Topology {
  /**
   * Node label keys that name failure domains, e.g. zone and hostname; without any, nothing is spread.
   * @default []
   */
  failureDomainKeys?: string[];
  /**
   * Which of `failureDomainKeys` is the zone key.
   * @default "topology.kubernetes.io/zone"
   */
  zoneKey?: string;
  /**
   * Which of `failureDomainKeys` is the host key.
   * @default "kubernetes.io/hostname"
   */
  hostKey?: string;
}

export type NetworkPolicyKind = 'CiliumNetworkPolicy' | 'NetworkPolicy';

export interface NetworkPolicyConfig {
  /**
   * Synthesise one least-privilege policy per workload (design/sdk.md §A4.2, item 5).
   * @default false
   */
  enable?: boolean;
  /**
   * `CiliumNetworkPolicy` (cilium.io/v2) or plain `NetworkPolicy` (networking.k8s.io/v1).
   * @default "CiliumNetworkPolicy"
   */
  kind?: NetworkPolicyKind;
}

/**
 * A package as a cluster definition names it: what `definePackage` returns (package.ts), seen without its
 * build signature, whose types (the scope, the parts) themselves depend on this module's.
 */
export interface PackageRef {
  readonly _type: 'kix.package';
  readonly name: string;
  readonly provides: readonly string[];
}

export interface InstanceDef {
  /** The package this instance builds (what `definePackage` returns). */
  package: PackageRef;
  /** The namespace its scope builds in (created by the definition). */
  namespace: string;
  /** @default "kix" (`app.kubernetes.io/instance`; "helm": `release`) */
  labelStyle?: LabelStyle;
  /**
   * Overrides `scope.selectorLabels` for this instance.
   * @default `app.kubernetes.io/name` and `…/instance` = the instance name (helm style: `app`, `release`)
   */
  selectorLabels?: Record<string, string>;
  /**
   * Handed to the package's `build` as `config`.
   * @default undefined
   */
  config?: unknown;
  /**
   * Dependency name (as seen by `build`'s `deps`) → instance name.
   * @default {} (the package sees no dependencies)
   */
  deps?: Record<string, string>;
}

/** The cluster definition `kgraph synth --cluster` reads: what is deployed where, and what the cluster offers. */
export interface ClusterDef {
  /** @default "default" */
  name?: string;
  /**
   * For `.out.fqdn` and `.out.url()`.
   * @default "cluster.local"
   */
  clusterDomain?: string;
  /**
   * `clusterLabels`, stamped first on every resource.
   * @default {}
   */
  labels?: Record<string, string>;
  /**
   * The availability level workloads are spread for (`none < pod < node < zone`); a workload's
   * `availability.max` lowers it.
   * @default "node"
   */
  availability?: AvailabilityLevel;
  /** @default {} (every capability unknown) */
  capabilities?: Capabilities;
  /** @default {} (no failure-domain keys: nothing is spread) */
  topology?: Topology;
  /**
   * Namespaces the cluster definition manages (instance namespaces are added automatically).
   * @default []
   */
  namespaces?: string[];
  /** @default {} */
  instances?: Record<string, InstanceDef>;
  /**
   * Roles provided outside any instance of this definition (role → provider description); instances
   * provide the roles their packages declare.
   * @default {}
   */
  providers?: Record<string, string>;
  /** @default { enable: false } */
  networkPolicy?: NetworkPolicyConfig;
}

export interface ResolvedCluster {
  readonly name: string;
  readonly clusterDomain: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly availability: AvailabilityLevel;
  readonly capabilities: {
    readonly privilegedContainers: TriState;
    readonly daemonSets: TriState;
    readonly multiNode: TriState;
    readonly metricsApi: 'provided' | 'unknown' | 'absent';
  };
  readonly topology: {
    readonly failureDomainKeys: readonly string[];
    readonly zoneKey: string;
    readonly hostKey: string;
  };
  readonly namespaces: readonly string[];
  readonly instances: Readonly<Record<string, InstanceDef>>;
  /** role → provider (instance name or external description). */
  readonly providers: Readonly<Record<string, string>>;
  readonly networkPolicy: { readonly enable: boolean; readonly kind: NetworkPolicyKind };
}

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

export function resolveCluster(def: ClusterDef = {}): ResolvedCluster {
  const instances = def.instances ?? {};
  const providers: Record<string, string> = { ...(def.providers ?? {}) };
  const namespaces = new Set(def.namespaces ?? []);
  for (const [name, inst] of Object.entries(instances)) {
    if (!DNS1123_LABEL.test(name)) {
      throw new SdkError(
        SdkCode.clusterDefinition,
        `instance name "${name}" is not a lowercase RFC 1123 label`,
      );
    }
    if (!inst || typeof inst.namespace !== 'string' || !DNS1123_LABEL.test(inst.namespace)) {
      throw new SdkError(SdkCode.clusterDefinition, `instance "${name}" needs a valid namespace`);
    }
    if (inst.labelStyle !== undefined && inst.labelStyle !== 'kix' && inst.labelStyle !== 'helm') {
      throw new SdkError(SdkCode.clusterDefinition, `instance "${name}": labelStyle must be "kix" or "helm"`);
    }
    if ((inst.package as { _type?: unknown } | undefined)?._type !== 'kix.package') {
      throw new SdkError(
        SdkCode.clusterDefinition,
        `instance "${name}": package must come from definePackage`,
      );
    }
    namespaces.add(inst.namespace);
    for (const role of inst.package.provides ?? []) providers[role] ??= name;
  }
  const availability = def.availability ?? 'node';
  if (!['none', 'pod', 'node', 'zone'].includes(availability)) {
    throw new SdkError(SdkCode.clusterDefinition, `availability must be none, pod, node or zone`);
  }
  const np = def.networkPolicy ?? {};
  if (np.kind !== undefined && np.kind !== 'CiliumNetworkPolicy' && np.kind !== 'NetworkPolicy') {
    throw new SdkError(
      SdkCode.clusterDefinition,
      'networkPolicy.kind must be "CiliumNetworkPolicy" or "NetworkPolicy"',
    );
  }
  const topo = def.topology ?? {};
  const caps = def.capabilities ?? {};
  return {
    name: def.name ?? 'default',
    clusterDomain: def.clusterDomain ?? 'cluster.local',
    labels: { ...(def.labels ?? {}) },
    availability,
    capabilities: {
      privilegedContainers: caps.privilegedContainers ?? null,
      daemonSets: caps.daemonSets ?? null,
      multiNode: caps.multiNode ?? null,
      metricsApi: caps.metricsApi ?? 'unknown',
    },
    topology: {
      failureDomainKeys: [...(topo.failureDomainKeys ?? [])],
      zoneKey: topo.zoneKey ?? 'topology.kubernetes.io/zone',
      hostKey: topo.hostKey ?? 'kubernetes.io/hostname',
    },
    namespaces: [...namespaces].sort(),
    instances,
    providers,
    networkPolicy: { enable: np.enable === true, kind: np.kind ?? 'CiliumNetworkPolicy' },
  };
}

/** Identity on the input: gives a cluster file type-checking. */
export function defineCluster(def: ClusterDef): ClusterDef {
  return def;
}
