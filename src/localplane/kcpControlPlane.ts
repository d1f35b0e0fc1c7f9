/**
 * Starts and stops a local kcp (github.com/kcp-dev/kcp, built by tools/kcp-testenv/build.sh) on
 * loopback, and creates the workspaces a test or a developer asks for. kcp runs its own embedded
 * etcd; every instance gets free ports of its own, so several can run side by side. Like
 * localControlPlane.ts this only spawns a process and waits; API traffic goes through the REST layer.
 *
 * kcp has no stdin watchdog: a non-detached instance is killed when this process exits.
 */
import { type ChildProcess, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { KgraphError } from '../diag/diagnostic.ts';
import { KubeConfig } from '../kube/kubeconfig.ts';
import { RestClient } from '../kube/rest.ts';
import { logTail, spawnLogged } from './childProcess.ts';
import { freePort } from './freePort.ts';
import { repoRoot } from './localControlPlane.ts';

export interface KcpStartOptions {
  /** kcp's --root-directory: etcd data, PKI and admin.kubeconfig. */
  dataDir: string;
  /** Where kcp's stderr goes; default `<dataDir>/kcp.log`. */
  logFile?: string;
  /** Keep running after this process exits (`kgraph cluster up --kcp`). Default false. */
  detached?: boolean;
  /** Default 180 s: kcp is ready in about 36 s on a quiet 2-core machine. */
  readyTimeoutMs?: number;
  binary?: string;
}

/** What a started kcp writes to `<dataDir>/kcp-ready.json` and returns. */
export interface KcpReady {
  /** The shard's base URL, without a /clusters/… path. */
  server: string;
  /** kcp's admin.kubeconfig (contexts root, base, system:admin). */
  kubeconfig: string;
  pid: number;
}

export interface KcpControlPlane extends KcpReady {
  dataDir: string;
  logFile: string;
  readonly process: ChildProcess;
  /** An admin KubeConfig whose server is the logical cluster at `path` (e.g. `root:provider`). */
  kubeConfigFor(path: string): KubeConfig;
  /**
   * Creates (or reuses) the workspace `name` under `parent` (default `root`), waits until it is
   * Ready, and returns its logical-cluster path (`root:name`) with an admin KubeConfig for it.
   */
  workspace(name: string, parent?: string): Promise<KcpWorkspace>;
  stop(): Promise<void>;
}

export interface KcpWorkspace {
  path: string;
  /** The logical cluster name kcp assigned (spec.cluster), e.g. `2x9v3kfp1q0o4c1m`. */
  cluster: string;
  kc: KubeConfig;
  /** A kubeconfig file for kubectl. */
  kubeconfigPath: string;
}

/** The build of the current wrapper (`.cache/bin/kcp-<sha256(go.mod go.sum)[:16]>`), as build.sh keys it. */
export function kcpSourceKeyedBinary(): string | undefined {
  const dir = join(repoRoot, 'tools', 'kcp-testenv');
  try {
    const hash = createHash('sha256');
    for (const f of ['go.mod', 'go.sum']) hash.update(readFileSync(join(dir, f)));
    return join(repoRoot, '.cache', 'bin', `kcp-${hash.digest('hex').slice(0, 16)}`);
  } catch {
    return undefined;
  }
}

/**
 * The kcp binary: KCP_BIN, else the cached build of the wrapper, else built now through
 * tools/kcp-testenv/build.sh (needs Go; about 15 minutes cold) when `build` is set.
 */
export function kcpBinary(opts: { build: boolean; log?: (line: string) => void }): string {
  if (process.env.KCP_BIN) return process.env.KCP_BIN;
  const keyed = kcpSourceKeyedBinary();
  if (keyed && existsSync(keyed)) return keyed;
  const script = join(repoRoot, 'tools', 'kcp-testenv', 'build.sh');
  if (!opts.build || !existsSync(script)) {
    throw new KgraphError(
      'KG6030',
      `kcp binary not found${keyed ? ` at ${keyed}` : ''}; build it with 'bash tools/kcp-testenv/build.sh' (needs Go, about 15 minutes cold), or point KCP_BIN at one`,
    );
  }
  opts.log?.('building kcp from Go modules (first time: about 15 minutes on 2 cores)…');
  try {
    return execFileSync('bash', [script], { stdio: ['ignore', 'pipe', 'inherit'] })
      .toString()
      .trim();
  } catch (err) {
    throw new KgraphError('KG6031', `building kcp failed: ${(err as Error).message}`);
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The admin KubeConfig of a kcp, re-pointed at one logical cluster. */
function adminConfigFor(kubeconfigPath: string, server: string, path: string): KubeConfig {
  const base = new KubeConfig();
  base.loadFromFile(kubeconfigPath);
  const user = base.getContextObject('base')?.user ?? base.getCurrentUser()?.name;
  const admin = base.users.find((u) => u.name === user) ?? base.getCurrentUser();
  const cluster = base.getCluster(base.getContextObject('base')?.cluster ?? '') ?? base.getCurrentCluster();
  if (!admin || !cluster) throw new KgraphError('KG6032', `${kubeconfigPath} has no usable admin context`);
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ ...cluster, name: path, server: `${server}/clusters/${path}` }],
    users: [{ ...admin, name: 'kcp-admin' }],
    contexts: [{ name: path, cluster: path, user: 'kcp-admin' }],
    currentContext: path,
  });
  return kc;
}

async function waitReady(server: string, kubeconfig: string, child: ChildProcess, deadline: number) {
  let last = 'no answer yet';
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`kcp exited (code ${child.exitCode})`);
    if (existsSync(kubeconfig)) {
      const client = new RestClient(adminConfigFor(kubeconfig, server, 'root'));
      try {
        // Serving starts before kcp's bootstrap has written the root workspace types; a workspace
        // created before then is refused ("parent type cannot be resolved"), so wait for them.
        for (const t of ['root', 'universal'])
          await client.request({ method: 'GET', path: `/apis/tenancy.kcp.io/v1alpha1/workspacetypes/${t}` });
        return;
      } catch (err) {
        last = (err as Error).message;
      } finally {
        client.close();
      }
    }
    await sleep(500);
  }
  throw new Error(`not ready (${last})`);
}

export async function startKcp(opts: KcpStartOptions): Promise<KcpControlPlane> {
  const binary = opts.binary ?? kcpBinary({ build: false });
  if (!existsSync(binary)) throw new KgraphError('KG6030', `kcp binary not found at ${binary}`);
  mkdirSync(opts.dataDir, { recursive: true });
  const logFile = opts.logFile ?? join(opts.dataDir, 'kcp.log');
  const [port, etcdClient, etcdPeer] = [await freePort(), await freePort(), await freePort()];
  const server = `https://127.0.0.1:${port}`;
  const args = [
    'start',
    `--root-directory=${opts.dataDir}`,
    '--bind-address=127.0.0.1',
    `--secure-port=${port}`,
    `--embedded-etcd-client-port=${etcdClient}`,
    `--embedded-etcd-peer-port=${etcdPeer}`,
  ];
  const kcp = await spawnLogged(binary, args, {
    logFile,
    stdio: (log) => ['ignore', log, log],
    detached: opts.detached ?? false,
  });
  const { child } = kcp;
  const killOnExit = () => child.kill('SIGKILL');
  if (!opts.detached) process.once('exit', killOnExit);
  const kubeconfig = join(opts.dataDir, 'admin.kubeconfig');
  const timeoutMs = opts.readyTimeoutMs ?? 180_000;
  try {
    await waitReady(server, kubeconfig, child, Date.now() + timeoutMs);
  } catch (err) {
    child.kill('SIGKILL');
    throw new KgraphError(
      'KG6033',
      `kcp not ready after ${timeoutMs} ms: ${(err as Error).message}; see ${logFile}${logTail(logFile, 6)}`,
    );
  }
  const ready: KcpReady = { server, kubeconfig, pid: child.pid ?? 0 };
  writeFileSync(join(opts.dataDir, 'kcp-ready.json'), `${JSON.stringify(ready)}\n`);
  if (opts.detached) child.unref();
  const plane: KcpControlPlane = {
    ...ready,
    dataDir: opts.dataDir,
    logFile,
    process: child,
    kubeConfigFor: (path) => adminConfigFor(kubeconfig, server, path),
    workspace: (name, parent = 'root') => createWorkspace({ ...ready, dataDir: opts.dataDir }, name, parent),
    stop: () =>
      kcp.stop(() => {
        process.removeListener('exit', killOnExit);
        child.kill('SIGTERM');
      }, 20_000),
  };
  return plane;
}

interface WorkspaceObject {
  spec?: { URL?: string; cluster?: string };
  status?: { phase?: string };
}

/**
 * Creates (or reuses) the workspace `name` under `parent` of a running kcp, waits until it is Ready,
 * and writes an admin kubeconfig for it into the kcp's data dir.
 */
export async function createWorkspace(
  plane: KcpReady & { dataDir: string },
  name: string,
  parent = 'root',
): Promise<KcpWorkspace> {
  const configFor = (path: string) => adminConfigFor(plane.kubeconfig, plane.server, path);
  const client = new RestClient(configFor(parent));
  const path = `/apis/tenancy.kcp.io/v1alpha1/workspaces`;
  try {
    try {
      await client.request({
        method: 'POST',
        path,
        body: { apiVersion: 'tenancy.kcp.io/v1alpha1', kind: 'Workspace', metadata: { name }, spec: {} },
      });
    } catch (err) {
      if (!/already exists|AlreadyExists|409/.test((err as Error).message)) throw err;
    }
    const deadline = Date.now() + 120_000;
    for (;;) {
      const ws = (await client.request({ method: 'GET', path: `${path}/${name}` })) as WorkspaceObject;
      if (ws.status?.phase === 'Ready' && ws.spec?.cluster) {
        const full = `${parent}:${name}`;
        const kc = configFor(full);
        const kubeconfigPath = join(plane.dataDir, `${full.replaceAll(':', '_')}.kubeconfig`);
        writeFileSync(kubeconfigPath, kc.exportConfig());
        return { path: full, cluster: ws.spec.cluster, kc, kubeconfigPath };
      }
      if (Date.now() > deadline)
        throw new KgraphError(
          'KG6034',
          `workspace ${parent}:${name} not Ready after 120 s (phase ${ws.status?.phase})`,
        );
      await sleep(300);
    }
  } finally {
    client.close();
  }
}

/** The kcp a data dir holds, when its process still runs (`kgraph cluster status|down --kcp`). */
export function kcpStatus(dataDir: string): KcpReady | undefined {
  try {
    const ready = JSON.parse(readFileSync(join(dataDir, 'kcp-ready.json'), 'utf8')) as KcpReady;
    process.kill(ready.pid, 0);
    return ready;
  } catch {
    return undefined; // no file, a torn file, or the process is gone
  }
}

/** Stops the detached kcp of a data dir; false when none runs. Its data is kept. */
export async function stopKcp(dataDir: string): Promise<boolean> {
  const ready = kcpStatus(dataDir);
  if (!ready) return false;
  process.kill(ready.pid, 'SIGTERM');
  const deadline = Date.now() + 20_000;
  while (kcpStatus(dataDir) && Date.now() < deadline) await sleep(200);
  if (kcpStatus(dataDir)) process.kill(ready.pid, 'SIGKILL');
  return true;
}
