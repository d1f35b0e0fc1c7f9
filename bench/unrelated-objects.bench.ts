/**
 * What the objects of a cluster that are not kgraph's cost the controller (design/sharding.md §1):
 * `kgraph controller` (Graphs and RGDs, cluster-wide, from a checkout's compiled dist/) on a fresh local
 * control plane holding `--graphs` Graphs of the 5-children workload (bench/workload.ts: ConfigMaps, a
 * Secret, a ServiceAccount, a Service), its RSS and V8 heap once idle — then again after the cluster
 * got `--unrelated` ConfigMaps and as many Secrets (about 1 KiB each, in 20 other namespaces) and
 * `--crds` unrelated CRDs (each with a 40-property schema). Each level runs the controller of this
 * checkout and the one of `--before DIR` (a checkout whose dist/ caches children unfiltered, default
 * /work/main), each as a fresh process after the Graphs converged; medians of `--samples` readings of
 * `/metrics` a second apart after `--settle` seconds.
 *
 * Run: node --import tsx bench/unrelated-objects.bench.ts [--write] [--graphs 100] [--unrelated 10000]
 *        [--crds 200] [--before /work/main] [--samples 5] [--settle 20]
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { pool } from '../src/controller/core/apply.ts';
import type { KubeObject, RestClient } from '../src/kube/index.ts';
import { loadAverage, measuredBy, median, startBenchPlane, writeReadmeSection } from './support.ts';
import { benchNamespace, graphOf, isReady } from './workload.ts';

const arg = (name: string, dflt: string): string => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? (process.argv[i + 1] ?? dflt) : dflt;
};
const GRAPHS = Number(arg('--graphs', '100'));
const UNRELATED = Number(arg('--unrelated', '10000'));
const CRDS = Number(arg('--crds', '200'));
const BEFORE = arg('--before', '/work/main');
const SAMPLES = Number(arg('--samples', '5'));
const SETTLE_S = Number(arg('--settle', '20'));
const ROOT = join(import.meta.dirname, '..');
const NS = 'bench-graphs';
const PORT = 18_480;

function controller(root: string, kubeconfig: string): ChildProcess {
  return spawn(
    process.execPath,
    [
      join(root, 'bin', 'kgraph.js'),
      'controller',
      '--kubeconfig',
      kubeconfig,
      '--concurrency',
      '4',
      '--metrics-addr',
      `127.0.0.1:${PORT}`,
      '--health-addr',
      `127.0.0.1:${PORT}`,
      '--log-level',
      'warn',
    ],
    { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, KGRAPH_SOURCES: '' } },
  );
}

async function metric(name: string): Promise<number | undefined> {
  try {
    const text = await (await fetch(`http://127.0.0.1:${PORT}/metrics`)).text();
    const line = text.split('\n').find((l) => l.startsWith(`${name} `));
    return line ? Number(line.split(' ')[1]) : undefined;
  } catch {
    return undefined;
  }
}

async function waitReady(): Promise<void> {
  for (let i = 0; i < 600; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${PORT}/readyz`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error('controller not ready after 5 minutes');
}

async function allGraphsReady(admin: RestClient): Promise<void> {
  for (let i = 0; i < 1200; i++) {
    const list = await admin.list({ apiVersion: 'kro.run/v1alpha1', plural: 'graphs', namespace: NS });
    if (list.items.length === GRAPHS && list.items.every(isReady)) return;
    await new Promise((r) => setTimeout(r, 1000));
  }
  throw new Error('Graphs not Ready');
}

interface Reading {
  rssMiB: number;
  heapMiB: number;
}

async function measure(root: string, kubeconfig: string, admin: RestClient): Promise<Reading> {
  const child = controller(root, kubeconfig);
  try {
    await waitReady();
    await allGraphsReady(admin);
    await new Promise((r) => setTimeout(r, SETTLE_S * 1000));
    const rss: number[] = [];
    const heap: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      rss.push((await metric('process_resident_memory_bytes')) ?? 0);
      heap.push((await metric('nodejs_heap_size_used_bytes')) ?? 0);
      await new Promise((r) => setTimeout(r, 1000));
    }
    return { rssMiB: median(rss) / 2 ** 20, heapMiB: median(heap) / 2 ** 20 };
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
}

function unrelatedCrd(i: number): KubeObject {
  const properties = Object.fromEntries(
    Array.from({ length: 40 }, (_, k) => [
      `field${k}`,
      { type: 'string', description: `field ${k} of kind ${i}` },
    ]),
  );
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `things${i}.unrelated.example.com` },
    spec: {
      group: 'unrelated.example.com',
      scope: 'Namespaced',
      names: { plural: `things${i}`, singular: `thing${i}`, kind: `Thing${i}`, listKind: `Thing${i}List` },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties } } },
          },
        },
      ],
    },
  };
}

async function addUnrelated(admin: RestClient): Promise<void> {
  const payload = 'x'.repeat(1000);
  const namespaces = Array.from({ length: 20 }, (_, k) => `unrelated-${k}`);
  for (const ns of namespaces)
    await admin.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  const objects: KubeObject[] = [];
  for (let i = 0; i < UNRELATED; i++) {
    const namespace = namespaces[i % namespaces.length] as string;
    objects.push({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: `cm-${i}`, namespace },
      data: { payload },
    });
    objects.push({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: `s-${i}`, namespace },
      stringData: { payload },
    });
  }
  for (let i = 0; i < CRDS; i++) objects.push(unrelatedCrd(i));
  await pool(objects, 32, async (o) => {
    await admin.create(o);
  });
}

const bench = await startBenchPlane('unrelated');
const kubeconfig = bench.plane.kubeconfig;
const rows: string[] = [];
try {
  const { admin } = bench;
  // Converge the workload once (this checkout's controller installs the CRDs and applies the children).
  const first = controller(ROOT, kubeconfig);
  await waitReady();
  await benchNamespace(admin, NS);
  await pool(
    Array.from({ length: GRAPHS }, (_, i) => graphOf(i, NS)),
    16,
    async (g) => {
      await admin.create(g);
    },
  );
  await allGraphsReady(admin);
  first.kill('SIGTERM');
  await new Promise((r) => first.once('exit', r));

  const results: Record<string, Reading> = {};
  for (const level of ['without', 'with'] as const) {
    if (level === 'with') await addUnrelated(admin);
    for (const [name, root] of [
      ['unfiltered (before)', BEFORE],
      ['kgraph-owned only', ROOT],
    ] as const) {
      const r = await measure(root, kubeconfig, admin);
      results[`${name}|${level}`] = r;
      console.log(
        `${name}, ${level} unrelated objects: RSS ${r.rssMiB.toFixed(1)} MiB, heap ${r.heapMiB.toFixed(1)} MiB`,
      );
    }
  }
  for (const name of ['unfiltered (before)', 'kgraph-owned only']) {
    const a = results[`${name}|without`] as Reading;
    const b = results[`${name}|with`] as Reading;
    rows.push(
      `| ${name} | ${a.rssMiB.toFixed(0)} | ${b.rssMiB.toFixed(0)} | ${(((b.rssMiB - a.rssMiB) / a.rssMiB) * 100).toFixed(0)}% | ${a.heapMiB.toFixed(0)} | ${b.heapMiB.toFixed(0)} |`,
    );
  }
} finally {
  await bench.stop();
}

const section = `## Controller memory with unrelated objects

${measuredBy('unrelated-objects.bench.ts', `load ${loadAverage()}`)} ${GRAPHS} Graphs of the 5-children
workload converged; then ${UNRELATED} ConfigMaps and ${UNRELATED} Secrets of about 1 KiB in 20 other namespaces
and ${CRDS} unrelated CRDs. \`kgraph controller\` cluster-wide, a fresh process per reading, idle after
${SETTLE_S} s; medians of ${SAMPLES} readings. "unfiltered" is main's dist before child informers selected
\`kro.run/node-id\` (design/sharding.md §1) and before the Graph controller's CRD cache dropped schemas.
kro caches children through metadata-only informers; kgraph keeps whole children (expressions
read their fields) but only its own.

| child informers | RSS without (MiB) | RSS with (MiB) | growth | heap without (MiB) | heap with (MiB) |
|---|---|---|---|---|---|
${rows.join('\n')}
`;
console.log(section);
if (process.argv.includes('--write')) writeReadmeSection(section);
