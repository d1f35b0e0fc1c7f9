/**
 * Waiting for `kgraph up`'s Graphs to become Ready, with a listr2 task per Graph in a terminal and
 * timestamped plain lines otherwise.
 */
import { Listr } from 'listr2';
import { GRAPH_API_VERSION } from '../../controller/graph/names.ts';
import { HEARTBEAT_MS } from '../../deploy/progress.ts';
import type { RestClient } from '../../kube/rest.ts';
import type { KubeObject } from '../../kube/types.ts';
import { type GraphProgress, graphKey, graphName, graphProgress } from './report.ts';

export async function readGraphs(client: RestClient, graphs: readonly KubeObject[]): Promise<KubeObject[]> {
  return Promise.all(
    graphs.map(
      async (g) =>
        (await client.getOrUndefined({
          apiVersion: GRAPH_API_VERSION,
          kind: 'Graph',
          namespace: g.metadata.namespace ?? 'default',
          name: g.metadata.name ?? '',
        })) ?? g,
    ),
  );
}

/**
 * Polls the Graphs until every one is Ready for its current generation, or the deadline passes.
 * `onProgress` hears every change of a Graph's summary. Resolves with the last observed Graphs.
 */
async function waitForGraphs(
  client: RestClient,
  graphs: readonly KubeObject[],
  timeoutMs: number,
  settled: () => boolean,
  onProgress: (key: string, p: GraphProgress) => void,
): Promise<{ graphs: KubeObject[]; converged: boolean }> {
  const deadline = Date.now() + timeoutMs;
  const last = new Map<string, string>();
  let settledPolls = 0;
  for (;;) {
    settledPolls = settled() ? settledPolls + 1 : 0;
    const observed = await readGraphs(client, graphs);
    let all = true;
    for (const g of observed) {
      const p = graphProgress(g);
      const key = graphKey(g);
      if (last.get(key) !== `${p.ready}${p.summary}`) {
        last.set(key, `${p.ready}${p.summary}`);
        onProgress(key, p);
      }
      all &&= p.ready;
    }
    // Ready must also hold once the controller has worked through every event (two quiet polls
    // in a row): on a reused data dir a Graph still carries the Ready of the previous run.
    if (all && settledPolls >= 2) return { graphs: observed, converged: true };
    if (Date.now() > deadline) return { graphs: observed, converged: false };
    await new Promise((r) => setTimeout(r, 300));
  }
}

/** Runs the wait with a listr2 task per Graph in a terminal, timestamped plain lines otherwise. */
export async function waitWithProgress(
  client: RestClient,
  graphs: readonly KubeObject[],
  timeoutMs: number,
  settled: () => boolean,
  tty: boolean,
  write: (line: string) => void,
): Promise<{ graphs: KubeObject[]; converged: boolean }> {
  const started = Date.now();
  if (!tty) {
    // One line per change, and a heartbeat naming what is still awaited every 10 s without one.
    const waiting = new Map<string, string>();
    let last = Date.now();
    const secs = () => ((Date.now() - started) / 1000).toFixed(1).padStart(6);
    const beat = setInterval(() => {
      if (Date.now() - last < HEARTBEAT_MS - 50 || waiting.size === 0) return;
      write(
        `${secs()}s still   waiting for ${[...waiting].map(([k, s]) => `${graphName(k)} (${s})`).join(', ')}`,
      );
      last = Date.now();
    }, 1000);
    try {
      return await waitForGraphs(client, graphs, timeoutMs, settled, (key, p) => {
        if (p.ready) waiting.delete(key);
        else waiting.set(key, p.summary);
        write(`${secs()}s ${p.ready ? 'ready  ' : 'waiting'} ${graphName(key)}  ${p.summary}`);
        last = Date.now();
      });
    } finally {
      clearInterval(beat);
    }
  }
  const tasks = new Map<string, { update: (p: GraphProgress) => void; finish: (ok: boolean) => void }>();
  const latest = new Map<string, GraphProgress>();
  const list = new Listr(
    graphs.map((g) => ({
      title: graphName(graphKey(g)),
      task: (_ctx: unknown, task: { output: string; title: string }) =>
        new Promise<void>((res, rej) => {
          const key = graphKey(g);
          const update = (p: GraphProgress): void => {
            task.output = p.summary;
            if (p.ready) res();
          };
          tasks.set(key, {
            update,
            finish: (ok) => (ok ? res() : rej(new Error(latest.get(key)?.summary ?? 'timed out'))),
          });
          const seen = latest.get(key);
          if (seen) update(seen);
        }),
    })),
    { concurrent: true, exitOnError: false, rendererOptions: { collapseErrors: false } },
  );
  const running = list.run().catch(() => undefined);
  const result = await waitForGraphs(client, graphs, timeoutMs, settled, (key, p) => {
    latest.set(key, p);
    tasks.get(key)?.update(p);
  });
  for (const [key, t] of tasks) t.finish(latest.get(key)?.ready ?? false);
  await running;
  return result;
}
