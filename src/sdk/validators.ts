/**
 * The nine build-time pod validators of the Kix reference (design/sdk.md §A4.3). They read the authored (pre-synth) tree, so values
 * may be context strings; lazies are skipped (unknown until synth).
 */
import type { ResolvedCluster, TriState } from './cluster.ts';
import { inspectStr, isKStr } from './context.ts';
import { SdkCode, type SdkCodeValue, SdkError } from './errors.ts';
import { compareQuantity, parseQuantity, writtenFitsInt64 } from './quantity.ts';

type Obj = Readonly<Record<string, unknown>>;

export function asObj(v: unknown): Obj | undefined {
  if (v === null || typeof v !== 'object' || Array.isArray(v) || isKStr(v)) return undefined;
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null ? (v as Obj) : undefined;
}
export function asArr(v: unknown): readonly unknown[] {
  return Array.isArray(v) ? v : [];
}
export function asText(v: unknown): string | undefined {
  if (typeof v === 'string' || isKStr(v)) return inspectStr(v).text;
  if (typeof v === 'number') return String(v);
  return undefined;
}

export interface ValidationTarget {
  /** e.g. `Deployment shop/api` */
  readonly label: string;
  readonly key: string;
  readonly kind: string;
  readonly namespace: string;
  /** The workload spec (`spec`). */
  readonly spec: Obj;
  /** The pod template spec. */
  readonly podSpec: Obj;
  /** Path of the pod spec inside the manifest, for messages. */
  readonly podPath: string;
  readonly cluster: ResolvedCluster;
  warn(code: SdkCodeValue, message: string, path?: string): void;
}

function fail(t: ValidationTarget, code: SdkCodeValue, msg: string, path?: string): never {
  throw new SdkError(code, `${t.label}: ${msg}`, { node: t.key, ...(path === undefined ? {} : { path }) });
}

function capability(
  t: ValidationTarget,
  cap: TriState,
  code: SdkCodeValue,
  capName: string,
  what: string,
  path: string,
) {
  if (cap === false) fail(t, code, `${what}, but cluster.capabilities.${capName} is false`, path);
  if (cap === null)
    t.warn(code, `${t.label}: ${what}; cluster.capabilities.${capName} is unknown (null)`, path);
}

function containersOf(podSpec: Obj): { c: Obj; path: string }[] {
  const out: { c: Obj; path: string }[] = [];
  for (const field of ['initContainers', 'containers']) {
    asArr(podSpec[field]).forEach((c, i) => {
      const o = asObj(c);
      if (o) out.push({ c: o, path: `${field}[${i}]` });
    });
  }
  return out;
}

/** When template labels are explicit, every selector pair must appear in them with the same value. */
export function checkSelectorSubset(
  t: Pick<ValidationTarget, 'label' | 'key'>,
  selector: Obj,
  podLabels: Obj,
  what = 'spec.selector.matchLabels',
): void {
  const missing: string[] = [];
  const mismatched: string[] = [];
  for (const [k, v] of Object.entries(selector)) {
    if (v === null || v === undefined) continue;
    if (!(k in podLabels) || podLabels[k] === null || podLabels[k] === undefined) missing.push(k);
    else if (asText(podLabels[k]) !== asText(v))
      mismatched.push(`${k} (${asText(v)} ≠ ${asText(podLabels[k])})`);
  }
  if (missing.length + mismatched.length > 0) {
    const parts = [
      ...(missing.length ? [`missing ${missing.join(', ')}`] : []),
      ...(mismatched.length ? [`different value for ${mismatched.join(', ')}`] : []),
    ];
    throw new SdkError(
      SdkCode.checkSelectorSubset,
      `${t.label}: ${what} is not a subset of the pod template labels: ${parts.join('; ')}`,
      { node: t.key, path: 'spec.template.metadata.labels' },
    );
  }
}

interface NamedRef {
  readonly kind: 'ConfigMap' | 'Secret' | 'PersistentVolumeClaim' | 'ServiceAccount';
  readonly value: unknown;
  readonly path: string;
}

function podRefs(podSpec: Obj, podPath: string): NamedRef[] {
  const refs: NamedRef[] = [];
  const push = (kind: NamedRef['kind'], value: unknown, path: string) => {
    if (value !== undefined && value !== null) refs.push({ kind, value, path: `${podPath}.${path}` });
  };
  push('ServiceAccount', podSpec.serviceAccountName, 'serviceAccountName');
  asArr(podSpec.imagePullSecrets).forEach((s, i) => {
    push('Secret', asObj(s)?.name, `imagePullSecrets[${i}].name`);
  });
  asArr(podSpec.volumes).forEach((vol, i) => {
    const v = asObj(vol);
    if (!v) return;
    push('ConfigMap', asObj(v.configMap)?.name, `volumes[${i}].configMap.name`);
    push('Secret', asObj(v.secret)?.secretName, `volumes[${i}].secret.secretName`);
    push(
      'PersistentVolumeClaim',
      asObj(v.persistentVolumeClaim)?.claimName,
      `volumes[${i}].persistentVolumeClaim.claimName`,
    );
    asArr(asObj(v.projected)?.sources).forEach((src, j) => {
      const s = asObj(src);
      push('ConfigMap', asObj(s?.configMap)?.name, `volumes[${i}].projected.sources[${j}].configMap.name`);
      push('Secret', asObj(s?.secret)?.name, `volumes[${i}].projected.sources[${j}].secret.name`);
    });
  });
  for (const { c, path } of containersOf(podSpec)) {
    asArr(c.env).forEach((e, i) => {
      const vf = asObj(asObj(e)?.valueFrom);
      push('ConfigMap', asObj(vf?.configMapKeyRef)?.name, `${path}.env[${i}].valueFrom.configMapKeyRef.name`);
      push('Secret', asObj(vf?.secretKeyRef)?.name, `${path}.env[${i}].valueFrom.secretKeyRef.name`);
    });
    asArr(c.envFrom).forEach((e, i) => {
      const o = asObj(e);
      push('ConfigMap', asObj(o?.configMapRef)?.name, `${path}.envFrom[${i}].configMapRef.name`);
      push('Secret', asObj(o?.secretRef)?.name, `${path}.envFrom[${i}].secretRef.name`);
    });
  }
  return refs;
}

/** Every ConfigMap, Secret, PVC and ServiceAccount the pod references must carry context of an object of
 * that kind in the workload's namespace (or `kix.untrackedRef`, or a reflected Secret ref). */
export function checkNamespacedRefs(t: ValidationTarget): void {
  for (const ref of podRefs(t.podSpec, t.podPath)) {
    if (typeof ref.value !== 'string' && !isKStr(ref.value)) continue; // lazy: checked nowhere else; skip
    const { text, ctx } = inspectStr(ref.value);
    const nodes = [...ctx.order].filter((n) => n.kind === ref.kind);
    if (nodes.length === 0 && !ctx.untracked.has(ref.kind)) {
      fail(
        t,
        SdkCode.checkNamespacedRefs,
        `${ref.kind} "${text}" at ${ref.path} carries no context; use the ${ref.kind} resource's .out.name (or kix.untrackedRef)`,
        ref.path,
      );
    }
    for (const n of nodes) {
      if (n.namespace !== t.namespace && !n.reflected) {
        fail(
          t,
          SdkCode.checkNamespacedRefs,
          `${ref.kind} "${n.name}" at ${ref.path} is in namespace ${n.namespace ?? '(cluster)'}, not ${t.namespace}`,
          ref.path,
        );
      }
    }
  }
}

/** A string probe port must be declared among the container's named ports. */
export function checkNamedPorts(t: ValidationTarget): void {
  for (const { c, path } of containersOf(t.podSpec)) {
    const declared = new Set(asArr(c.ports).map((p) => asText(asObj(p)?.name)));
    for (const probe of ['livenessProbe', 'readinessProbe', 'startupProbe']) {
      const pr = asObj(c[probe]);
      if (!pr) continue;
      for (const handler of ['httpGet', 'tcpSocket', 'grpc']) {
        const port = asObj(pr[handler])?.port;
        if (typeof port === 'string' || isKStr(port)) {
          const name = asText(port)!;
          if (!declared.has(name)) {
            const p = `${t.podPath}.${path}.${probe}.${handler}.port`;
            fail(
              t,
              SdkCode.checkNamedPorts,
              `probe port "${name}" is not declared in the container's ports`,
              p,
            );
          }
        }
      }
    }
  }
}

/** When both requests and limits set cpu or memory: both fit in int64 and limits ≥ requests. */
export function checkContainerResources(t: ValidationTarget): void {
  for (const { c, path } of containersOf(t.podSpec)) {
    const res = asObj(c.resources);
    const req = asObj(res?.requests);
    const lim = asObj(res?.limits);
    if (!req || !lim) continue;
    for (const r of ['cpu', 'memory']) {
      const rv = req[r];
      const lv = lim[r];
      if (rv === undefined || rv === null || lv === undefined || lv === null) continue;
      const p = `${t.podPath}.${path}.resources`;
      const rq = parseQuantity(asText(rv) ?? '');
      const lq = parseQuantity(asText(lv) ?? '');
      if (!rq) fail(t, SdkCode.checkContainerResources, `requests.${r} "${asText(rv)}" is not a quantity`, p);
      if (!lq) fail(t, SdkCode.checkContainerResources, `limits.${r} "${asText(lv)}" is not a quantity`, p);
      if (!writtenFitsInt64(asText(rv) ?? '') || !writtenFitsInt64(asText(lv) ?? '')) {
        fail(t, SdkCode.checkContainerResources, `${r} quantity does not fit in a 64-bit integer`, p);
      }
      if (compareQuantity(lq!, rq!) < 0) {
        fail(
          t,
          SdkCode.checkContainerResources,
          `limits.${r} ${asText(lv)} is below requests.${r} ${asText(rv)}`,
          p,
        );
      }
    }
  }
}

function dupes(values: readonly (string | undefined)[]): string[] {
  const seen = new Set<string>();
  const d = new Set<string>();
  for (const v of values) {
    if (v === undefined) continue;
    if (seen.has(v)) d.add(v);
    seen.add(v);
  }
  return [...d];
}

export function checkDuplicateNames(t: ValidationTarget): void {
  const cs = containersOf(t.podSpec);
  const dc = dupes(cs.map(({ c }) => asText(c.name)));
  if (dc.length)
    fail(t, SdkCode.checkDuplicateNames, `duplicate container names: ${dc.join(', ')}`, t.podPath);
  const dv = dupes(asArr(t.podSpec.volumes).map((v) => asText(asObj(v)?.name)));
  if (dv.length)
    fail(t, SdkCode.checkDuplicateNames, `duplicate volume names: ${dv.join(', ')}`, `${t.podPath}.volumes`);
  for (const { c, path } of cs) {
    const dp = dupes(asArr(c.ports).map((p) => asText(asObj(p)?.name)));
    if (dp.length) {
      fail(
        t,
        SdkCode.checkDuplicateNames,
        `duplicate port names in ${path}: ${dp.join(', ')}`,
        `${t.podPath}.${path}.ports`,
      );
    }
    const de = dupes(asArr(c.env).map((e) => asText(asObj(e)?.name)));
    if (de.length) {
      fail(
        t,
        SdkCode.checkDuplicateNames,
        `duplicate env names in ${path}: ${de.join(', ')}`,
        `${t.podPath}.${path}.env`,
      );
    }
  }
}

const FIELD_PATHS = new Set([
  'metadata.name',
  'metadata.namespace',
  'metadata.uid',
  'metadata.labels',
  'metadata.annotations',
  'spec.nodeName',
  'spec.serviceAccountName',
  'status.hostIP',
  'status.hostIPs',
  'status.podIP',
  'status.podIPs',
]);
const FIELD_PATH_KEYED = /^metadata\.(labels|annotations)\['[^']+'\]$/;

export function isSupportedFieldPath(p: string): boolean {
  return FIELD_PATHS.has(p) || FIELD_PATH_KEYED.test(p);
}

export function checkFieldRefs(t: ValidationTarget): void {
  for (const { c, path } of containersOf(t.podSpec)) {
    asArr(c.env).forEach((e, i) => {
      const fp = asObj(asObj(asObj(e)?.valueFrom)?.fieldRef)?.fieldPath;
      const s = asText(fp);
      if (s !== undefined && !isSupportedFieldPath(s)) {
        const p = `${t.podPath}.${path}.env[${i}].valueFrom.fieldRef.fieldPath`;
        fail(t, SdkCode.checkFieldRefs, `unsupported downward-API fieldPath "${s}"`, p);
      }
    });
  }
}

export function checkPrivileged(t: ValidationTarget): void {
  const reasons: string[] = [];
  if (t.podSpec.hostNetwork === true) reasons.push('hostNetwork');
  if (t.podSpec.hostPID === true) reasons.push('hostPID');
  if (asArr(t.podSpec.volumes).some((v) => asObj(v)?.hostPath !== undefined && asObj(v)?.hostPath !== null)) {
    reasons.push('a hostPath volume');
  }
  if (containersOf(t.podSpec).some(({ c }) => asObj(c.securityContext)?.privileged === true)) {
    reasons.push('securityContext.privileged');
  }
  if (reasons.length === 0) return;
  capability(
    t,
    t.cluster.capabilities.privilegedContainers,
    SdkCode.checkPrivileged,
    'privilegedContainers',
    `the pod uses ${reasons.join(', ')}`,
    t.podPath,
  );
}

export function checkDaemonSet(t: ValidationTarget): void {
  capability(
    t,
    t.cluster.capabilities.daemonSets,
    SdkCode.checkDaemonSet,
    'daemonSets',
    'a DaemonSet is built',
    'kind',
  );
}

export function checkSpreadFeasible(t: ValidationTarget): void {
  const replicas = typeof t.spec.replicas === 'number' ? t.spec.replicas : 1;
  if (replicas <= 1) return;
  const required = asArr(
    asObj(asObj(t.podSpec.affinity)?.podAntiAffinity)?.requiredDuringSchedulingIgnoredDuringExecution,
  );
  const dns = asArr(t.podSpec.topologySpreadConstraints).some(
    (c) => asObj(c)?.whenUnsatisfiable === 'DoNotSchedule',
  );
  if (required.length === 0 && !dns) return;
  capability(
    t,
    t.cluster.capabilities.multiNode,
    SdkCode.checkSpreadFeasible,
    'multiNode',
    `${replicas} replicas with ${required.length > 0 ? 'required pod anti-affinity' : 'a DoNotSchedule topology spread constraint'} need several nodes`,
    `${t.podPath}`,
  );
}

export type ValidatorName =
  | 'checkSelectorSubset'
  | 'checkNamespacedRefs'
  | 'checkNamedPorts'
  | 'checkContainerResources'
  | 'checkDuplicateNames'
  | 'checkFieldRefs'
  | 'checkPrivileged'
  | 'checkDaemonSet'
  | 'checkSpreadFeasible';

/** The five pod-template checks run by every workload builder (Jobs and CronJobs run only these). */
export const podTemplateChecks: readonly ((t: ValidationTarget) => void)[] = [
  checkPrivileged,
  checkNamespacedRefs,
  checkContainerResources,
  checkDuplicateNames,
  checkFieldRefs,
];
