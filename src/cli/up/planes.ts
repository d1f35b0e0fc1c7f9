/**
 * `kgraph up --planes`: three kinds of local control planes — management, host and
 * `--consumers N` consumer clusters (default 2) — the planes controller in the background, the
 * HostedDatabase example blueprint (examples/planes/) with a VPC in every consumer, each consumer registered with a ServiceAccount
 * token and granting the generated roles, one instance `db` per consumer; returns once they converge and
 * prints which object landed on which plane and the kubectl command for each plane. The host plane runs
 * workloads (scheduler, workload controllers, one simulated node), so the host Deployment of every
 * instance rolls out and is reported Available; the other planes hold only API objects.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { waitForCrd } from '../../controller/core/crdReady.ts';
import { generatedRoles } from '../../controller/planes/claims.ts';
import { bindRole, serviceAccountKubeconfig } from '../../controller/planes/consumerSide.ts';
import { CONSUMER_PLURAL, KROP_GROUP } from '../../controller/planes/kropApi.ts';
import { qualifiedName } from '../../controller/planes/naming.ts';
import { kubectlNameIn } from '../../diag/objectName.ts';
import { KubeConfig } from '../../kube/kubeconfig.ts';
import { RestClient } from '../../kube/rest.ts';
import type { KubeObject } from '../../kube/types.ts';
import { devClusterUp } from '../../localplane/devCluster.ts';
import { freePort } from '../../localplane/freePort.ts';
import { repoRoot } from '../../localplane/localControlPlane.ts';
import { spawnDetachedKgraph } from './detached.ts';

const FM = 'kgraph-up';
const NS = 'kgraph-system';
const AV = 'krop.opendefense.cloud/v1alpha1';
const TEAM = 'team-a';
const SA = { namespace: 'kgraph-consumer', name: 'kgraph' };

export interface UpPlanesOptions {
  consumers: number;
  dataDir: string;
  timeoutMs: number;
}

const apply = (c: RestClient, o: KubeObject) => c.apply(o, { fieldManager: FM, force: true });
const yamlDocs = (f: string) => parseAllDocuments(readFileSync(f, 'utf8')).map((d) => d.toJS() as KubeObject);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string, deadline: number, probe: () => Promise<T | undefined>): Promise<T> {
  for (;;) {
    const v = await probe().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(500);
  }
}

function readyOf(o: KubeObject | undefined): { status?: string; reason?: string } | undefined {
  return (
    o?.status as { conditions?: { type: string; status: string; reason: string }[] } | undefined
  )?.conditions?.find((c) => c.type === 'Ready');
}

function clientFor(kubeconfig: string): RestClient {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfig);
  return new RestClient(kc);
}

/** One local control plane of `up --planes`, with an admin client. */
interface Plane {
  name: string;
  dir: string;
  kubeconfig: string;
  admin: RestClient;
}

/**
 * `kgraph up --planes`: start the planes → seed them → start the planes controller → wait for the blueprint
 * to be published → connect each consumer → wait for each consumer's instance → print where things are.
 */
export async function runUpPlanes(opts: UpPlanesOptions, out: (l: string) => void): Promise<number> {
  const deadline = Date.now() + opts.timeoutMs;
  const planes = await startPlanes(opts, out);
  const [mgmt, host, ...consumers] = planes as [Plane, Plane, ...Plane[]];
  const [vpcCrd] = yamlDocs(join(repoRoot, 'examples/planes/00-vpc-crd.yaml')) as [KubeObject];
  const [blueprint] = yamlDocs(join(repoRoot, 'examples/planes/10-hosteddatabase.yaml')) as [KubeObject];
  await apply(mgmt.admin, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  await apply(mgmt.admin, vpcCrd);
  await apply(host.admin, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'databases' } });
  const pid = await startPlanesController(opts, mgmt, host, out);
  const roles = await publishBlueprint(mgmt, blueprint, deadline);

  // The controller installs the ConsumerCluster CRD after the blueprint's, in the same group-version:
  // this client's discovery may still hold that group-version's list from before it (a fresh-clone CI
  // run failed with "no resource for kind ConsumerCluster"). waitForCrd re-reads discovery until served.
  await waitForCrd(mgmt.admin, `${CONSUMER_PLURAL}.${KROP_GROUP}`, Math.max(1_000, deadline - Date.now()));
  for (const [i, c] of consumers.entries()) await connectConsumer(mgmt, c, i, vpcCrd, roles, deadline);
  const lines: string[] = [];
  for (const c of consumers) lines.push(...(await consumerReport(mgmt, host, c, deadline)));
  out('');
  out(...[lines.join('\n')]);
  out('');
  out('kubectl for each plane:');
  for (const p of planes) out(`  ${p.name.padEnd(11)} kubectl --kubeconfig ${resolve(p.kubeconfig)} get …`);
  out('');
  out(`stop: kill ${pid}; then for each plane: npx kgraph cluster down --data-dir ${opts.dataDir}/<plane>`);
  for (const p of planes) p.admin.close();
  return 0;
}

/** The management, host and consumer planes, started side by side. */
async function startPlanes(opts: UpPlanesOptions, out: (l: string) => void): Promise<Plane[]> {
  const names = [
    'management',
    'host',
    ...Array.from({ length: opts.consumers }, (_, i) => `consumer-${i + 1}`),
  ];
  out(`starting ${names.length} control planes under ${opts.dataDir} …`);
  return Promise.all(
    names.map(async (n) => {
      const dir = join(opts.dataDir, n);
      mkdirSync(dir, { recursive: true });
      // Only the host plane runs pods (the HostedDatabase Deployment); one simulated node is enough.
      const { ready } = await devClusterUp(
        dir,
        () => undefined,
        n === 'host' ? { workloads: true, nodes: 1, zones: 1 } : { workloads: false },
      );
      return { name: n, dir, kubeconfig: ready.kubeconfig, admin: clientFor(ready.kubeconfig) };
    }),
  );
}

/** The planes controller, in the background; returns its pid. */
async function startPlanesController(
  opts: UpPlanesOptions,
  mgmt: Plane,
  host: Plane,
  out: (l: string) => void,
): Promise<number | undefined> {
  const logFile = join(opts.dataDir, 'controller.log');
  const metricsPort = await freePort();
  const pid = spawnDetachedKgraph(
    [
      'controller',
      '--planes',
      '--no-graphs',
      '--no-rgds',
      '--kubeconfig',
      mgmt.kubeconfig,
      '--host-kubeconfig',
      host.kubeconfig,
      '--single-replica',
      '--metrics-addr',
      `127.0.0.1:${metricsPort}`,
      '--health-addr',
      '0',
    ],
    logFile,
  );
  out(`planes controller started (pid ${pid}, log ${logFile})`);
  out(`metrics: http://127.0.0.1:${metricsPort}/metrics (kgraph_planes_*)`);
  return pid;
}

/** Applies the blueprint and waits until it is published; returns the roles its consumers grant. */
async function publishBlueprint(mgmt: Plane, blueprint: KubeObject, deadline: number): Promise<KubeObject[]> {
  await apply(mgmt.admin, blueprint).catch(async () => {
    await until('the blueprint CRD', deadline, async () => (await apply(mgmt.admin, blueprint)) && true);
  });
  const published = await until('blueprint hosteddatabase Published', deadline, async () => {
    const b = await mgmt.admin.getOrUndefined({
      apiVersion: AV,
      kind: 'ResourceGraphDefinition',
      name: 'hosteddatabase',
    });
    return readyOf(b)?.reason === 'Published' ? b : undefined;
  });
  const st = published.status as { exportedAPI: string; claims: never };
  const plural = st.exportedAPI.slice(0, st.exportedAPI.indexOf('.'));
  const roles = generatedRoles(
    st.exportedAPI,
    { group: 'krop.opendefense.cloud', plural },
    st.claims,
  ) as unknown as KubeObject[];
  return roles;
}

/** A consumer cluster: its CRD, namespace, service account and roles, registered with the management plane. */
async function connectConsumer(
  mgmt: Plane,
  c: Plane,
  i: number,
  vpcCrd: KubeObject,
  roles: readonly KubeObject[],
  deadline: number,
): Promise<void> {
  await apply(c.admin, vpcCrd);
  await apply(c.admin, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: TEAM } });
  const text = await serviceAccountKubeconfig(c.admin, SA);
  for (const r of roles) {
    await apply(c.admin, r);
    await bindRole(c.admin, r.metadata.name ?? '', SA);
  }
  await apply(mgmt.admin, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: `${c.name}-kubeconfig`, namespace: NS },
    data: { kubeconfig: Buffer.from(text).toString('base64') },
  });
  await apply(mgmt.admin, {
    apiVersion: AV,
    kind: 'ConsumerCluster',
    metadata: { name: c.name },
    spec: {
      kubeconfigSecretRef: { name: `${c.name}-kubeconfig`, key: 'kubeconfig' },
      blueprintSelector: {},
    },
  });
  const vpc = {
    apiVersion: 'ec2.services.k8s.aws/v1alpha1',
    kind: 'VPC',
    metadata: { name: 'db-vpc', namespace: TEAM },
  };
  await until(
    'the VPC type',
    deadline,
    async () => (await apply(c.admin, { ...vpc, spec: { cidrBlock: '10.0.0.0/16' } })) && true,
  );
  await c.admin.applyStatus({ ...vpc, status: { vpcID: `vpc-${i + 1}` } }, { fieldManager: FM, force: true });
}

/** Waits until a consumer serves the blueprint and its instance is Ready; the lines that say where it all is. */
async function consumerReport(mgmt: Plane, host: Plane, c: Plane, deadline: number): Promise<string[]> {
  const cc = await until(`${c.name} serving`, deadline, async () => {
    const o = await mgmt.admin.getOrUndefined({ apiVersion: AV, kind: 'ConsumerCluster', name: c.name });
    return (o?.status as { blueprints?: { served: boolean }[] } | undefined)?.blueprints?.[0]?.served
      ? o
      : undefined;
  });
  const id = (cc.spec as { clusterID: string }).clusterID;
  const instance = {
    apiVersion: AV,
    kind: 'HostedDatabase',
    metadata: { name: 'db', namespace: TEAM },
    spec: { name: 'db' },
  };
  await until('the HostedDatabase type', deadline, async () => (await apply(c.admin, instance)) && true);
  const inst = await until(`${c.name} HostedDatabase db Ready`, deadline, async () => {
    const o = await c.admin.getOrUndefined({
      apiVersion: AV,
      kind: 'HostedDatabase',
      namespace: TEAM,
      name: 'db',
    });
    return readyOf(o)?.status === 'True' ? o : undefined;
  });
  const s = inst.status as { endpoint?: string; vpcID?: string };
  const deploy = await until(`host Deployment databases/${id}-db Available`, deadline, async () => {
    const d = await host.admin.getOrUndefined({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      namespace: 'databases',
      name: `${id}-db`,
    });
    const available = (
      d?.status as { conditions?: { type: string; status: string }[] } | undefined
    )?.conditions?.some((x) => x.type === 'Available' && x.status === 'True');
    return available ? d : undefined;
  });
  const ds = deploy.status as { availableReplicas?: number };
  const want = (deploy.spec as { replicas?: number }).replicas ?? 1;
  const named = (apiVersion: string, kind: string, namespace: string, name: string) =>
    kubectlNameIn({ apiVersion, kind, namespace, name });
  return [
    `${c.name} (cluster ID ${id}): ${named(AV, 'HostedDatabase', TEAM, 'db')} Ready, endpoint ${s.endpoint}, vpcID ${s.vpcID}`,
    `  consumer   ${c.name}: ${named('ec2.services.k8s.aws/v1alpha1', 'VPC', TEAM, 'db-vpc')} (read only), ${named('v1', 'ConfigMap', TEAM, 'db-connection')}`,
    `  host       host: ${named('apps/v1', 'Deployment', 'databases', `${id}-db`)} Available (${ds.availableReplicas ?? 0}/${want})`,
    `  provider   management: ${named('v1', 'ConfigMap', 'default', qualifiedName(id, TEAM, 'db', 'db-registration', 'ConfigMap'))}`,
  ];
}
