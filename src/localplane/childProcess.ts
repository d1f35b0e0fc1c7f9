/**
 * A server binary run as a child process with its output in a log file: what the local control plane
 * (`localControlPlane.ts`, kube-testenv) and a local kcp (`kcpControlPlane.ts`) share. They differ in
 * how they say they are ready (a JSON line on stdout, a kubeconfig that answers) and how they are asked
 * to stop (stdin closed, SIGTERM).
 */
import { type ChildProcess, type StdioOptions, spawn } from 'node:child_process';
import { createWriteStream, readFileSync, type WriteStream } from 'node:fs';

export interface LoggedChild {
  readonly child: ChildProcess;
  /** The log file, opened for appending. */
  readonly log: WriteStream;
  /** Resolves once the child has exited. */
  readonly exited: Promise<void>;
  /**
   * Asks the child to stop (`ask`), kills it (SIGKILL) if it still runs after `killAfterMs`, waits for
   * its exit and closes the log.
   */
  stop(ask: () => void, killAfterMs: number): Promise<void>;
}

export interface SpawnLoggedOptions {
  logFile: string;
  /** The child's stdio, given the open log (a stream with a descriptor, which spawn can hand over). */
  stdio: (log: WriteStream) => StdioOptions;
  detached: boolean;
}

/** Opens the log file, then spawns `binary` with its stdio as `opts.stdio` says. */
export async function spawnLogged(
  binary: string,
  args: string[],
  opts: SpawnLoggedOptions,
): Promise<LoggedChild> {
  const log = createWriteStream(opts.logFile, { flags: 'a' });
  await new Promise<void>((res, rej) => {
    log.once('open', () => res());
    log.once('error', rej);
  });
  const child = spawn(binary, args, { stdio: opts.stdio(log), detached: opts.detached });
  const exited = new Promise<void>((res) => {
    if (child.exitCode !== null) res();
    else child.once('exit', () => res());
  });
  return {
    child,
    log,
    exited,
    async stop(ask, killAfterMs) {
      ask();
      const timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
      await exited;
      clearTimeout(timer);
      log.end();
    },
  };
}

/** The last lines of a log, for an error message (`:\n  line…`); empty when it cannot be read. */
export function logTail(logFile: string, lines: number): string {
  try {
    return `:\n  ${readFileSync(logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n  ')}`;
  } catch {
    return '';
  }
}

/** Whether a process of this pid runs (signal 0 tests without sending anything). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
