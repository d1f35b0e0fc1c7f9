/**
 * Shared setup of the kro conformance ports. kro's suite runs on envtest, where no workload controller
 * runs: its tests write a Deployment's status by hand to open a readiness gate. Our shared plane runs
 * the real controllers, which would overwrite such a status; the scenarios that need it run on a plane
 * of their own without workloads (still with the garbage collector), so the status stays as written.
 */
import pino from 'pino';
import { RgdController } from '../../../src/controller/rgd/controller.ts';
import { RestClient } from '../../../src/kube/rest.ts';
import type { KubeObject } from '../../../src/kube/types.ts';
import {
  dedicatedControlPlane,
  sharedControlPlane,
  type TestControlPlane,
  uniqueName,
} from '../../support/controlPlane.ts';
import { testNamespace } from '../../support/kube.ts';
import {
  ensureRgdCrd,
  eventually,
  type RgdFixture,
  rgdFixture,
  startRgdController,
  stopRgdController,
} from '../rgd/support.ts';

let handPlane: Promise<TestControlPlane> | undefined;

/** A plane without workload controllers, one per test process. */
export function planeWithoutWorkloads(): Promise<TestControlPlane> {
  handPlane ??= dedicatedControlPlane({ workloads: false });
  return handPlane;
}

/** Like `rgdFixture`, on the plane without workload controllers; `stop` closes the client too. */
export async function handStatusFixture(prefix: string): Promise<RgdFixture & { stop: () => Promise<void> }> {
  const plane = await planeWithoutWorkloads();
  const client = new RestClient(plane.kc);
  const ns = uniqueName(prefix);
  await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  const suite = uniqueName(prefix);
  const controller = await startRgdController(suite, ns, { plane });
  return {
    client,
    ns,
    suite,
    group: `${suite}.kgraph.test`,
    controller,
    stop: async () => {
      await stopRgdController(controller);
      client.close();
    },
  };
}

export interface Ref {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
}

/** Waits until the object exists (and `check` holds), returning it. */
export function present(
  client: RestClient,
  ref: Ref,
  check: (o: KubeObject) => boolean = () => true,
  timeoutMs = 30_000,
): Promise<KubeObject> {
  return eventually(
    `${ref.kind} ${ref.name}`,
    async () => {
      const o = await client.getOrUndefined(ref);
      return o && check(o) ? o : undefined;
    },
    timeoutMs,
  );
}

/** Fails if the object shows up at any poll during `ms` (kro's `Consistently … IsNotFound`). */
export async function staysAbsent(client: RestClient, ref: Ref, ms = 3_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if ((await client.getOrUndefined(ref)) !== undefined) {
      throw new Error(`${ref.kind} ${ref.name} exists but should not`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Writes a Deployment's status as available, as kro's envtest scenarios do by hand. */
export async function markDeploymentAvailable(client: RestClient, ns: string, name: string): Promise<void> {
  const d = await client.get({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: ns, name });
  const replicas = (d.spec as { replicas?: number }).replicas ?? 1;
  await client.update(
    {
      ...d,
      status: {
        replicas,
        readyReplicas: replicas,
        availableReplicas: replicas,
        conditions: [
          {
            type: 'Available',
            status: 'True',
            reason: 'MinimumReplicasAvailable',
            message: 'Deployment has minimum availability.',
          },
        ],
      },
    },
    { subresource: 'status' },
  );
}

export const cmRef = (namespace: string, name: string): Ref => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  namespace,
  name,
});
export const deployRef = (namespace: string, name: string): Ref => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  namespace,
  name,
});

/** A ConfigMap's data ({} when it has none). */
export function dataOf(o: KubeObject | undefined): Record<string, string> {
  return ((o as { data?: Record<string, string> } | undefined)?.data ?? {}) as Record<string, string>;
}

/** kro's closing steps of most scenarios: delete the instance, see it gone, delete the RGD, see it gone. */
export async function deleteInstanceThenRgd(
  client: RestClient,
  f: { group: string; ns: string },
  kind: string,
  name: string,
  rgdName: string,
): Promise<void> {
  const inst = { apiVersion: `${f.group}/v1alpha1`, kind, namespace: f.ns, name };
  await client.delete(inst);
  await eventually(`${kind} ${name} deleted`, async () =>
    (await client.getOrUndefined(inst)) === undefined ? true : undefined,
  );
  const r = { apiVersion: 'kro.run/v1alpha1', kind: 'ResourceGraphDefinition', name: rgdName };
  await client.delete(r);
  await eventually(`RGD ${rgdName} deleted`, async () =>
    (await client.getOrUndefined(r)) === undefined ? true : undefined,
  );
}

/** Waits until the object is gone. */
export function absent(client: RestClient, ref: Ref, timeoutMs = 30_000): Promise<true> {
  return eventually(
    `${ref.kind} ${ref.name} gone`,
    async () => ((await client.getOrUndefined(ref)) === undefined ? true : undefined),
    timeoutMs,
  );
}

/** Writes a Job's status as complete, as kro's envtest scenarios do by hand. */
export async function markJobComplete(client: RestClient, ns: string, name: string): Promise<void> {
  const job = await client.get({ apiVersion: 'batch/v1', kind: 'Job', namespace: ns, name });
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const cond = (type: string, reason: string, message: string) => ({
    type,
    status: 'True',
    lastProbeTime: now,
    lastTransitionTime: now,
    reason,
    message,
  });
  await client.update(
    {
      ...job,
      status: {
        conditions: [
          cond(
            'SuccessCriteriaMet',
            'JobSuccessCriteriaMet',
            'Job has successfully completed all of its specified success criteria',
          ),
          cond('Complete', 'CompletionsReached', 'Job has reached the specified number of completions'),
        ],
        startTime: now,
        completionTime: now,
        succeeded: 1,
      },
    },
    { subresource: 'status' },
  );
}

/** Fails if `holds` is false at any poll during `ms` (kro's `Consistently`). */
export async function holdsFor(what: string, holds: () => Promise<boolean>, ms = 3_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (!(await holds())) throw new Error(`${what} stopped holding`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Like `rgdFixture`, with a controller that deletes an RGD's CRD with it (kro's suite runs that way). */
export async function crdDeletingFixture(prefix: string): Promise<RgdFixture> {
  const f = await rgdFixture(prefix);
  await stopRgdController(f.controller);
  const controller = await startRgdController(f.suite, f.ns, { deleteCrds: true });
  return { ...f, controller };
}

/**
 * Like `rgdFixture`, with a second namespace the controller also watches (`ns2`), for kro scenarios
 * whose instances live in two namespaces.
 */
export async function twoNamespaceFixture(prefix: string): Promise<RgdFixture & { ns2: string }> {
  const f = await rgdFixture(prefix);
  await stopRgdController(f.controller);
  const ns2 = await testNamespace(`${prefix}-b`);
  await ensureRgdCrd();
  const controller = new RgdController({
    client: new RestClient((await sharedControlPlane()).kc),
    rgdSelector: `kgraph.test/suite=${f.suite}`,
    namespaces: [f.ns, ns2],
    installCrd: false,
    concurrency: 4,
    deleteCrds: false,
    log: pino({ level: process.env.KGRAPH_TEST_LOG_LEVEL ?? 'silent' }),
  });
  await controller.start();
  return { ...f, ns2, controller };
}

/** The group of the ACK EC2 kinds kro's envtest carries; we install stand-ins (ackCrd). */
export const ACK_GROUP = 'ec2.services.k8s.aws';

/** A namespaced stand-in of an ACK kind (the fields kro's scenarios use), with a status subresource. */
export function ackCrd(
  kind: string,
  spec: Record<string, unknown>,
  status: Record<string, unknown>,
): KubeObject {
  const plural = `${kind.toLowerCase()}s`;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${ACK_GROUP}` },
    spec: {
      group: ACK_GROUP,
      scope: 'Namespaced',
      names: { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List` },
      versions: [
        {
          name: 'v1alpha1',
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: { type: 'object', properties: spec },
                status: { type: 'object', properties: status },
              },
            },
          },
        },
      ],
    },
  };
}
