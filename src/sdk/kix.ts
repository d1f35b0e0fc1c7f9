/**
 * The Kix reference's `kix.*` library: service.fromWorkload, port, image.ref, availability.pick, mkEnvVars,
 * untrackedRef, providedLoadBalancerClass, keep, recursiveUpdate, contentHash.
 */
import { createHash } from 'node:crypto';
import type { AvailabilityLevel } from './cluster.ts';
import { emptyCtx, isKStr, isStrictContext, KStr, type Str, toKStr, unionCtx } from './context.ts';
import { SdkCode, SdkError } from './errors.ts';
import { canonicalJson, nixBase32 } from './hash.ts';
import { materialize } from './materialize.ts';
import { depNode, nodeOf, type ResourceArgs, type ServicePort, type Workload } from './resource.ts';
import {
  type EnvVar,
  type EnvVarSource,
  FROM_WORKLOAD,
  type PackageViewLike,
  providedClasses,
} from './scope.ts';
import { asArr, asObj, asText } from './validators.ts';
import { type Json, keep, recursiveUpdate, type ValueObject } from './values.ts';

export interface ContainerPort {
  name: string;
  containerPort: number;
  protocol: 'TCP' | 'UDP' | 'SCTP';
}

const IANA = /^[a-z0-9]+(-[a-z0-9]+)*$/;

/** A named container port. The name is an IANA service name; 1 ≤ n ≤ 65535. */
export function port(
  name: string,
  containerPort: number,
  o: { protocol?: 'TCP' | 'UDP' | 'SCTP' } = {},
): ContainerPort {
  if (name.length > 15 || !IANA.test(name) || !/[a-z]/.test(name)) {
    throw new SdkError(
      SdkCode.portRule,
      `port name "${name}" is not an IANA service name (≤15 lowercase alphanumerics and '-', at least one letter, no leading, trailing or double '-')`,
    );
  }
  if (!Number.isInteger(containerPort) || containerPort < 1 || containerPort > 65535) {
    throw new SdkError(SdkCode.portRule, `port ${name}: ${containerPort} is not in 1..65535`);
  }
  return { name, containerPort, protocol: o.protocol ?? 'TCP' };
}

export interface ImageRef {
  registry?: string;
  repository: string;
  tag?: string;
  digest?: string;
}

/** `registry/repository[:tag][@digest]`; strict mode rejects `:latest` and a missing tag/digest. */
export function imageRef(img: ImageRef, o: { strict?: boolean } = {}): string {
  if (!img.repository) throw new SdkError(SdkCode.imageRef, 'image.ref: repository is required');
  const strict = o.strict ?? isStrictContext();
  if (strict && (img.tag === 'latest' || (img.tag === undefined && img.digest === undefined))) {
    throw new SdkError(
      SdkCode.imageRef,
      `image.ref ${img.repository}: pin a tag other than "latest" or a digest`,
    );
  }
  return `${img.registry ? `${img.registry}/` : ''}${img.repository}${img.tag ? `:${img.tag}` : ''}${img.digest ? `@${img.digest}` : ''}`;
}

export function pick<T>(level: AvailabilityLevel, table: Record<AvailabilityLevel, T>): T {
  if (!(level in table))
    throw new SdkError(SdkCode.invalidArgument, `availability.pick: no entry for "${level}"`);
  return table[level];
}

/** Env vars sorted by name; context strings keep their edge; `keyRef` sources become `valueFrom`. */
export function mkEnvVars(env: Record<string, Str | number | boolean | EnvVarSource>): EnvVar[] {
  return Object.keys(env)
    .sort()
    .map((name) => {
      const v = env[name]!;
      if (typeof v === 'string' || isKStr(v)) return { name, value: v };
      if (typeof v === 'number' || typeof v === 'boolean') return { name, value: String(v) };
      const o = asObj(v);
      if (o && ['secretKeyRef', 'configMapKeyRef', 'fieldRef', 'resourceFieldRef'].some((k) => k in o)) {
        return { name, valueFrom: v };
      }
      throw new SdkError(
        SdkCode.envVars,
        `mkEnvVars ${name}: expected a string or an env var source (keyRef)`,
      );
    });
}

/** A reference to an object managed elsewhere: satisfies checkNamespacedRefs, adds no ordering edge. */
export function untrackedRef(
  kind: 'ConfigMap' | 'Secret' | 'PersistentVolumeClaim' | 'ServiceAccount',
  name: string,
): KStr {
  return new KStr([name], { ...emptyCtx, untracked: new Set([kind]) });
}

/** A `loadBalancerClass` served by the given provider package (satisfies the LoadBalancer check). */
export function providedLoadBalancerClass(a: { class: string; by: PackageViewLike }): KStr {
  const node = depNode(a.by, 'providedLoadBalancerClass');
  const s = new KStr(
    [a.class],
    unionCtx({ order: new Set([node]), connect: new Set(), untracked: new Set() }),
  );
  providedClasses.add(s);
  return s;
}

/** A short content hash (for names of Jobs whose content may change). */
export function contentHash(value: unknown, length = 10): string {
  const m = materialize(value, 'final');
  const digest = createHash('sha256')
    .update(canonicalJson(m.value as Json | undefined))
    .digest();
  return nixBase32(digest.subarray(0, 20)).slice(0, length);
}

/** mkResource arguments for a v1 Service. */
export interface ServiceArgs extends ResourceArgs {
  apiVersion: 'v1';
  kind: 'Service';
}

/** `kix.service.fromWorkload(args, workload)`: a Service selecting the workload's pods (design/sdk.md §A5.1). */
export interface FromWorkloadArgs {
  name: Str;
  /**
   * Every port needs a name when there are several; a string `targetPort` must name a container port.
   * @default the workload's one container port (an error when it has none or several)
   */
  ports?: ServicePort[];
  /** @default unset (Kubernetes: ClusterIP) */
  type?: 'ClusterIP' | 'NodePort' | 'LoadBalancer';
  /** @default {} */
  labels?: Record<string, Str>;
  /** @default {} */
  annotations?: Record<string, Str>;
  /**
   * Further Service spec fields; `selector`, `type` and `ports` come from the other arguments.
   * @default {}
   */
  spec?: ValueObject;
}

function containerPortsOf(w: Workload): { name?: string; containerPort: number }[] {
  const spec = asObj(nodeOf(w)?.draft.spec);
  const ports: { name?: string; containerPort: number }[] = [];
  const tmpl = asObj(
    w.kind === 'CronJob' ? asObj(asObj(asObj(spec?.jobTemplate)?.spec)?.template) : spec?.template,
  );
  for (const c of asArr(asObj(tmpl?.spec)?.containers)) {
    for (const p of asArr(asObj(c)?.ports)) {
      const po = asObj(p);
      if (po && typeof po.containerPort === 'number') {
        const name = asText(po.name);
        ports.push({ ...(name === undefined ? {} : { name }), containerPort: po.containerPort });
      }
    }
  }
  return ports;
}

/** Arguments for `scope.mkResource` building a Service for a workload (selector = `w.out.selector`). */
export function fromWorkload(a: FromWorkloadArgs, w: Workload): ServiceArgs {
  const label = `service.fromWorkload ${toKStr(a.name).text}`;
  const cports = containerPortsOf(w);
  let ports = a.ports;
  if (!ports || ports.length === 0) {
    if (cports.length !== 1) {
      throw new SdkError(
        SdkCode.fromWorkload,
        `${label}: no port can be determined (give ports, or a workload with exactly one container port)`,
      );
    }
    const cp = cports[0]!;
    ports = [
      {
        ...(cp.name ? { name: cp.name } : {}),
        port: cp.containerPort,
        targetPort: cp.name ?? cp.containerPort,
      },
    ];
  }
  if (ports.length > 1 && ports.some((p) => !p.name)) {
    throw new SdkError(SdkCode.fromWorkload, `${label}: with several ports every port needs a name`);
  }
  for (const p of ports) {
    if (typeof p.targetPort === 'string' && !cports.some((c) => c.name === p.targetPort)) {
      throw new SdkError(
        SdkCode.fromWorkload,
        `${label}: targetPort "${p.targetPort}" names no container port of ${w.kind} ${w.name}`,
      );
    }
  }
  const args: ServiceArgs = {
    apiVersion: 'v1',
    kind: 'Service',
    name: a.name,
    ...(a.labels ? { labels: a.labels } : {}),
    ...(a.annotations ? { annotations: a.annotations } : {}),
    spec: {
      ...(a.spec ?? {}),
      ...(a.type ? { type: a.type } : {}),
      selector: w.out.selector,
      ports: ports.map((p) => ({ ...p })),
    },
  };
  Object.defineProperty(args, FROM_WORKLOAD, { value: true, enumerable: true });
  return args;
}

export const kix = {
  service: { fromWorkload },
  port,
  image: { ref: imageRef },
  availability: { pick },
  mkEnvVars,
  untrackedRef,
  providedLoadBalancerClass,
  keep,
  recursiveUpdate,
  contentHash,
} as const;

export { toKStr };
