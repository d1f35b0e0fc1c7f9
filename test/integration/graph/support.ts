/**
 * Shared helpers of the controller integration tests: a namespace whose `default` ServiceAccount may
 * write everything in it, a controller restricted to that namespace, Graph helpers and waits.
 */

import { readFileSync } from 'node:fs';
import pino from 'pino';
import { parseAllDocuments } from 'yaml';
import type { Observability } from '../../../src/controller/core/observability.ts';
import { GraphController, type ReconcileTrace } from '../../../src/controller/graph/controller.ts';
import { installGraphCrd } from '../../../src/controller/graph/crd.ts';
import type { KubeObject, RestClient } from '../../../src/kube/index.ts';
import { KubeConfig } from '../../../src/kube/kubeconfig.ts';
import { RestClient as Client } from '../../../src/kube/rest.ts';
import { sharedControlPlane } from '../../support/controlPlane.ts';
import {
  adminClient,
  type Cond,
  cm,
  conditionOf,
  eventually,
  getCm,
  gone,
  testNamespace,
} from '../../support/kube.ts';

export { type Cond, cm, conditionOf, eventually, getCm, gone };

let crdInstalled: Promise<unknown> | undefined;

/** The Graph CRD, installed once per test process. */
export async function ensureCrd(): Promise<void> {
  crdInstalled ??= adminClient().then((c) => installGraphCrd(c));
  await crdInstalled;
}

/** A fresh namespace where ServiceAccount `sa` (default `default`) may do anything. */
export async function graphNamespace(prefix: string, sa = 'default'): Promise<string> {
  const client = await adminClient();
  const ns = await testNamespace(prefix);
  await grantAll(client, ns, sa);
  return ns;
}

export async function grantAll(client: RestClient, ns: string, sa: string): Promise<void> {
  await client.apply(
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'graph-writer', namespace: ns },
      rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }],
    },
    { fieldManager: 'test' },
  );
  await client.apply(
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: `graph-writer-${sa}`, namespace: ns },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'graph-writer' },
      subjects: [{ kind: 'ServiceAccount', name: sa, namespace: ns }],
    },
    { fieldManager: 'test' },
  );
}

/** A controller on its own client (own request counters), restricted to `namespaces`. */
export async function startController(
  namespaces: string[],
  opts: { concurrency?: number; trace?: (e: ReconcileTrace) => void; observe?: Observability } = {},
): Promise<GraphController> {
  await ensureCrd();
  const cp = await sharedControlPlane();
  const client = new Client(cp.kc);
  const controller = new GraphController({
    client,
    namespaces,
    installCrd: false,
    concurrency: opts.concurrency ?? 2,
    ...(opts.trace ? { trace: opts.trace } : {}),
    ...(opts.observe ? { observe: opts.observe } : {}),
    log: pino({ level: process.env.KGRAPH_TEST_LOG_LEVEL ?? 'silent' }),
  });
  await controller.start();
  return controller;
}

let deployRbac: Promise<unknown> | undefined;

/**
 * A client acting as the controller ServiceAccount of deploy/rbac/rbac.yaml (applied once per test
 * process), with a real token from the TokenRequest API: the least-privilege identity the controller
 * runs as in a cluster. The caller closes it (or the controller using it does).
 */
export async function leastPrivilegeClient(): Promise<RestClient> {
  const client = await adminClient();
  deployRbac ??= (async () => {
    await client.apply(
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kgraph-system' } },
      { fieldManager: 'test' },
    );
    for (const doc of parseAllDocuments(readFileSync('deploy/rbac/rbac.yaml', 'utf8'))) {
      await client.apply(doc.toJS() as KubeObject, { fieldManager: 'test', force: true });
    }
  })();
  await deployRbac;
  const tr = (await client.request({
    method: 'POST',
    path: '/api/v1/namespaces/kgraph-system/serviceaccounts/kgraph-controller/token',
    body: {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      spec: { expirationSeconds: 3600 },
    },
  })) as { status: { token: string } };
  const cp = await sharedControlPlane();
  const cluster = cp.kc.getCurrentCluster();
  if (!cluster) throw new Error('the test control plane has no cluster in its kubeconfig');
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ ...cluster, name: 'testenv' }],
    users: [{ name: 'controller', token: tr.status.token }],
    contexts: [{ name: 'controller', cluster: 'testenv', user: 'controller' }],
    currentContext: 'controller',
  });
  return new Client(kc);
}

/** What a describe block of controller tests works with. */
export interface ControllerFixture {
  /** The shared admin client (never closed by the tests). */
  client: RestClient;
  /** A fresh Graph namespace (see graphNamespace). */
  ns: string;
  /** A controller restricted to `ns`; stop it with stopController. */
  controller: GraphController;
}

/** An admin client, a fresh Graph namespace named after `prefix` and a controller restricted to it. */
export async function controllerFixture(prefix: string): Promise<ControllerFixture> {
  const client = await adminClient();
  const ns = await graphNamespace(prefix);
  const controller = await startController([ns]);
  return { client, ns, controller };
}

/** Stops a controller from startController and closes its own client. */
export async function stopController(controller: GraphController | undefined): Promise<void> {
  await controller?.stop();
  controller?.client.close();
}

export function graph(
  ns: string,
  name: string,
  nodes: unknown[],
  spec: Record<string, unknown> = {},
): KubeObject {
  return {
    apiVersion: 'kro.run/v1alpha1',
    kind: 'Graph',
    metadata: { name, namespace: ns },
    spec: { ...spec, nodes },
  };
}

/** Applies a Graph as the test user (server-side apply, manager `test`, forced). */
export async function applyGraph(client: RestClient, g: KubeObject): Promise<KubeObject> {
  return client.apply(g, { fieldManager: 'test', force: true });
}

export async function getGraph(
  client: RestClient,
  ns: string,
  name: string,
): Promise<KubeObject | undefined> {
  return client.getOrUndefined({ apiVersion: 'kro.run/v1alpha1', kind: 'Graph', namespace: ns, name });
}

/** Waits until the Graph's condition has this status (and reason), for its current generation. */
export async function waitCondition(
  client: RestClient,
  ns: string,
  name: string,
  type: string,
  status: string,
  reason?: string,
  timeoutMs = 30_000,
): Promise<KubeObject> {
  let last: KubeObject | undefined;
  try {
    return await eventually(
      `Graph ${name} ${type}=${status}${reason ? ` (${reason})` : ''}`,
      async () => {
        const g = await getGraph(client, ns, name);
        last = g;
        const c = conditionOf(g, type);
        if (!g || !c) return undefined;
        if (c.observedGeneration !== g.metadata.generation) return undefined;
        return c.status === status && (reason === undefined || c.reason === reason) ? g : undefined;
      },
      timeoutMs,
    );
  } catch (e) {
    throw new Error(`${(e as Error).message}; last status: ${JSON.stringify(last?.status)}`);
  }
}
