/** Running `kgraph controller` as a child process against the shared test control plane. */
import { type ChildProcess, spawn } from 'node:child_process';
import { eventually } from './kube.ts';

export { freePort } from '../../src/localplane/freePort.ts';

/**
 * Spawns `kgraph controller` with the kubeconfig, health and metrics on `port`, no CRD install and
 * warn-level logs (stderr inherited), plus `args`.
 */
export function spawnController(kubeconfigPath: string, port: number, args: string[]): ChildProcess {
  return spawn(
    process.execPath,
    [
      'bin/kgraph.js',
      'controller',
      '--kubeconfig',
      kubeconfigPath,
      ...args,
      '--metrics-addr',
      `127.0.0.1:${port}`,
      '--health-addr',
      `127.0.0.1:${port}`,
      '--no-install-crd',
      '--log-level',
      'warn',
    ],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
}

/** Waits until the controller's `/readyz` on `port` answers 200. */
export async function waitReadyz(
  port: number,
  what = 'readyz',
  timeoutMs = 60_000,
  intervalMs = 100,
): Promise<true> {
  return eventually(
    what,
    async () => {
      const r = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined);
      return r?.status === 200 ? true : undefined;
    },
    timeoutMs,
    intervalMs,
  );
}
