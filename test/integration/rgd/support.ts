/**
 * Shared helpers of the RGD integration tests: an RGD controller that serves only the RGDs of one test
 * file (a label selector) and watches only that file's namespace, RGD and instance builders, waits.
 * Every test uses its own API group, so generated CRDs never collide between tests.
 */
import pino from 'pino';
import type { Observability } from '../../../src/controller/core/observability.ts';
import { RgdController } from '../../../src/controller/rgd/controller.ts';
import { installRgdCrd } from '../../../src/controller/rgd/crd.ts';
import type { KubeObject, RestClient } from '../../../src/kube/index.ts';
import { RestClient as Client } from '../../../src/kube/rest.ts';
import { sharedControlPlane, type TestControlPlane, uniqueName } from '../../support/controlPlane.ts';
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

const SUITE_LABEL = 'kgraph.test/suite';
let crdInstalled: Promise<unknown> | undefined;

export async function ensureRgdCrd(): Promise<void> {
  crdInstalled ??= adminClient().then((c) => installRgdCrd(c));
  await crdInstalled;
}

export interface RgdFixture {
  client: RestClient;
  ns: string;
  suite: string;
  group: string;
  controller: RgdController;
}

/**
 * A controller on its own client (own request counters) for RGDs labelled `suite`, instances in `ns`;
 * on the shared plane unless `opts.plane` names another (e.g. one that runs workloads).
 */
export async function startRgdController(
  suite: string,
  ns: string,
  opts: {
    concurrency?: number;
    deleteCrds?: boolean;
    plane?: TestControlPlane;
    observe?: Observability;
  } = {},
): Promise<RgdController> {
  const cp = opts.plane ?? (await sharedControlPlane());
  if (opts.plane === undefined) await ensureRgdCrd();
  else {
    const admin = new Client(cp.kc);
    await installRgdCrd(admin);
    admin.close();
  }
  const controller = new RgdController({
    client: new Client(cp.kc),
    rgdSelector: `${SUITE_LABEL}=${suite}`,
    namespaces: [ns],
    installCrd: false,
    concurrency: opts.concurrency ?? 4,
    deleteCrds: opts.deleteCrds ?? false,
    log: pino({ level: process.env.KGRAPH_TEST_LOG_LEVEL ?? 'silent' }),
    ...(opts.observe ? { observe: opts.observe } : {}),
  });
  await controller.start();
  return controller;
}

export async function rgdFixture(
  prefix: string,
  opts: { observe?: Observability; concurrency?: number } = {},
): Promise<RgdFixture> {
  const client = await adminClient();
  const ns = await testNamespace(prefix);
  const suite = uniqueName(prefix);
  const controller = await startRgdController(suite, ns, opts);
  return { client, ns, suite, group: `${suite}.kgraph.test`, controller };
}

export async function stopRgdController(c: RgdController | undefined): Promise<void> {
  await c?.stop();
  c?.client.close();
}

export function rgd(
  f: Pick<RgdFixture, 'suite' | 'group'>,
  name: string,
  schema: Record<string, unknown>,
  resources: unknown[],
  annotations: Record<string, string> = {},
): KubeObject {
  return {
    apiVersion: 'kro.run/v1alpha1',
    kind: 'ResourceGraphDefinition',
    metadata: { name, labels: { [SUITE_LABEL]: f.suite }, annotations },
    spec: { schema: { apiVersion: 'v1alpha1', group: f.group, ...schema }, resources },
  };
}

export async function applyRgd(client: RestClient, r: KubeObject): Promise<KubeObject> {
  return client.apply(r, { fieldManager: 'test', force: true });
}

export async function getRgd(client: RestClient, name: string): Promise<KubeObject | undefined> {
  return client.getOrUndefined({ apiVersion: 'kro.run/v1alpha1', kind: 'ResourceGraphDefinition', name });
}

/** Waits until the RGD's condition has this status (and reason) for its current generation. */
export async function waitRgd(
  client: RestClient,
  name: string,
  type: string,
  status: string,
  reason?: string,
  timeoutMs = 60_000,
): Promise<KubeObject> {
  let last: KubeObject | undefined;
  try {
    return await eventually(
      `RGD ${name} ${type}=${status}${reason ? ` (${reason})` : ''}`,
      async () => {
        const r = await getRgd(client, name);
        last = r;
        const c = conditionOf(r, type);
        if (!r || !c || c.observedGeneration !== r.metadata.generation) return undefined;
        return c.status === status && (reason === undefined || c.reason === reason) ? r : undefined;
      },
      timeoutMs,
    );
  } catch (e) {
    throw new Error(`${(e as Error).message}; last status: ${JSON.stringify(last?.status)}`);
  }
}

export function instance(
  f: Pick<RgdFixture, 'group' | 'ns'>,
  kind: string,
  name: string,
  spec: Record<string, unknown>,
  metadata: Record<string, unknown> = {},
): KubeObject {
  return {
    apiVersion: `${f.group}/v1alpha1`,
    kind,
    metadata: { name, namespace: f.ns, ...metadata },
    spec,
  };
}

/** Applies an instance; the shared client's discovery may predate the kind's CRD, so it is refreshed once. */
export async function applyInstance(client: RestClient, o: KubeObject): Promise<KubeObject> {
  try {
    return await client.apply(o, { fieldManager: 'test', force: true });
  } catch (e) {
    if (!(e instanceof Error && e.name === 'NoKindMatchError')) throw e;
    client.discovery.invalidate(o.apiVersion);
    return client.apply(o, { fieldManager: 'test', force: true });
  }
}

export async function getInstance(
  client: RestClient,
  f: Pick<RgdFixture, 'group' | 'ns'>,
  kind: string,
  name: string,
): Promise<KubeObject | undefined> {
  return client.getOrUndefined({ apiVersion: `${f.group}/v1alpha1`, kind, namespace: f.ns, name });
}

/** Waits until the instance's `status.state` is `state` (and `check` holds), for its current generation. */
export async function waitState(
  client: RestClient,
  f: Pick<RgdFixture, 'group' | 'ns'>,
  kind: string,
  name: string,
  state: string,
  check: (o: KubeObject) => boolean = () => true,
  timeoutMs = 60_000,
): Promise<KubeObject> {
  let last: KubeObject | undefined;
  try {
    return await eventually(
      `${kind} ${name} ${state}`,
      async () => {
        const o = await getInstance(client, f, kind, name);
        last = o;
        const s = o?.status as { state?: string } | undefined;
        const ready = conditionOf(o, 'Ready');
        if (!o || s?.state !== state) return undefined;
        if (ready && ready.observedGeneration !== o.metadata.generation) return undefined;
        return check(o) ? o : undefined;
      },
      timeoutMs,
    );
  } catch (e) {
    throw new Error(`${(e as Error).message}; last status: ${JSON.stringify(last?.status)}`);
  }
}

/** The data of a ConfigMap, or undefined when it does not exist. */
export async function cmData(
  client: RestClient,
  ns: string,
  name: string,
): Promise<Record<string, string> | undefined> {
  return (await getCm(client, ns, name))?.data as Record<string, string> | undefined;
}
