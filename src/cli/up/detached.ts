/**
 * A `kgraph` command run as a detached background process with its output appended to a log file: how `up`
 * leaves the controller and the ui page running after it returns (`down` stops them by pid).
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../../localplane/localControlPlane.ts';

/** Starts `kgraph <args…>` detached, logging to `logFile`; its pid (undefined when it could not start). */
export function spawnDetachedKgraph(args: readonly string[], logFile: string): number | undefined {
  const fd = openSync(logFile, 'a');
  const child = spawn(process.execPath, [join(repoRoot, 'bin', 'kgraph.js'), ...args], {
    detached: true,
    stdio: ['ignore', fd, fd],
  });
  closeSync(fd);
  child.unref();
  return child.pid;
}
