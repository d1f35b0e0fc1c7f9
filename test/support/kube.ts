/**
 * Test support on the shared test control plane: REST clients, per-test namespaces, waits, and small
 * object builders (a ConfigMap, a throwaway `Widget` CRD with a status subresource).
 */
import { isAlreadyExists } from '../../src/kube/errors.ts';
import { RestClient } from '../../src/kube/rest.ts';
import type { KubeObject } from '../../src/kube/types.ts';
import { sharedControlPlane, uniqueName } from './controlPlane.ts';

let admin: Promise<RestClient> | undefined;

/** An admin (system:masters) client for the shared control plane, shared by the test process: never close it. */
export function adminClient(): Promise<RestClient> {
  admin ??= sharedControlPlane().then((cp) => new RestClient(cp.kc));
  return admin;
}

/** A new admin client of its own (own counters and connections); the caller closes it. */
export async function testClient(): Promise<RestClient> {
  const cp = await sharedControlPlane();
  return new RestClient(cp.kc);
}

/** Creates a fresh namespace for one test and returns its name. Tests never wait for its deletion. */
export async function testNamespace(prefix: string): Promise<string> {
  const client = await adminClient();
  const name = uniqueName(prefix);
  await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  return name;
}

/**
 * Polls `probe` until it returns a value other than undefined, or fails after `timeoutMs`. A probe
 * that throws counts as not yet; the last error is in the timeout message.
 */
export async function eventually<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs = 30_000,
  intervalMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined) return v;
    } catch (e) {
      lastError = e;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${lastError ? `: ${String(lastError)}` : ''}`,
      );
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** A condition as the controllers write it. */
export interface Cond {
  type: string;
  status: string;
  reason: string;
  message: string;
  observedGeneration: number;
}

/** The condition of this type in an object's `status.conditions`, if any. */
export function conditionOf(o: KubeObject | undefined, type: string): Cond | undefined {
  return (o?.status as { conditions?: Cond[] } | undefined)?.conditions?.find((c) => c.type === type);
}

/** A ConfigMap template (no namespace: the Graph or instance puts it in its own). */
export function cm(name: string, data: Record<string, string> = {}, extra: Record<string, unknown> = {}) {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...extra }, data };
}

export async function getCm(client: RestClient, ns: string, name: string): Promise<KubeObject | undefined> {
  return client.getOrUndefined({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name });
}

/** Waits until the object is gone. */
export async function gone(
  client: RestClient,
  ns: string,
  name: string,
  kind = 'ConfigMap',
  apiVersion = 'v1',
) {
  return eventually(`${kind} ${name} deleted`, async () =>
    (await client.getOrUndefined({ apiVersion, kind, namespace: ns, name })) === undefined ? true : undefined,
  );
}

export function configMap(
  namespace: string,
  name: string,
  data: Record<string, string>,
  labels?: Record<string, string>,
): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace, ...(labels ? { labels } : {}) },
    data,
  };
}

/**
 * The namespaced CRD `widgets.<group>` (kind `Widget`, version v1) with a status subresource:
 * `spec.size` (integer), `spec.color`, `status.phase`, `status.count` (integer).
 */
export function widgetCrd(group: string): KubeObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `widgets.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: {
                  type: 'object',
                  properties: { size: { type: 'integer' }, color: { type: 'string' } },
                },
                status: {
                  type: 'object',
                  properties: { phase: { type: 'string' }, count: { type: 'integer' } },
                },
              },
            },
          },
        },
      ],
    },
  };
}

/** Waits until the named CRD is Established. */
export async function waitCrdEstablished(
  client: RestClient,
  name: string,
  timeoutMs = 30_000,
): Promise<void> {
  await eventually(
    `CRD ${name} Established`,
    async () => {
      const got = await client.get({
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        name,
      });
      const conds =
        (got.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? [];
      return conds.some((c) => c.type === 'Established' && c.status === 'True') || undefined;
    },
    timeoutMs,
  );
}

/** Installs `widgetCrd` in a unique (or the given) group; waits until it is Established and discovery serves it. */
export async function installWidgetCRD(
  client: RestClient,
  groupName?: string,
): Promise<{ group: string; apiVersion: string; kind: string }> {
  const group = groupName ?? `${uniqueName('w')}.kgraph.test`;
  try {
    await client.create(widgetCrd(group));
  } catch (e) {
    if (!isAlreadyExists(e)) throw e;
  }
  await waitCrdEstablished(client, `widgets.${group}`);
  const apiVersion = `${group}/v1`;
  await eventually(
    'CRD in discovery',
    async () => {
      client.discovery.invalidate(apiVersion);
      return (await client.discovery.resources(apiVersion))?.some((r) => r.kind === 'Widget') || undefined;
    },
    30_000,
  );
  return { group, apiVersion, kind: 'Widget' };
}

/** A namespaced Role with one core-group rule and its RoleBinding to a ServiceAccount (both named `name`). */
export async function grantServiceAccount(
  client: RestClient,
  ns: string,
  name: string,
  resources: string[],
  verbs: string[],
  sa: { name: string; namespace: string },
): Promise<void> {
  await client.apply(
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name, namespace: ns },
      rules: [{ apiGroups: [''], resources, verbs }],
    },
    { fieldManager: 'test', force: true },
  );
  await client.apply(
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name, namespace: ns },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
      subjects: [{ kind: 'ServiceAccount', name: sa.name, namespace: sa.namespace }],
    },
    { fieldManager: 'test', force: true },
  );
}
