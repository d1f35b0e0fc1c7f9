/**
 * The `kgraph ui` page of `kgraph up` when `up` returns: a detached `kgraph ui` process
 * beside the background controller, with the user's (the data dir's admin) kubeconfig. It records
 * its pid and the address it actually serves on in `<data-dir>/ui.json` once it listens, so `up`
 * prints that address, a later `up` reuses the running page, and `down` stops it.
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { KgraphError } from '../../diag/diagnostic.ts';
import { repoRoot } from '../../localplane/localControlPlane.ts';

export interface UiRecord {
  pid: number;
  url: string;
}

export const uiRecordPath = (dataDir: string): string => join(dataDir, 'ui.json');

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The page a detached `kgraph ui` of this data dir serves, if that process still runs. */
export function runningUi(dataDir: string): UiRecord | undefined {
  try {
    const r = JSON.parse(readFileSync(uiRecordPath(dataDir), 'utf8')) as Partial<UiRecord>;
    return typeof r.pid === 'number' && typeof r.url === 'string' && alive(r.pid)
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
  const fd = openSync(logFile, 'a');
  const child = spawn(
    process.execPath,
    [
      join(repoRoot, 'bin', 'kgraph.js'),
      'ui',
      '--kubeconfig',
      kubeconfig,
      '--addr',
      addr,
      '--record',
      record,
    ],
    { detached: true, stdio: ['ignore', fd, fd] },
  );
  closeSync(fd);
  child.unref();
  const pid = child.pid;
  if (pid === undefined) throw new KgraphError('KG6084', 'could not start the kgraph ui process');
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (existsSync(record)) {
      const r = runningUi(dataDir);
      if (r) return r;
    }
    if (!alive(pid)) break;
    await new Promise((res) => setTimeout(res, 100));
  }
  if (alive(pid)) process.kill(pid, 'SIGTERM');
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
    while (alive(r.pid) && Date.now() < deadline) await new Promise((res) => setTimeout(res, 100));
    if (alive(r.pid)) process.kill(r.pid, 'SIGKILL');
  }
  rmSync(uiRecordPath(dataDir), { force: true });
  return r;
}
