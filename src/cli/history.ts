/**
 * `kgraph get <kind> <name> --history`: the instance's last reconcile passes, as the controller that ran
 * them remembers them (controller/core/history/passHistory.ts). The history lives in the controller's
 * memory, so it is asked from the controller's metrics address (`/debug/history`), not the API server.
 */
import type { HistoryEntry } from '../controller/core/history/passHistory.ts';
import { KgraphError } from '../diag/diagnostic.ts';

export interface HistoryQuery {
  /** The controller's metrics address (`http://127.0.0.1:8080`). */
  controller: string;
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
}

export async function fetchHistory(q: HistoryQuery): Promise<HistoryEntry[]> {
  const base = /^https?:\/\//.test(q.controller) ? q.controller : `http://${q.controller}`;
  const url = new URL('/debug/history', base);
  for (const [k, v] of Object.entries({
    apiVersion: q.apiVersion,
    kind: q.kind,
    namespace: q.namespace,
    name: q.name,
  }))
    url.searchParams.set(k, v);
  let res: Response;
  try {
    res = await fetch(url);
  } catch (e) {
    throw new KgraphError(
      'KG6093',
      `cannot reach the controller at ${base} for its history (${e instanceof Error ? e.message : String(e)}); pass --controller with its metrics address`,
    );
  }
  if (!res.ok)
    throw new KgraphError('KG6093', `the controller at ${base} answered ${res.status} for /debug/history`);
  const body = (await res.json()) as { enabled?: boolean; passes?: HistoryEntry[] };
  if (body.enabled === false)
    throw new KgraphError('KG6093', `the controller at ${base} keeps no history (--history-size 0)`);
  return body.passes ?? [];
}

/** One line per pass (oldest first), then what its nodes evaluated to. */
export function formatHistory(title: string, passes: readonly HistoryEntry[]): string {
  if (passes.length === 0) return `${title}: no pass recorded by this controller\n`;
  const lines = [`${title}: ${passes.length} pass(es), oldest first`];
  for (const p of passes) {
    const what: string[] = [];
    if (p.created.length) what.push(`created ${p.created.length}`);
    if (p.updated.length) what.push(`updated ${p.updated.length}`);
    if (p.pruned.length) what.push(`pruned ${p.pruned.length}`);
    if (p.refused) what.push(`${p.refused.verb} refused: ${p.refused.message}`);
    else if (p.error) what.push(`error: ${p.error}`);
    if (p.waiting) what.push(`waiting on ${p.waiting.node} (${p.waiting.state}): ${p.waiting.reason}`);
    const gen = `${p.generation !== undefined ? `  gen ${p.generation}` : ''}${p.revision !== undefined ? ` rev ${p.revision}` : ''}`;
    lines.push(
      `${p.at}  ${p.result.padEnd(9)} ${p.reason.padEnd(14)} ${`${p.durationMs.toFixed(1)} ms`.padStart(9)}${gen}${what.length ? `  ${what.join('; ')}` : '  no change'}`,
    );
    if (p.nodes.length) lines.push(`    nodes: ${p.nodes.map((n) => `${n.id}=${n.state}`).join(' ')}`);
  }
  return `${lines.join('\n')}\n`;
}
