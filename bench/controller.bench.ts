/**
 * The Graph controller against a fresh local control plane: how long 100 Graphs of 10 nodes
 * (bench/workload.ts `fanOutGraphOf`: one def, nine ConfigMap templates, eight reading the first) take
 * to converge, and how many requests of each verb a steady-state resync of all of them makes.
 *
 * Run: node --import tsx bench/controller.bench.ts [--write] [--graphs N] [--concurrency N]
 * With --write the table replaces the `## Graph controller` section of bench/README.md.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { GraphController } from '../src/controller/graph/controller.ts';
import { KubeConfig } from '../src/kube/kubeconfig.ts';
import { diffCounts, VERBS } from '../src/kube/metrics.ts';
import { RestClient } from '../src/kube/rest.ts';
import { startLocalControlPlane } from '../src/localplane/localControlPlane.ts';
import { loadAverage, measuredBy, writeReadmeSection } from './support.ts';
import { benchNamespace, fanOutGraphOf, isReady } from './workload.ts';

const arg = (name: string, dflt: number): number => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
const GRAPHS = arg('--graphs', 100);
const CONCURRENCY = arg('--concurrency', 4);

const dataDir = mkdtempSync(join(tmpdir(), 'kgraph-bench-controller-'));
const plane = await startLocalControlPlane({ dataDir, ephemeral: true });
const kc = new KubeConfig();
kc.loadFromFile(plane.kubeconfig);
const admin = new RestClient(kc);
const ns = 'bench';
const lines: string[] = [];
let controller: GraphController | undefined;
try {
  await benchNamespace(admin, ns);
  controller = new GraphController({
    client: new RestClient(kc),
    namespaces: [ns],
    concurrency: CONCURRENCY,
    log: pino({ level: 'silent' }),
  });
  await controller.start();
  const c = controller;

  const ready = async (): Promise<number> => {
    const list = await admin.listAll({ apiVersion: 'kro.run/v1alpha1', kind: 'Graph', namespace: ns });
    return list.items.filter(isReady).length;
  };

  const t0 = performance.now();
  const before = c.client.counters.snapshot();
  const rc0 = c.metrics.reconcileCount();
  const rs0 = c.metrics.reconcileSeconds;
  await Promise.all(Array.from({ length: GRAPHS }, (_, i) => admin.create(fanOutGraphOf(i, ns))));
  while ((await ready()) < GRAPHS) await new Promise((r) => setTimeout(r, 100));
  const convergeMs = performance.now() - t0;
  const convergeCounts = diffCounts(before, c.client.counters.snapshot());
  const convergeReconciles = c.metrics.reconcileCount() - rc0;
  const convergeReconcileMs = ((c.metrics.reconcileSeconds - rs0) * 1000) / Math.max(1, convergeReconciles);
  await c.idle(120_000);
  await new Promise((r) => setTimeout(r, 1000));
  await c.idle(120_000);

  // A resync: every Graph reconciled once more, nothing changed.
  const steadyBefore = c.client.counters.snapshot();
  const r0 = c.metrics.reconcileCount();
  const t1 = performance.now();
  for (let i = 0; i < GRAPHS; i++) c.queue.add(`${ns}/g${i}`);
  await new Promise((r) => setTimeout(r, 50));
  await c.idle(120_000);
  const resyncMs = performance.now() - t1;
  const steady = diffCounts(steadyBefore, c.client.counters.snapshot());
  const reconciles = c.metrics.reconcileCount() - r0;

  const fmt = (counts: Record<string, number>) =>
    VERBS.filter((v) => counts[v] !== 0)
      .map((v) => `${v} ${counts[v]}`)
      .join(', ') || 'none';
  lines.push(
    measuredBy('controller.bench.ts', `load average ${loadAverage()} at the end`),
    `${GRAPHS} Graphs of 10 nodes (1 def + 9 ConfigMap templates, 8 reading the first), controller concurrency ${CONCURRENCY}, one namespace, fresh local control plane; one run.`,
    '',
    '| case | wall time | reconciles (mean duration) | controller requests by verb |',
    '|---|---|---|---|',
    `| create ${GRAPHS} Graphs → all Ready | ${(convergeMs / 1000).toFixed(1)} s (${(convergeMs / GRAPHS).toFixed(0)} ms per Graph) | ${convergeReconciles} (${convergeReconcileMs.toFixed(0)} ms) | ${fmt(convergeCounts)} |`,
    `| steady-state resync | ${resyncMs.toFixed(0)} ms | ${reconciles} | ${fmt(steady)} |`,
  );
  process.stdout.write(`${lines.join('\n')}\n`);
  if (process.argv.includes('--write')) writeReadmeSection(`## Graph controller\n\n${lines.join('\n')}\n`);
} finally {
  await controller?.stop();
  controller?.client.close();
  admin.close();
  await plane.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
