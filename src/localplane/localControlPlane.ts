/**
 * Starts and stops the local control plane built from tools/kube-testenv (an
 * in-process kube-apiserver over an embedded etcd). Used by the integration-test
 * harness (one ephemeral plane per run) and by `kgraph cluster up` (a persistent
 * plane under a data dir). Only spawns a process and reads its ready line; all API
 * traffic goes through the REST layer.
 */
import type { ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { KgraphError } from '../diag/diagnostic.ts';
import { logTail, spawnLogged } from './childProcess.ts';

/** The JSON object kube-testenv prints on stdout once /readyz answers 200. */
export interface ReadyLine {
  ready: true;
  server: string;
  kubeconfig: string;
  etcd: string;
  pid: number;
  withControllers: boolean;
  /** Workload controllers, kube-scheduler and KWOK nodes run (older binaries omit it). */
  withWorkloads?: boolean;
  /** Names of the simulated nodes, Ready when the line is printed. */
  nodes?: string[] | null;
  /** The OTLP/gRPC trace receiver's address with `--trace-receiver` (spans in `<dataDir>/traces.jsonl`). */
  otlp?: string;
}

export interface StartOptions {
  /** Directory for etcd, PKI, ports and the admin kubeconfig. */
  dataDir: string;
  /** etcd without fsync (tests). Default true. */
  ephemeral?: boolean;
  /** Run the garbage-collector and namespace controllers too. */
  withControllers?: boolean;
  /**
   * Run the workload controllers (Deployment, Job, StatefulSet, EndpointSlice, …), kube-scheduler
   * and KWOK-simulated nodes, so pods are scheduled and report Running/Ready (no container runs).
   * Implies withControllers.
   */
  withWorkloads?: boolean;
  /** Simulated nodes with withWorkloads (binary default 3). */
  nodes?: number;
  /** Zones the nodes are spread over, round-robin (binary default 2). */
  zones?: number;
  /** Where the server's stderr goes; default `<dataDir>/apiserver.log`. */
  logFile?: string;
  /** Keep running after this process exits (dev cluster). Default false. */
  detached?: boolean;
  readyTimeoutMs?: number;
  extraApiserverArgs?: string[];
  /** Extra flags for kube-testenv itself, e.g. --cert-validity=8760h. */
  extraArgs?: string[];
  binary?: string;
}

export interface LocalControlPlane extends ReadyLine {
  dataDir: string;
  logFile: string;
  /** Closes stdin (the watchdog terminates the server) and waits for exit. */
  stop(): Promise<void>;
  /**
   * Lets this process exit while the server runs; the server still stops when
   * this process ends, because its stdin closes then.
   */
  unref(): void;
  readonly process: ChildProcess;
}

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * The build of the current Go sources: `.cache/bin/kube-testenv-<key>`, with the key computed as
 * tools/kube-testenv/build.sh computes it (sha256 of go.mod, go.sum and the sorted *.go files, first
 * 16 hex digits). Undefined when the sources are absent.
 */
export function sourceKeyedBinary(): string | undefined {
  const dir = join(repoRoot, 'tools', 'kube-testenv');
  try {
    const goFiles = readdirSync(dir)
      .filter((f) => f.endsWith('.go'))
      .sort();
    const hash = createHash('sha256');
    for (const f of ['go.mod', 'go.sum', ...goFiles]) hash.update(readFileSync(join(dir, f)));
    return join(repoRoot, '.cache', 'bin', `kube-testenv-${hash.digest('hex').slice(0, 16)}`);
  } catch {
    return undefined;
  }
}

/**
 * The binary path: KUBE_TESTENV_BIN, else the cached build of the current sources, else the
 * `.cache/bin/kube-testenv` link (the last build made). Preferring the keyed build keeps a worktree
 * on its own sources' binary when several worktrees share one `.cache` and relink it.
 */
export function testenvBinary(): string {
  if (process.env.KUBE_TESTENV_BIN) return process.env.KUBE_TESTENV_BIN;
  const keyed = sourceKeyedBinary();
  if (keyed && existsSync(keyed)) return keyed;
  return join(repoRoot, '.cache', 'bin', 'kube-testenv');
}

export async function startLocalControlPlane(opts: StartOptions): Promise<LocalControlPlane> {
  const binary = opts.binary ?? testenvBinary();
  if (!existsSync(binary)) {
    throw new KgraphError(
      'KG6001',
      `control-plane binary not found at ${binary}; build it with 'npm run testenv:build' (needs Go), or point KUBE_TESTENV_BIN at one`,
    );
  }
  mkdirSync(opts.dataDir, { recursive: true });
  const logFile = opts.logFile ?? join(opts.dataDir, 'apiserver.log');
  const args = ['--data-dir', opts.dataDir, `--ephemeral=${opts.ephemeral ?? true}`];
  if (opts.withControllers) args.push('--with-controllers');
  if (opts.withWorkloads) args.push('--with-workloads');
  if (opts.nodes !== undefined) args.push(`--nodes=${opts.nodes}`);
  if (opts.zones !== undefined) args.push(`--zones=${opts.zones}`);
  if (opts.detached) args.push('--exit-on-stdin-close=false');
  for (const a of opts.extraApiserverArgs ?? []) args.push(`--apiserver-arg=${a}`);
  args.push(...(opts.extraArgs ?? []));

  const server = await spawnLogged(binary, args, {
    logFile,
    stdio: (log) => ['pipe', 'pipe', opts.detached ? log : 'pipe'],
    detached: opts.detached ?? false,
  });
  const { child } = server;
  if (!opts.detached) child.stderr?.pipe(server.log);

  const timeoutMs = opts.readyTimeoutMs ?? 90_000;
  const ready = await new Promise<ReadyLine>((res, rej) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      rej(new KgraphError('KG6002', `control plane not ready after ${timeoutMs} ms; see ${logFile}`));
    }, timeoutMs);
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      try {
        const parsed = JSON.parse(line) as Partial<ReadyLine>;
        if (parsed.ready === true && typeof parsed.server === 'string') {
          clearTimeout(timer);
          res(parsed as ReadyLine);
        }
      } catch {
        // not the ready line; the server only prints that one to stdout
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      rej(
        new KgraphError(
          'KG6003',
          // A stale binary names the flag it does not know in the last lines.
          `control plane exited before it was ready (code ${code}, signal ${signal}); see ${logFile}${logTail(logFile, 4)}`,
        ),
      );
    });
    child.once('error', (err) => {
      clearTimeout(timer);
      rej(new KgraphError('KG6004', `cannot start control plane: ${err.message}`));
    });
  });

  if (opts.detached) {
    // Let this process exit while the server keeps running.
    child.stdout?.destroy();
    child.stdin?.destroy();
    child.unref();
  }

  return {
    ...ready,
    dataDir: opts.dataDir,
    logFile,
    process: child,
    stop: () => server.stop(() => child.stdin?.end(), 30_000),
    unref() {
      child.stdout?.destroy();
      (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
      (child.stderr as unknown as { unref?: () => void } | null)?.unref?.();
      child.unref();
    },
  };
}
