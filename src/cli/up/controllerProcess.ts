/**
 * The controller `kgraph up` leaves running: a detached `kgraph controller` process whose pid is recorded in
 * `<data-dir>/controller.pid`, so a second `up` reuses it and `down` knows what to stop.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { KgraphError } from '../../diag/diagnostic.ts';
import { pidAlive } from '../../localplane/childProcess.ts';
import { spawnDetachedKgraph } from './detached.ts';

export interface PidFile {
  pid: number;
  mode: 'foreground' | 'detached';
}

export const pidFilePath = (dataDir: string): string => join(dataDir, 'controller.pid');

export function runningController(dataDir: string): PidFile | undefined {
  try {
    const p = JSON.parse(readFileSync(pidFilePath(dataDir), 'utf8')) as PidFile;
    return typeof p.pid === 'number' && pidAlive(p.pid) ? p : undefined;
  } catch {
    return undefined;
  }
}

/** Stops the controller recorded in the data dir (SIGTERM, then SIGKILL after 15 s). */
export async function stopController(dataDir: string): Promise<PidFile | undefined> {
  const p = runningController(dataDir);
  if (p) {
    process.kill(p.pid, 'SIGTERM');
    const deadline = Date.now() + 15_000;
    while (pidAlive(p.pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    if (pidAlive(p.pid)) process.kill(p.pid, 'SIGKILL');
  }
  rmSync(pidFilePath(dataDir), { force: true });
  return p;
}

/** Starts `kgraph controller` as a detached process logging to `logFile`; returns its pid. */
export function startDetachedController(kubeconfig: string, logFile: string): number {
  const pid = spawnDetachedKgraph(
    [
      'controller',
      '--kubeconfig',
      kubeconfig,
      '--metrics-addr',
      '0',
      '--health-addr',
      '0',
      '--no-install-crd',
    ],
    logFile,
  );
  if (pid === undefined) throw new KgraphError('KG6083', 'could not start the controller process');
  return pid;
}
