/**
 * Helpers for the kube-layer integration tests: a client on the shared control
 * plane, a fresh namespace per test, and a throwaway CRD with a status subresource.
 */

import { isAlreadyExists } from '../../../src/kube/errors.ts';
import { RestClient } from '../../../src/kube/rest.ts';
import type { KubeObject } from '../../../src/kube/types.ts';
import { sharedControlPlane, uniqueName } from '../../support/controlPlane.ts';

export async function testClient(): Promise<RestClient> {
  const cp = await sharedControlPlane();
  return new RestClient(cp.kc);
}

/** Creates a namespace named after `prefix`; never waits for deletion (no namespace controller guarantees). */
export async function freshNamespace(client: RestClient, prefix: string): Promise<string> {
  const name = uniqueName(prefix);
  await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  return name;
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

export async function eventually<T>(
  f: () => Promise<T | undefined>,
  timeoutMs = 20_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await f().catch(() => undefined);
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A namespaced CRD `Widget` in a unique group with a status subresource; waits until discovery serves it. */
export async function installWidgetCRD(
  client: RestClient,
  groupName?: string,
): Promise<{ group: string; apiVersion: string; kind: string }> {
  const group = groupName ?? `${uniqueName('w')}.kgraph.test`;
  const crd: KubeObject = {
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
  try {
    await client.create(crd);
  } catch (e) {
    if (!isAlreadyExists(e)) throw e;
  }
  await eventually(
    async () => {
      const got = await client.get({
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        name: `widgets.${group}`,
      });
      const conds =
        (got.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? [];
      return conds.some((c) => c.type === 'Established' && c.status === 'True') || undefined;
    },
    30_000,
    'CRD Established',
  );
  const apiVersion = `${group}/v1`;
  await eventually(
    async () => {
      client.discovery.invalidate(apiVersion);
      return (await client.discovery.resources(apiVersion))?.some((r) => r.kind === 'Widget') || undefined;
    },
    30_000,
    'CRD in discovery',
  );
  return { group, apiVersion, kind: 'Widget' };
}
