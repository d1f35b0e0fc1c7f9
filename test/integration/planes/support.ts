/**
 * Several real control planes in one test process: the management cluster (blueprints,
 * registrations, provider children), a host cluster, and consumer clusters, each a `kube-testenv`
 * without workloads. Consumers reach kgraph with a ServiceAccount token of their own (`kgraph` in
 * `kgraph-consumer`), which holds only what the consumer grants from the generated roles.
 */
import { readFileSync } from 'node:fs';
import { after, before } from 'node:test';
import pino from 'pino';
import { parseAllDocuments } from 'yaml';
import { generatedRoles } from '../../../src/controller/planes/claims.ts';
import { bindRole, serviceAccountKubeconfig } from '../../../src/controller/planes/consumerSide.ts';
import { PlanesController } from '../../../src/controller/planes/controller.ts';
import { installPlaneCrds } from '../../../src/controller/planes/crds.ts';
import type { PlaneTimings } from '../../../src/controller/planes/kropApi.ts';
import type { SweepAuthority } from '../../../src/controller/planes/sweeper.ts';
import type { KubeObject } from '../../../src/kube/index.ts';
import { KubeConfig } from '../../../src/kube/kubeconfig.ts';
import { RestClient } from '../../../src/kube/rest.ts';
import { dedicatedControlPlane, type TestControlPlane } from '../../support/controlPlane.ts';
import { eventually } from '../../support/kube.ts';

export { eventually };

export const CONTROLLER_NS = 'kgraph-system';
export const CONSUMER_NS = 'kgraph-consumer';
const CONSUMER_SA = 'kgraph';
export const SUBJECT = { namespace: CONSUMER_NS, name: CONSUMER_SA };

export interface Plane {
  cp: TestControlPlane;
  /** Admin client (system:masters). */
  admin: RestClient;
}

export interface Consumer extends Plane {
  /** ConsumerCluster name in the management cluster. */
  name: string;
  /** The identity kgraph has in this cluster. */
  subject: string;
}

export interface Planes {
  management: Plane;
  host: Plane;
  consumers: Consumer[];
}

async function plane(): Promise<Plane> {
  const cp = await dedicatedControlPlane({ workloads: false });
  return { cp, admin: new RestClient(cp.kc) };
}

export const apply = (c: RestClient, o: KubeObject): Promise<KubeObject> =>
  c.apply(o, { fieldManager: 'test', force: true });

export function yamlObjects(file: string): KubeObject[] {
  return parseAllDocuments(readFileSync(file, 'utf8')).map((d) => d.toJS() as KubeObject);
}

export function ns(name: string): KubeObject {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name } };
}

/** Starts the planes in parallel and registers each consumer (kubeconfig Secret + ConsumerCluster). */
export async function startPlanes(
  consumers: number,
  opts: { selector?: Record<string, unknown>; hostIsManagement?: boolean } = {},
): Promise<Planes> {
  const shared = opts.hostIsManagement === true;
  const all = await Promise.all(Array.from({ length: consumers + (shared ? 1 : 2) }, () => plane()));
  const [management, ...others] = all as [Plane, ...Plane[]];
  // One cluster serving both planes: the host plane is the management cluster reached again, with a
  // client of its own, as `--host-kubeconfig` pointing at the management cluster would.
  const host = shared
    ? { cp: management.cp, admin: new RestClient(management.cp.kc) }
    : (others.shift() as Plane);
  const rest = others;
  await installPlaneCrds(management.admin);
  await apply(management.admin, ns(CONTROLLER_NS));
  const out: Consumer[] = [];
  for (const [i, p] of rest.entries()) {
    const name = `consumer-${i + 1}`;
    const text = await serviceAccountKubeconfig(p.admin, SUBJECT, 7200);
    await apply(management.admin, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: `${name}-kubeconfig`, namespace: CONTROLLER_NS },
      data: { kubeconfig: Buffer.from(text).toString('base64') },
    });
    out.push({ ...p, name, subject: `system:serviceaccount:${CONSUMER_NS}:${CONSUMER_SA}` });
  }
  for (const c of out) await registerConsumer(management, c, opts.selector ?? {});
  return { management, host, consumers: out };
}

export async function registerConsumer(
  management: Plane,
  c: Consumer,
  selector: Record<string, unknown>,
): Promise<void> {
  await apply(management.admin, {
    apiVersion: 'krop.opendefense.cloud/v1alpha1',
    kind: 'ConsumerCluster',
    metadata: { name: c.name },
    spec: {
      kubeconfigSecretRef: { name: `${c.name}-kubeconfig`, key: 'kubeconfig' },
      blueprintSelector: selector,
    },
  });
}

/**
 * The consumer grants the generated roles to kgraph's identity (design/planes.md §10.2): the serving role always, the
 * claims role when `claims` (cluster-wide, or per namespace with RoleBindings).
 */
export async function grant(
  c: Consumer,
  exportName: string,
  instance: { group: string; plural: string },
  claims: Parameters<typeof generatedRoles>[2],
  what: { serve: boolean; claims: boolean | string[] },
): Promise<void> {
  const [serve, claimsRole] = generatedRoles(exportName, instance, claims) as unknown as [
    KubeObject,
    KubeObject,
  ];
  await apply(c.admin, serve);
  await apply(c.admin, claimsRole);
  if (what.serve) await bindRole(c.admin, serve.metadata.name ?? '', SUBJECT);
  if (what.claims === true) await bindRole(c.admin, claimsRole.metadata.name ?? '', SUBJECT);
  else if (Array.isArray(what.claims))
    await bindRole(c.admin, claimsRole.metadata.name ?? '', SUBJECT, what.claims);
}

export const FAST: Partial<PlaneTimings> = {
  heartbeatMs: 1_000,
  resyncMs: 3_000,
  ssarTtlMs: 300,
  sweepIntervalMs: 3_600_000,
  staleAfterMs: 3_600_000,
  startupGraceMs: 3_600_000,
};

export interface ControllerOptions {
  /** false: no host plane (`--host-kubeconfig` absent). */
  host?: boolean;
  timings?: Partial<PlaneTimings>;
  now?: () => Date;
  /** The controller's identities (default: admin clients of the management and host planes). */
  client?: RestClient;
  hostClient?: RestClient;
  sweepAuthority?: SweepAuthority;
}

export async function startController(p: Planes, opts: ControllerOptions = {}): Promise<PlanesController> {
  const controller = new PlanesController({
    client: opts.client ?? new RestClient(p.management.cp.kc),
    ...(opts.host === false ? {} : { host: opts.hostClient ?? new RestClient(p.host.cp.kc) }),
    namespace: CONTROLLER_NS,
    ...(opts.now ? { now: opts.now } : {}),
    timings: { ...FAST, ...(opts.timings ?? {}) },
    // One controller per test file: it may sweep (design/planes.md §13.4; sweeper.test.ts covers the refusals).
    sweepAuthority: opts.sweepAuthority ?? { singleReplica: true },
    log: process.env.KGRAPH_TEST_LOG_FILE
      ? pino(
          { level: process.env.KGRAPH_TEST_LOG_LEVEL ?? 'debug' },
          pino.destination(process.env.KGRAPH_TEST_LOG_FILE),
        )
      : pino({ level: 'silent' }),
  });
  await controller.start();
  return controller;
}

export async function stopController(c: PlanesController | undefined): Promise<void> {
  if (!c) return;
  await c.stop();
  c.client.close();
  c.host?.close();
}

export function closePlanes(p: Planes | undefined): void {
  if (!p) return;
  for (const x of [p.management, p.host, ...p.consumers]) x.admin.close();
}

/** What a planes test file sets up before its tests, in this order; every step is optional. */
export interface PlanesFixtureOptions {
  /** Consumer clusters (default 1). */
  consumers?: number;
  /** The host plane is the management cluster itself (no host cluster of its own). */
  hostIsManagement?: boolean;
  /** Namespaces created in the first consumer cluster. */
  namespaces?: string[];
  /** Runs once the planes are up, before the controller starts (CRDs, policies, identities). */
  prepare?: () => Promise<unknown>;
  /** How the controller starts; a function is called after `prepare`. */
  controller?: ControllerOptions | (() => ControllerOptions);
  /** Applied in the management cluster once the controller runs. */
  blueprints?: KubeObject[];
  /**
   * Blueprints the first consumer grants (the serving and claims roles) once they are published; the
   * fixture then waits until that consumer serves each of them and reads its cluster ID.
   */
  grants?: string[];
  /** Runs last, before the tests (instances, waits). */
  finish?: () => Promise<unknown>;
}

/** The planes of a test file, once its `before` hook has run. */
export interface PlanesFixture extends Planes {
  /** The first consumer cluster. */
  readonly consumer: Consumer;
  readonly controller: PlanesController;
  /** The first consumer's cluster ID, read once its `grants` are served ('' without grants). */
  readonly clusterId: string;
}

/**
 * The controller and cluster setup every planes test file shares: `before` starts the planes (a
 * management, a host and `consumers` consumer clusters) and the controller as `opts` says, `after`
 * stops them. Call it in the file's `describe`; the returned object answers once `before` has run.
 */
export function planesFixture(opts: PlanesFixtureOptions = {}): PlanesFixture {
  let planes: Planes | undefined;
  let controller: PlanesController | undefined;
  let clusterId = '';
  const started = (): Planes => {
    if (!planes) throw new Error('the planes are not started yet (planesFixture starts them in before)');
    return planes;
  };
  const fixture: PlanesFixture = {
    get management() {
      return started().management;
    },
    get host() {
      return started().host;
    },
    get consumers() {
      return started().consumers;
    },
    get consumer() {
      return started().consumers[0] as Consumer;
    },
    get controller() {
      if (!controller) throw new Error('the planes controller is not started yet');
      return controller;
    },
    get clusterId() {
      return clusterId;
    },
  };
  before(async () => {
    planes = await startPlanes(opts.consumers ?? 1, { hostIsManagement: opts.hostIsManagement === true });
    for (const n of opts.namespaces ?? []) await apply(fixture.consumer.admin, ns(n));
    await opts.prepare?.();
    const controllerOpts = typeof opts.controller === 'function' ? opts.controller() : opts.controller;
    controller = await startController(planes, controllerOpts);
    for (const b of opts.blueprints ?? []) await apply(planes.management.admin, b);
    const grants = opts.grants ?? [];
    for (const b of grants) await grantPublished(planes, fixture.consumer, b);
    for (const b of grants) await waitEntry(planes, fixture.consumer, b);
    if (grants.length > 0) clusterId = await clusterIdOf(planes, fixture.consumer);
    await opts.finish?.();
  });
  after(async () => {
    await stopController(controller);
    closePlanes(planes);
  });
  return fixture;
}

export interface Cond {
  type: string;
  status: string;
  reason: string;
  message: string;
  observedGeneration?: number;
  lastTransitionTime?: string;
}

export function cond(o: KubeObject | undefined, type: string): Cond | undefined {
  return (o?.status as { conditions?: Cond[] } | undefined)?.conditions?.find((c) => c.type === type);
}

export function getObj(c: RestClient, apiVersion: string, kind: string, name: string, namespace?: string) {
  return c.getOrUndefined({ apiVersion, kind, name, ...(namespace ? { namespace } : {}) });
}

export const BP = (name: string) => ({
  apiVersion: 'krop.opendefense.cloud/v1alpha1',
  kind: 'ResourceGraphDefinition',
  name,
});

/** Waits until a blueprint is `Ready=True/Published` and returns it. */
export function waitPublished(p: Planes, name: string): Promise<KubeObject> {
  return eventually(
    `${name} published`,
    async () => {
      const b = await p.management.admin.get(BP(name));
      return cond(b, 'Ready')?.reason === 'Published' ? b : undefined;
    },
    60_000,
  );
}

/** Waits until a consumer cluster serves `count` blueprints and returns its registration. */
export function waitServed(p: Planes, c: Consumer, count = 1): Promise<KubeObject> {
  return eventually(
    `${c.name} serves ${count} blueprint(s)`,
    async () => {
      const o = await p.management.admin.get({
        apiVersion: 'krop.opendefense.cloud/v1alpha1',
        kind: 'ConsumerCluster',
        name: c.name,
      });
      const bps = (o.status as { blueprints?: { served: boolean }[] } | undefined)?.blueprints ?? [];
      return bps.length === count && bps.every((b) => b.served) ? o : undefined;
    },
    60_000,
  );
}

// ------------------------------------------------------------------ blueprints and instances

export const GROUP = 'krop.opendefense.cloud';
export const AV = `${GROUP}/v1alpha1`;

/** A krop blueprint of `kind` in GROUP; `schema` adds `spec`/`status` SimpleSchema fields. */
export function blueprint(
  name: string,
  kind: string,
  resources: unknown[],
  schema: Record<string, unknown> = {},
  labels?: Record<string, string>,
): KubeObject {
  return {
    apiVersion: AV,
    kind: 'ResourceGraphDefinition',
    metadata: { name, ...(labels ? { labels } : {}) },
    spec: { schema: { apiVersion: 'v1alpha1', kind, group: GROUP, ...schema }, resources },
  };
}

/** A ConfigMap template (CEL allowed in every string). */
export const cmT = (name: string, data: Record<string, string> = {}, namespace?: string) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, ...(namespace ? { namespace } : {}) },
  data,
});

/** An instance of a blueprint kind in GROUP. */
export function instanceOf(
  kind: string,
  name: string,
  namespace: string | undefined,
  spec: Record<string, unknown>,
  annotations?: Record<string, string>,
): KubeObject {
  return {
    apiVersion: AV,
    kind,
    metadata: { name, ...(namespace ? { namespace } : {}), ...(annotations ? { annotations } : {}) },
    spec,
  };
}

/** The export name and instance GR of a published blueprint. */
export function exportOf(b: KubeObject): { exportName: string; group: string; plural: string } {
  const exportName = (b.status as { exportedAPI: string }).exportedAPI;
  return { exportName, group: GROUP, plural: exportName.slice(0, exportName.indexOf('.')) };
}

/** Waits for a blueprint to publish, then has the consumer apply and bind its generated roles. */
export async function grantPublished(
  p: Planes,
  c: Consumer,
  name: string,
  what: { serve: boolean; claims: boolean | string[] } = { serve: true, claims: true },
): Promise<KubeObject> {
  const b = await waitPublished(p, name);
  const { exportName, group, plural } = exportOf(b);
  await grant(c, exportName, { group, plural }, (b.status as { claims: never }).claims, what);
  return b;
}

/** Waits until an object satisfies `ok` and returns it. */
export function waitFor(
  what: string,
  read: () => Promise<KubeObject | undefined>,
  ok: (o: KubeObject) => boolean,
  timeoutMs = 60_000,
): Promise<KubeObject> {
  return eventually(
    what,
    async () => {
      const o = await read();
      return o && ok(o) ? o : undefined;
    },
    timeoutMs,
  );
}

/** Waits until `read` returns nothing. */
export function waitGone(what: string, read: () => Promise<KubeObject | undefined>, timeoutMs = 60_000) {
  return eventually(what, async () => ((await read()) === undefined ? true : undefined), timeoutMs);
}

/** The Ready reason of an object is `reason` (optionally on its current generation). */
export const readyReason =
  (reason: string, currentGeneration = false) =>
  (o: KubeObject): boolean => {
    const r = cond(o, 'Ready');
    return r?.reason === reason && (!currentGeneration || r.observedGeneration === o.metadata.generation);
  };

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The ConsumerCluster registration of a consumer. */
export const registration = (p: Planes, c: Consumer) =>
  p.management.admin.getOrUndefined({ apiVersion: AV, kind: 'ConsumerCluster', name: c.name });

/** The cluster ID kgraph gave a consumer. */
export async function clusterIdOf(p: Planes, c: Consumer): Promise<string> {
  const o = await waitFor(
    `${c.name} has a cluster ID`,
    () => registration(p, c),
    (x) => Boolean((x.spec as { clusterID?: string }).clusterID),
  );
  return (o.spec as { clusterID: string }).clusterID;
}

/** A consumer cluster's per-blueprint serving entries (design/planes.md §3.3.1 status.blueprints). */
export interface ServeEntry {
  name: string;
  served: boolean;
  reason: string;
  message: string;
}

export function serveEntries(o: KubeObject | undefined): ServeEntry[] {
  return (o?.status as { blueprints?: ServeEntry[] } | undefined)?.blueprints ?? [];
}

/** Waits until a consumer cluster's entry for blueprint `name` satisfies `ok` (default: served). */
export async function waitEntry(
  p: Planes,
  c: Consumer,
  name: string,
  ok: (e: ServeEntry) => boolean = (e) => e.served,
): Promise<ServeEntry> {
  const o = await waitFor(
    `${c.name}: entry of ${name}`,
    () => registration(p, c),
    (x) => serveEntries(x).some((e) => e.name === name && ok(e)),
  );
  return serveEntries(o).find((e) => e.name === name) as ServeEntry;
}

/** A client holding a ServiceAccount token (created if missing) of a plane: that identity, nothing more. */
export async function serviceAccountClient(admin: RestClient, sa: { namespace: string; name: string }) {
  const kc = new KubeConfig();
  kc.loadFromString(await serviceAccountKubeconfig(admin, sa, 7200));
  return new RestClient(kc);
}
