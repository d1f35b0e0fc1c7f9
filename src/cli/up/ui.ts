/**
 * The `kgraph ui` page of `kgraph up` when `up` returns: a detached `kgraph ui` process
 * beside the background controller, with the user's (the data dir's admin) kubeconfig. It records
 * its pid and the address it actually serves on in `<data-dir>/ui.json` once it listens, so `up`
 * prints that address, a later `up` reuses the running page, and `down` stops it.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { KgraphError } from '../../diag/diagnostic.ts';
import { pidAlive } from '../../localplane/childProcess.ts';
import { spawnDetachedKgraph } from './detached.ts';

export interface UiRecord {
  pid: number;
  url: string;
}

export const uiRecordPath = (dataDir: string): string => join(dataDir, 'ui.json');

/** The page a detached `kgraph ui` of this data dir serves, if that process still runs. */
export function runningUi(dataDir: string): UiRecord | undefined {
  try {
    const r = JSON.parse(readFileSync(uiRecordPath(dataDir), 'utf8')) as Partial<UiRecord>;
    return typeof r.pid === 'number' && typeof r.url === 'string' && pidAlive(r.pid)
      ? { pid: r.pid, url: r.url }
      : undefined;
  } catch {
    return undefined;
  }
}

/** Starts `kgraph ui` detached, logging to `logFile`; resolves once it serves (its record written). */
export async function startDetachedUi(
  kubeconfig: string,
  addr: string,
  dataDir: string,
  logFile: string,
  timeoutMs = 60_000,
): Promise<UiRecord> {
  const record = uiRecordPath(dataDir);
  rmSync(record, { force: true });
  const pid = spawnDetachedKgraph(
    ['ui', '--kubeconfig', kubeconfig, '--addr', addr, '--record', record],
    logFile,
  );
  if (pid === undefined) throw new KgraphError('KG6084', 'could not start the kgraph ui process');
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (existsSync(record)) {
      const r = runningUi(dataDir);
      if (r) return r;
    }
    if (!pidAlive(pid)) break;
    await new Promise((res) => setTimeout(res, 100));
  }
  if (pidAlive(pid)) process.kill(pid, 'SIGTERM');
  throw new KgraphError(
    'KG6084',
    `kgraph ui did not start serving within ${timeoutMs / 1000}s (log: ${logFile})`,
  );
}

/** Stops the detached `kgraph ui` of this data dir; the record of what was stopped, if any. */
export async function stopUi(dataDir: string): Promise<UiRecord | undefined> {
  const r = runningUi(dataDir);
  if (r) {
    process.kill(r.pid, 'SIGTERM');
    const deadline = Date.now() + 10_000;
    while (pidAlive(r.pid) && Date.now() < deadline) await new Promise((res) => setTimeout(res, 100));
    if (pidAlive(r.pid)) process.kill(r.pid, 'SIGKILL');
  }
  rmSync(uiRecordPath(dataDir), { force: true });
  return r;
}
