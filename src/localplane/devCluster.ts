/**
 * The persistent local control plane for development (`kgraph cluster up|down`):
 * a detached kube-testenv with fsync'd etcd under a data dir, so its data, ports
 * and certificates survive restarts. By default it runs workloads: the workload
 * controllers, kube-scheduler and KWOK-simulated nodes (no container runs).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { KgraphError } from '../diag/diagnostic.ts';
import { pidAlive } from './childProcess.ts';
import {
  type ReadyLine,
  repoRoot,
  sourceKeyedBinary,
  startLocalControlPlane,
  testenvBinary,
} from './localControlPlane.ts';

export const defaultDevDataDir = (): string =>
  resolve(process.env.KGRAPH_DEV_DIR ?? join(process.cwd(), '.dev', 'cluster'));

export interface DevClusterStatus {
  running: boolean;
  dataDir: string;
  ready?: ReadyLine;
}

export function devClusterStatus(dataDir: string): DevClusterStatus {
  const readyFile = join(dataDir, 'ready.json');
  if (!existsSync(readyFile)) return { running: false, dataDir };
  try {
    const ready = JSON.parse(readFileSync(readyFile, 'utf8')) as ReadyLine;
    if (ready.pid && pidAlive(ready.pid)) return { running: true, dataDir, ready };
  } catch {
    // a torn file means the server is not in a known state; treat as stopped
  }
  return { running: false, dataDir };
}

function goAvailable(): boolean {
  try {
    execFileSync('go', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * The control-plane binary for the current sources: the cached build keyed by their hash when it
 * exists, else built through tools/kube-testenv/build.sh (needs Go), else, without Go, whatever
 * build `.cache/bin/kube-testenv` links to. KUBE_TESTENV_BIN is used as is.
 */
export function ensureTestenvBinary(log: (line: string) => void): string {
  if (process.env.KUBE_TESTENV_BIN) return process.env.KUBE_TESTENV_BIN;
  const keyed = sourceKeyedBinary();
  if (keyed && existsSync(keyed)) return keyed;
  const fallback = testenvBinary();
  const script = join(repoRoot, 'tools', 'kube-testenv', 'build.sh');
  if (existsSync(fallback) && (!existsSync(script) || !goAvailable())) return fallback;
  if (!existsSync(script))
    throw new KgraphError('KG6005', `cannot build the control plane: ${script} is missing`);
  log(
    'building the local control plane from Go modules (first time, or after its sources changed; several minutes)…',
  );
  try {
    execFileSync('bash', [script], { stdio: ['ignore', 'ignore', 'inherit'] });
  } catch (err) {
    throw new KgraphError(
      'KG6006',
      `building the control plane failed (is Go >= 1.26 installed?): ${(err as Error).message}`,
    );
  }
  return testenvBinary();
}

export interface DevClusterShape {
  /** Workload controllers, scheduler and simulated nodes. Default true. */
  workloads?: boolean;
  /** Simulated nodes (default 3) and the zones they spread over (default 2). */
  nodes?: number;
  zones?: number;
}

export async function devClusterUp(
  dataDir: string,
  log: (line: string) => void,
  shape: DevClusterShape = {},
): Promise<{ ready: ReadyLine; reused: boolean }> {
  const status = devClusterStatus(dataDir);
  if (status.running && status.ready) {
    const workloads = shape.workloads ?? true;
    if (workloads !== (status.ready.withWorkloads ?? false))
      log(
        `note: the running control plane has workloads ${status.ready.withWorkloads ? 'on' : 'off'}; ` +
          `'kgraph cluster down' and up again to change that`,
      );
    return { ready: status.ready, reused: true };
  }
  rmSync(join(dataDir, 'ready.json'), { force: true });
  const binary = ensureTestenvBinary(log);
  const plane = await startLocalControlPlane({
    binary,
    dataDir,
    ephemeral: false,
    withControllers: true,
    withWorkloads: shape.workloads ?? true,
    ...(shape.nodes !== undefined ? { nodes: shape.nodes } : {}),
    ...(shape.zones !== undefined ? { zones: shape.zones } : {}),
    detached: true,
    extraArgs: ['--cert-validity=8760h'],
  });
  return { ready: plane, reused: false };
}

export async function devClusterDown(dataDir: string): Promise<boolean> {
  const status = devClusterStatus(dataDir);
  if (!status.running || !status.ready) return false;
  const pid = status.ready.pid;
  process.kill(pid, 'SIGTERM');
  const deadline = Date.now() + 30_000;
  while (pidAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
  if (pidAlive(pid)) process.kill(pid, 'SIGKILL');
  rmSync(join(dataDir, 'ready.json'), { force: true });
  return true;
}
