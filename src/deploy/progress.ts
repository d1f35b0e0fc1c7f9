/**
 * Live progress for `kgraph deploy`: a listr2 task list in a terminal (one task
 * per object, running as the DAG schedules it), plain timestamped lines otherwise
 * (CI logs, pipes).
 */
import { Listr } from 'listr2';
import type { DeployEvent, DeployResult } from './deployer.ts';
import { keyName } from './inventory.ts';

const TERMINAL = new Set(['ready', 'failed', 'skipped', 'pruned']);

export function plainLine(e: DeployEvent): string {
  const secs = (e.at / 1000).toFixed(1).padStart(6);
  return `${secs}s ${e.type.padEnd(12)} ${keyName(e.key)}${e.message ? `  ${e.message}` : ''}`;
}

/** How often plain progress says what it still waits for when nothing changed. */
export const HEARTBEAT_MS = 10_000;

/**
 * Plain progress (CI logs, pipes): one line per state change, and every `HEARTBEAT_MS`
 * without one a line naming what the run still waits for, so a slow rollout never looks hung.
 */
export async function withPlainProgress(
  write: (line: string) => void,
  run: (onEvent: (e: DeployEvent) => void) => Promise<DeployResult>,
  heartbeatMs = HEARTBEAT_MS,
): Promise<DeployResult> {
  const started = Date.now();
  const open = new Map<string, DeployEvent>();
  let lastLine = Date.now();
  const timer = setInterval(
    () => {
      if (Date.now() - lastLine < heartbeatMs - 50 || open.size === 0) return;
      const secs = ((Date.now() - started) / 1000).toFixed(1).padStart(6);
      const waiting = [...open.values()].map(
        (e) => `${keyName(e.key)} (${e.type}${e.message ? `: ${e.message}` : ''})`,
      );
      write(`${secs}s ${'still'.padEnd(12)} waiting for ${waiting.join(', ')}`);
      lastLine = Date.now();
    },
    Math.max(50, Math.floor(heartbeatMs / 4)),
  );
  try {
    return await run((e) => {
      if (TERMINAL.has(e.type)) open.delete(e.key);
      else open.set(e.key, e);
      write(plainLine(e));
      lastLine = Date.now();
    });
  } finally {
    clearInterval(timer);
  }
}

/** Runs `run` while rendering its events; resolves with its result. */
export async function withProgress(
  keys: readonly string[],
  tty: boolean,
  write: (line: string) => void,
  run: (onEvent: (e: DeployEvent) => void) => Promise<DeployResult>,
): Promise<DeployResult> {
  if (!tty) return withPlainProgress(write, run);

  const waiters = new Map<string, { resolve: (e: DeployEvent) => void; update: (msg: string) => void }>();
  const finished = new Map<string, DeployEvent>();
  const onEvent = (e: DeployEvent) => {
    const w = waiters.get(e.key);
    if (TERMINAL.has(e.type)) {
      finished.set(e.key, e);
      w?.resolve(e);
    } else w?.update(`${e.type}${e.message ? `: ${e.message}` : ''}`);
  };
  const list = new Listr(
    keys.map((key) => ({
      title: keyName(key),
      task: (_ctx: unknown, task: { output: string; title: string; skip: (msg: string) => void }) =>
        new Promise<void>((resolve, reject) => {
          const settle = (e: DeployEvent) => {
            if (e.type === 'failed') reject(new Error(e.message ?? 'failed'));
            else if (e.type === 'skipped') {
              task.skip(e.message ?? 'skipped');
              resolve();
            } else resolve();
          };
          const done = finished.get(key);
          if (done) return settle(done);
          waiters.set(key, {
            resolve: settle,
            update: (msg) => {
              task.output = msg;
            },
          });
        }),
    })),
    { concurrent: true, exitOnError: false, rendererOptions: { collapseErrors: false } },
  );
  const [result] = await Promise.all([run(onEvent), list.run().catch(() => undefined)]);
  for (const e of result.events.filter((x) => x.type === 'pruned' || x.type === 'drift')) write(plainLine(e));
  return result;
}
