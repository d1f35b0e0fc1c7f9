/**
 * Helpers for the workload tests: a client and fresh namespaces on a control plane that runs
 * workloads (the shared one by default; see test/support/controlPlane.ts), and small builders and
 * waits for pods, Deployments and Jobs. The simulated nodes run no container: KWOK reports pods
 * Running and Ready, and pods owned by a Job Succeeded.
 */
import { RestClient } from '../../../src/kube/rest.ts';
import type { KubeObject } from '../../../src/kube/types.ts';
import { uniqueName, workloadControlPlane } from '../../support/controlPlane.ts';
import { eventually } from '../../support/kube.ts';

export interface WorkloadEnv {
  client: RestClient;
  nodes: string[];
  namespace(prefix: string): Promise<string>;
}

let env: Promise<WorkloadEnv> | undefined;

/** The test process's client on a workload plane; never close it. */
export function workloadEnv(): Promise<WorkloadEnv> {
  env ??= workloadControlPlane().then((cp) => {
    const client = new RestClient(cp.kc);
    return {
      client,
      nodes: cp.nodes,
      async namespace(prefix: string) {
        const name = uniqueName(prefix);
        await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
        return name;
      },
    };
  });
  return env;
}

export type Obj = Record<string, unknown>;

export function field(obj: unknown, ...path: string[]): unknown {
  let cur: unknown = obj;
  for (const p of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Obj)[p];
  }
  return cur;
}

export const num = (v: unknown): number => (typeof v === 'number' ? v : 0);

export function conditionStatus(obj: KubeObject | undefined, type: string): string | undefined {
  const list = field(obj, 'status', 'conditions');
  if (!Array.isArray(list)) return undefined;
  return (list as { type?: string; status?: string }[]).find((c) => c.type === type)?.status;
}

/** A pod template with one container and the given labels. */
export function podTemplate(labels: Record<string, string>, extra: Obj = {}): Obj {
  return {
    metadata: { labels },
    spec: {
      containers: [
        {
          name: 'app',
          image: 'registry.k8s.io/pause:3.10',
          resources: { requests: { cpu: '100m', memory: '64Mi' } },
        },
      ],
      terminationGracePeriodSeconds: 0,
      ...extra,
    },
  };
}

export function deployment(ns: string, name: string, replicas: number, podSpecExtra: Obj = {}): KubeObject {
  const labels = { app: name };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: ns },
    spec: { replicas, selector: { matchLabels: labels }, template: podTemplate(labels, podSpecExtra) },
  };
}

export async function pods(client: RestClient, ns: string, selector?: string): Promise<KubeObject[]> {
  const list = await client.list(
    { apiVersion: 'v1', kind: 'Pod', namespace: ns },
    selector ? { labelSelector: selector } : {},
  );
  return list.items;
}

/** Waits until the Deployment's rollout is complete and `replicas` pods are available. */
export async function rolledOut(
  client: RestClient,
  ns: string,
  name: string,
  replicas: number,
  timeoutMs = 60_000,
): Promise<KubeObject> {
  return eventually(
    `Deployment ${ns}/${name} to have ${replicas} available replicas`,
    async () => {
      const d = await client.get({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: ns, name });
      const s = d.status as Obj | undefined;
      const current = num(s?.observedGeneration) >= (d.metadata.generation ?? 0);
      return current &&
        num(s?.availableReplicas) === replicas &&
        num(s?.updatedReplicas) === replicas &&
        conditionStatus(d, 'Available') === 'True'
        ? d
        : undefined;
    },
    timeoutMs,
  );
}

export interface WatchEvent {
  type: string;
  object: KubeObject;
}

/**
 * Watches `path` (a list path such as `/api/v1/namespaces/x/pods`) from now on and hands every event
 * to `onEvent`; `stop()` closes the stream. Resolves once the watch is open.
 */
export async function watch(
  client: RestClient,
  path: string,
  onEvent: (e: WatchEvent) => void,
): Promise<{ stop: () => void }> {
  const list = await client.request({ method: 'GET', path });
  const rv = (list as { metadata?: { resourceVersion?: string } }).metadata?.resourceVersion;
  const stream = await client.stream({
    method: 'GET',
    path,
    query: { watch: true, resourceVersion: rv, timeoutSeconds: 120 },
    verb: 'watch',
  });
  let buffer = '';
  stream.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
      const line = buffer.slice(0, nl).trim();
      buffer = buffer.slice(nl + 1);
      if (line) onEvent(JSON.parse(line) as WatchEvent);
    }
  });
  return { stop: () => stream.destroy() };
}

export const podReady = (p: KubeObject): boolean => conditionStatus(p, 'Ready') === 'True';
