/**
 * Readiness per kind (design/sdk.md §B6.5): a pure function of the live object, so the
 * deployer's waiting logic is unit-testable. `failed` means waiting is pointless
 * (a Job that failed, a Deployment past its progress deadline).
 */
import type { KubeObject } from '../kube/types.ts';

export interface Readiness {
  ready: boolean;
  /** Set when the object can no longer become ready. */
  failed?: string;
  /** Why it is not ready yet, for progress output and timeout messages. */
  reason: string;
}

interface Condition {
  type?: string;
  status?: string;
  reason?: string;
  message?: string;
}

type Obj = Record<string, unknown>;

function get(obj: unknown, path: readonly string[]): unknown {
  let cur: unknown = obj;
  for (const p of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Obj)[p];
  }
  return cur;
}

function num(v: unknown): number {
  return typeof v === 'number' ? v : 0;
}

function conditions(obj: KubeObject): Condition[] {
  const c = get(obj, ['status', 'conditions']);
  return Array.isArray(c) ? (c as Condition[]) : [];
}

function condition(obj: KubeObject, type: string): Condition | undefined {
  return conditions(obj).find((c) => c.type === type);
}

function generationCurrent(obj: KubeObject): boolean {
  const gen = obj.metadata.generation;
  const observed = get(obj, ['status', 'observedGeneration']);
  return gen === undefined || (typeof observed === 'number' && observed >= gen);
}

const ready = (reason = 'ready'): Readiness => ({ ready: true, reason });
const waiting = (reason: string): Readiness => ({ ready: false, reason });

/** A `kix.run/readiness` predicate: a condition, or a JSON-pointer-like path equal / not equal to a value. */
export type ReadinessPredicate =
  | { condition: { type: string; status: string } }
  | { path: string; equals: unknown }
  | { path: string; notEquals: unknown };

export function parseReadinessAnnotation(value: string): ReadinessPredicate {
  const parsed = JSON.parse(value) as unknown;
  if (parsed && typeof parsed === 'object') {
    const p = parsed as Obj;
    const c = p.condition as Obj | undefined;
    if (c && typeof c.type === 'string' && typeof c.status === 'string')
      return { condition: { type: c.type, status: c.status } };
    if (typeof p.path === 'string' && 'equals' in p) return { path: p.path, equals: p.equals };
    if (typeof p.path === 'string' && 'notEquals' in p) return { path: p.path, notEquals: p.notEquals };
  }
  throw new Error(`kix.run/readiness: unsupported predicate ${value}`);
}

function pointer(path: string): string[] {
  return path
    .replace(/^\//, '')
    .split(/[/.]/)
    .filter((s) => s !== '')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function predicateReadiness(obj: KubeObject, p: ReadinessPredicate): Readiness {
  if ('condition' in p) {
    const c = condition(obj, p.condition.type);
    return c?.status === p.condition.status
      ? ready()
      : waiting(
          `condition ${p.condition.type} is ${c?.status ?? 'absent'}, want ${p.condition.status}${c?.message ? `: ${c.message}` : ''}`,
        );
  }
  const actual = get(obj, pointer(p.path));
  if ('equals' in p) {
    return actual === p.equals
      ? ready()
      : waiting(`${p.path} is ${JSON.stringify(actual)}, want ${JSON.stringify(p.equals)}`);
  }
  return actual !== undefined && actual !== p.notEquals
    ? ready()
    : waiting(`${p.path} is ${JSON.stringify(actual)}, want anything but ${JSON.stringify(p.notEquals)}`);
}

/** Readiness of a live object; `undefined` means it does not exist (yet). */
export function readinessOf(live: KubeObject | undefined): Readiness {
  if (!live) return waiting('not found');
  const annotation = live.metadata.annotations?.['kix.run/readiness'];
  if (annotation) return predicateReadiness(live, parseReadinessAnnotation(annotation));
  const spec = (live.spec ?? {}) as Obj;
  const status = (live.status ?? {}) as Obj;
  const group = live.apiVersion.includes('/') ? live.apiVersion.split('/')[0]! : '';
  switch (`${group}/${live.kind}`) {
    case 'apps/Deployment': {
      const progressing = condition(live, 'Progressing');
      if (progressing?.reason === 'ProgressDeadlineExceeded')
        return {
          ready: false,
          failed: `rollout stuck: ${progressing.message ?? 'ProgressDeadlineExceeded'}`,
          reason: 'ProgressDeadlineExceeded',
        };
      if (!generationCurrent(live)) return waiting('rollout not yet observed');
      const want = typeof spec.replicas === 'number' ? spec.replicas : 1;
      const updated = num(status.updatedReplicas);
      const available = num(status.availableReplicas);
      if (updated !== want || available !== want)
        return waiting(`${available}/${want} available, ${updated}/${want} updated`);
      if (condition(live, 'Available')?.status !== 'True') return waiting('condition Available is not True');
      return ready();
    }
    case 'apps/StatefulSet': {
      if (!generationCurrent(live)) return waiting('rollout not yet observed');
      const want = typeof spec.replicas === 'number' ? spec.replicas : 1;
      const r = num(status.readyReplicas);
      const c = num(status.currentReplicas);
      if (r !== want || c !== want) return waiting(`${r}/${want} ready, ${c}/${want} current`);
      const strategy = (spec.updateStrategy as Obj | undefined)?.type ?? 'RollingUpdate';
      if (strategy === 'RollingUpdate' && status.currentRevision !== status.updateRevision)
        return waiting('revision rollout in progress');
      return ready();
    }
    case 'apps/DaemonSet': {
      if (!generationCurrent(live)) return waiting('rollout not yet observed');
      const desired = num(status.desiredNumberScheduled);
      const r = num(status.numberReady);
      const u = num(status.updatedNumberScheduled);
      if (desired === 0) return ready('no nodes to schedule on');
      return r === desired && u === desired
        ? ready()
        : waiting(`${r}/${desired} ready, ${u}/${desired} updated`);
    }
    case 'batch/Job': {
      const failed = condition(live, 'Failed');
      if (failed?.status === 'True')
        return {
          ready: false,
          failed: `job failed: ${failed.message ?? failed.reason ?? 'Failed'}`,
          reason: 'Failed',
        };
      return condition(live, 'Complete')?.status === 'True' ? ready('complete') : waiting('not complete');
    }
    case '/Service': {
      if (spec.type !== 'LoadBalancer') return ready();
      const ingress = get(status, ['loadBalancer', 'ingress']);
      return Array.isArray(ingress) && ingress.length > 0 ? ready() : waiting('no load-balancer ingress yet');
    }
    case 'apiextensions.k8s.io/CustomResourceDefinition': {
      const est = condition(live, 'Established')?.status === 'True';
      const names = condition(live, 'NamesAccepted')?.status === 'True';
      return est && names ? ready() : waiting(`Established=${est}, NamesAccepted=${names}`);
    }
    case '/PersistentVolumeClaim':
      return status.phase === 'Bound' ? ready() : waiting(`phase ${String(status.phase ?? 'unknown')}`);
    case '/ConfigMap':
    case '/Secret':
    case '/ServiceAccount':
    case '/Namespace':
    case 'rbac.authorization.k8s.io/Role':
    case 'rbac.authorization.k8s.io/RoleBinding':
    case 'rbac.authorization.k8s.io/ClusterRole':
    case 'rbac.authorization.k8s.io/ClusterRoleBinding':
    case 'networking.k8s.io/NetworkPolicy':
    case 'policy/PodDisruptionBudget':
      return ready();
    default: {
      // A custom resource without a predicate: the generic status convention.
      const r = condition(live, 'Ready');
      if (r)
        return r.status === 'True'
          ? ready()
          : waiting(`condition Ready is ${r.status}${r.message ? `: ${r.message}` : ''}`);
      if (live.status !== undefined && !generationCurrent(live)) return waiting('status not yet observed');
      return ready('exists');
    }
  }
}
