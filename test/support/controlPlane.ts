/**
 * The integration tests' view of the control plane: the one started by
 * test/support/runTests.ts for the whole run (KGRAPH_TEST_KUBECONFIG), or, when a
 * file runs on its own under plain `node --test`, one started for this process.
 *
 * The shared plane runs workloads (scheduler, workload controllers, KWOK nodes)
 * unless the run sets KGRAPH_TEST_WORKLOADS=0. A file that needs another shape
 * (no workloads, other nodes or zones) starts its own with `dedicatedControlPlane`;
 * one that needs workloads uses `workloadControlPlane`, which is the shared plane
 * when that runs them and a dedicated one otherwise.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '../../src/kube/kubeconfig.ts';
import { startLocalControlPlane } from '../../src/localplane/localControlPlane.ts';

export interface TestControlPlane {
  server: string;
  kubeconfigPath: string;
  kc: KubeConfig;
  logFile: string | undefined;
  /** Pods get scheduled onto simulated nodes and report Running/Ready. */
  workloads: boolean;
  /** The simulated nodes' names ([] without workloads). */
  nodes: string[];
  /** Stops the API server (dedicated planes only; the shared plane outlives every file). */
  stop?: () => Promise<void>;
  /** With `traceReceiver`: the OTLP/gRPC receiver's address and the file of the spans it received. */
  otlp?: { address: string; spansFile: string };
}

export interface PlaneShape {
  workloads: boolean;
  nodes?: number;
  zones?: number;
  /** Run kube-testenv's OTLP trace receiver and trace kube-apiserver into it (docs/observability.md). */
  traceReceiver?: boolean;
}

/** Whether the run's shared plane runs workloads: KGRAPH_TEST_WORKLOADS=0 turns them off. */
export function sharedPlaneRunsWorkloads(): boolean {
  return process.env.KGRAPH_TEST_WORKLOADS !== '0';
}

function fromKubeconfig(
  kubeconfigPath: string,
  logFile: string | undefined,
  workloads: boolean,
  nodes: string[],
): TestControlPlane {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfigPath);
  return { server: kc.getCurrentCluster()?.server ?? '', kubeconfigPath, kc, logFile, workloads, nodes };
}

/**
 * A control plane of its own for this test process, shaped as asked; it exits with the process
 * (its stdin closes then). Costs a few seconds: use it only when the shared plane's shape is wrong.
 */
export async function dedicatedControlPlane(shape: PlaneShape): Promise<TestControlPlane> {
  const dataDir = mkdtempSync(join(tmpdir(), 'kgraph-testenv-'));
  const plane = await startLocalControlPlane({
    dataDir,
    ephemeral: true,
    withControllers: true,
    withWorkloads: shape.workloads,
    ...(shape.nodes !== undefined ? { nodes: shape.nodes } : {}),
    ...(shape.zones !== undefined ? { zones: shape.zones } : {}),
    ...(shape.traceReceiver ? { extraArgs: ['--trace-receiver'] } : {}),
  });
  plane.unref();
  // The plane outlives nothing of ours: its etcd WAL and log would otherwise stay in the temporary
  // folder after every file that starts one (the planes files start three or more each), and a
  // full CI run filled a small disk that way (ENOSPC). Removing the folder while the child is
  // still exiting is safe: open files are freed when it closes them.
  process.once('exit', () => rmSync(dataDir, { recursive: true, force: true }));
  return {
    ...fromKubeconfig(plane.kubeconfig, plane.logFile, plane.withWorkloads ?? false, plane.nodes ?? []),
    stop: () => plane.stop(),
    ...(plane.otlp ? { otlp: { address: plane.otlp, spansFile: join(dataDir, 'traces.jsonl') } } : {}),
  };
}

/** A dedicated plane whose API server can be stopped and started again over the same etcd data. */
export interface RestartableControlPlane extends TestControlPlane {
  /** Kills the server (etcd and kube-apiserver: one process); its port refuses connections until `start`. */
  stop(): Promise<void>;
  /** Starts it again on the same data directory: same ports, certificates and objects. Resolves when ready. */
  start(): Promise<void>;
}

/**
 * A control plane of its own that a test can take down and bring back (an API server outage). Without
 * workloads or controllers: a restart then costs only etcd and kube-apiserver starting.
 */
export async function restartableControlPlane(): Promise<RestartableControlPlane> {
  const dataDir = mkdtempSync(join(tmpdir(), 'kgraph-testenv-'));
  // etcd with fsync: the data must survive the server's exit as a real outage would leave it.
  const opts = { dataDir, ephemeral: false, withControllers: false, withWorkloads: false };
  let plane: Awaited<ReturnType<typeof startLocalControlPlane>> | undefined =
    await startLocalControlPlane(opts);
  plane.unref();
  process.once('exit', () => rmSync(dataDir, { recursive: true, force: true }));
  const base = fromKubeconfig(plane.kubeconfig, plane.logFile, false, []);
  return {
    ...base,
    async stop() {
      const p = plane;
      plane = undefined;
      if (!p) return;
      if (p.process.exitCode !== null || p.process.signalCode !== null) return;
      // Waited for: the exit must keep the event loop alive (the child was unref'd).
      p.process.ref();
      const exited = new Promise((r) => p.process.once('exit', r));
      p.process.kill('SIGKILL'); // an outage, not a maintenance: no goodbye to the clients
      await exited;
    },
    async start() {
      if (plane) return;
      plane = await startLocalControlPlane(opts);
      plane.unref();
    },
  };
}

let shared: Promise<TestControlPlane> | undefined;

export function sharedControlPlane(): Promise<TestControlPlane> {
  shared ??= (async () => {
    const kubeconfigPath = process.env.KGRAPH_TEST_KUBECONFIG;
    if (!kubeconfigPath) return dedicatedControlPlane({ workloads: sharedPlaneRunsWorkloads() });
    const nodes = (process.env.KGRAPH_TEST_NODES ?? '').split(',').filter((n) => n !== '');
    return fromKubeconfig(kubeconfigPath, process.env.KGRAPH_TEST_LOG, sharedPlaneRunsWorkloads(), nodes);
  })();
  return shared;
}

let withWorkloads: Promise<TestControlPlane> | undefined;

/** A plane that runs workloads: the shared one when it does, else one started for this process. */
export function workloadControlPlane(): Promise<TestControlPlane> {
  withWorkloads ??= sharedPlaneRunsWorkloads()
    ? sharedControlPlane()
    : dedicatedControlPlane({ workloads: true });
  return withWorkloads;
}

let counter = 0;
/** A name unique within this run, valid as a DNS-1123 label. */
export function uniqueName(prefix: string): string {
  counter += 1;
  const rand = Math.random().toString(36).slice(2, 7);
  return `${prefix}-${process.pid.toString(36)}-${counter}-${rand}`.toLowerCase().slice(0, 63);
}
