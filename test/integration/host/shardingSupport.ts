/**
 * What the sharding tests share: a control plane of their own whose API server writes an audit log of
 * every write (Leases left out), sharded `kgraph controller` replicas as child processes (each with its
 * own user agent, `kgraph/0.1 replica/<host>_<pid>`), their metrics, and the audit log's writes.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { installGraphCrd } from '../../../src/controller/graph/crd.ts';
import { KubeConfig } from '../../../src/kube/kubeconfig.ts';
import { RestClient } from '../../../src/kube/rest.ts';
import { startLocalControlPlane } from '../../../src/localplane/localControlPlane.ts';
import { freePort } from '../../support/controllerProcess.ts';
import { eventually } from '../../support/kube.ts';

export interface AuditedPlane {
  kubeconfigPath: string;
  client: RestClient;
  auditPath: string;
  stop(): Promise<void>;
}

const POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: None
  resources: [{group: coordination.k8s.io, resources: [leases]}]
- level: Metadata
  verbs: [create, update, patch, delete, deletecollection]
- level: None
`;

/** A plane of its own (no workloads) with an audit log of writes, the Graph CRD installed. */
export async function auditedPlane(): Promise<AuditedPlane> {
  const dataDir = mkdtempSync(join(tmpdir(), 'kgraph-shard-'));
  const policy = join(dataDir, 'audit-policy.yaml');
  const auditPath = join(dataDir, 'audit.log');
  writeFileSync(policy, POLICY);
  const plane = await startLocalControlPlane({
    dataDir: join(dataDir, 'plane'),
    ephemeral: true,
    withControllers: true,
    withWorkloads: false,
    extraApiserverArgs: [
      `--audit-policy-file=${policy}`,
      `--audit-log-path=${auditPath}`,
      '--audit-log-mode=blocking',
    ],
  });
  plane.unref();
  process.once('exit', () => rmSync(dataDir, { recursive: true, force: true }));
  const kc = new KubeConfig();
  kc.loadFromFile(plane.kubeconfig);
  const client = new RestClient(kc);
  await installGraphCrd(client);
  return {
    kubeconfigPath: plane.kubeconfig,
    client,
    auditPath,
    stop: async () => {
      client.close();
      await plane.stop();
    },
  };
}

export interface Replica {
  process: ChildProcess;
  port: number;
  /** `<host>_<pid>`: its membership Lease, its entries in the shard map, its user agent. */
  identity: string;
  exited: Promise<number | null>;
}

/**
 * A sharded `kgraph controller` (Graphs, RGDs, both, or the planes alone with their ConsumerCluster
 * Secrets in `namespace`) reconciling `namespace`, its Leases and map there too; `single` starts one
 * unsharded controller instead (what runs before an upgrade to sharded).
 */
export async function startReplica(
  kubeconfigPath: string,
  namespace: string,
  leaseSeconds: number,
  controllers: 'graphs' | 'rgds' | 'both' | 'planes' = 'graphs',
  mode: 'sharded' | 'single' = 'sharded',
  extraArgs: readonly string[] = [],
): Promise<Replica> {
  const which =
    controllers === 'graphs'
      ? ['--no-rgds']
      : controllers === 'rgds'
        ? ['--no-graphs']
        : controllers === 'both'
          ? []
          : ['--no-graphs', '--no-rgds', '--planes', '--planes-namespace', namespace];
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [
      'bin/kgraph.js',
      'controller',
      '--kubeconfig',
      kubeconfigPath,
      '--replicas-mode',
      mode,
      ...(mode === 'sharded' ? ['--leader-election-namespace', namespace] : []),
      '--namespace',
      namespace,
      '--lease-duration',
      `${leaseSeconds}s`,
      ...which,
      ...extraArgs,
      '--no-install-crd',
      '--concurrency',
      '4',
      '--metrics-addr',
      `127.0.0.1:${port}`,
      '--health-addr',
      `127.0.0.1:${port}`,
      '--log-level',
      process.env.KGRAPH_TEST_LOG_LEVEL ?? 'warn',
    ],
    // Logs go to stdout: shown when a log level is asked for (debugging a test), dropped otherwise.
    { stdio: ['ignore', process.env.KGRAPH_TEST_LOG_LEVEL ? 'inherit' : 'ignore', 'inherit'] },
  );
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { process: child, port, identity: `${hostname()}_${child.pid}`, exited };
}

/** A gauge or counter of a replica's /metrics (the sum over its series matching `labels`). */
export async function metric(r: Replica, name: string, labels = ''): Promise<number | undefined> {
  const res = await fetch(`http://127.0.0.1:${r.port}/metrics`).catch(() => undefined);
  if (!res?.ok) return undefined;
  const text = await res.text();
  let sum: number | undefined;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (labels && !line.includes(labels)) continue;
    sum = (sum ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

export async function waitReady(r: Replica, timeoutMs = 90_000): Promise<void> {
  await eventually(
    `replica ${r.identity} ready`,
    async () =>
      (await fetch(`http://127.0.0.1:${r.port}/readyz`).catch(() => undefined))?.ok ? true : undefined,
    timeoutMs,
    200,
  );
}

export async function stopReplica(r: Replica | undefined, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (!r || r.process.exitCode !== null || r.process.signalCode !== null) return;
  r.process.kill('SIGCONT');
  r.process.kill(signal);
  await r.exited;
}

export interface AuditWrite {
  verb: string;
  userAgent: string;
  resource: string;
  /** `status` for a status write, '' otherwise. */
  subresource: string;
  namespace: string;
  name: string;
  code: number;
  /** When the API server finished the request (ms since the epoch). */
  at: number;
}

/** The writes of the audit log (ResponseComplete), Leases excluded by the policy. */
export function auditWrites(auditPath: string): AuditWrite[] {
  let text = '';
  try {
    text = readFileSync(auditPath, 'utf8');
  } catch {
    return [];
  }
  const out: AuditWrite[] = [];
  for (const line of text.split('\n')) {
    if (!line) continue;
    const e = JSON.parse(line) as {
      stage: string;
      verb: string;
      userAgent?: string;
      objectRef?: { resource?: string; subresource?: string; namespace?: string; name?: string };
      responseStatus?: { code?: number };
      stageTimestamp: string;
    };
    if (e.stage !== 'ResponseComplete') continue;
    out.push({
      verb: e.verb,
      userAgent: e.userAgent ?? '',
      resource: e.objectRef?.resource ?? '',
      subresource: e.objectRef?.subresource ?? '',
      namespace: e.objectRef?.namespace ?? '',
      name: e.objectRef?.name ?? '',
      code: e.responseStatus?.code ?? 0,
      at: Date.parse(e.stageTimestamp),
    });
  }
  return out;
}
