// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * What observability costs (docs/observability.md): a `kgraph controller --no-graphs` (compiled dist/)
 * converging 200 RGD instances of 3 ConfigMaps each, with tracing off and on (OTLP/gRPC to kube-testenv's
 * receiver, into which the API server traces too in both modes); wall time from the first instance
 * created until all are ACTIVE, and the controller's RSS then. Rounds alternate off/on; medians.
 * Then the reconcile history's memory: 1,000 objects × 20 passes of a 5-node pass, retained heap.
 * `--write` fills `## Observability overhead` in bench/README.md.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassHistory } from '../src/controller/core/history/passHistory.ts';
import type { ReconcileOutcome } from '../src/controller/core/outcome.ts';
import { newInterest } from '../src/controller/core/watches.ts';
import { installRgdCrd } from '../src/controller/rgd/crd.ts';
import { KubeConfig } from '../src/kube/kubeconfig.ts';
import { RestClient } from '../src/kube/rest.ts';
import { startLocalControlPlane } from '../src/localplane/localControlPlane.ts';
import { loadAverage, measuredBy, median, writeReadmeSection } from './support.ts';

const N = Number(process.env.OBS_BENCH_INSTANCES ?? 200);
const ROUNDS = Number(process.env.OBS_BENCH_ROUNDS ?? 3);
const root = join(import.meta.dirname, '..');
const write = process.argv.includes('--write');

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
}

/** RSS (MB) and CPU seconds so far of the controller, from its /metrics. */
async function usageOf(port: number): Promise<{ rssMb: number; cpu: number }> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const rss = /^process_resident_memory_bytes (\d+)/m.exec(text);
  const cpu = /^process_cpu_seconds_total ([\d.e+-]+)/m.exec(text);
  return { rssMb: rss ? Number(rss[1]) / 2 ** 20 : Number.NaN, cpu: cpu ? Number(cpu[1]) : Number.NaN };
}

interface Round {
  seconds: number;
  rssMb: number;
  /** Controller CPU seconds from the first create to convergence (robust to the machine's load). */
  cpu: number;
}

async function round(
  admin: RestClient,
  kubeconfig: string,
  otlp: string,
  traced: boolean,
  i: number,
): Promise<Round> {
  const ns = `obs-bench-${traced ? 'on' : 'off'}-${i}`;
  await admin.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, KGRAPH_SOURCES: '' };
  delete env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (traced) env.OTEL_EXPORTER_OTLP_ENDPOINT = `http://${otlp}`;
  const proc: ChildProcess = spawn(
    process.execPath,
    [
      join(root, 'bin', 'kgraph.js'),
      'controller',
      '--kubeconfig',
      kubeconfig,
      '--no-graphs',
      '--no-install-crd',
      '--namespace',
      ns,
      '--rgd-concurrency',
      '4',
      '--metrics-addr',
      `127.0.0.1:${port}`,
      '--health-addr',
      `127.0.0.1:${port}`,
      '--log-level',
      'warn',
    ],
    { stdio: ['ignore', 'ignore', 'inherit'], env },
  );
  try {
    for (;;) {
      const r = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined);
      if (r?.status === 200) break;
      await new Promise((res) => setTimeout(res, 100));
    }
    // The first controller generates the instance CRD: wait until it is served.
    for (;;) {
      admin.discovery.invalidate('obs.kgraph.bench/v1alpha1');
      const ok = await admin
        .listAll({ apiVersion: 'obs.kgraph.bench/v1alpha1', kind: 'ObsBench', namespace: ns })
        .then(() => true)
        .catch(() => false);
      if (ok) break;
      await new Promise((res) => setTimeout(res, 250));
    }
    const started = Date.now();
    const before = await usageOf(port);
    for (let k = 0; k < N; k += 20)
      await Promise.all(
        Array.from({ length: Math.min(20, N - k) }, (_, j) =>
          admin.create({
            apiVersion: 'obs.kgraph.bench/v1alpha1',
            kind: 'ObsBench',
            metadata: { name: `i${k + j}`, namespace: ns },
            spec: { v: String(k + j) },
          }),
        ),
      );
    for (;;) {
      const list = await admin.listAll({
        apiVersion: 'obs.kgraph.bench/v1alpha1',
        kind: 'ObsBench',
        namespace: ns,
      });
      const active = list.items.filter(
        (o) => (o.status as { state?: string } | undefined)?.state === 'ACTIVE',
      );
      if (active.length === N) break;
      await new Promise((res) => setTimeout(res, 250));
    }
    const seconds = (Date.now() - started) / 1000;
    const after = await usageOf(port);
    return { seconds, rssMb: after.rssMb, cpu: after.cpu - before.cpu };
  } finally {
    proc.kill('SIGTERM');
    await new Promise((res) => proc.once('exit', res));
  }
}

function historyMemory(): { perObjectKb: number; perPassB: number } {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with node --expose-gc');
  const outcome = (i: number): ReconcileOutcome => ({
    kind: 'converged',
    reason: 'Ready',
    interest: newInterest(),
    report: {
      startedAt: Date.now(),
      durationMs: 12.3,
      generation: 3,
      previousGeneration: 3,
      nodes: ['config', 'deployment', 'service', 'ingress', 'monitor'].map((id) => ({
        id,
        state: 'ready',
        objects: 1,
      })),
      created: [],
      updated: [`apps/v1/Deployment/team-a/app-${i}`],
      pruned: [],
      conditionsBefore: [],
      conditionsAfter: [],
      phases: { converge: 10, prune: 1, status: 1 },
    },
  });
  gc();
  const before = process.memoryUsage().heapUsed;
  const h = new PassHistory({ perObject: 20, maxObjects: 10_000 });
  for (let p = 0; p < 20; p++)
    for (let i = 0; i < 1000; i++) h.record(`ObsBench.x/team-a/app-${i}`, Date.now(), 12.3, outcome(i));
  gc();
  const after = process.memoryUsage().heapUsed;
  if (h.size !== 1000) throw new Error('history size');
  return { perObjectKb: (after - before) / 1000 / 1024, perPassB: (after - before) / 20_000 };
}

async function main(): Promise<void> {
  execFileSync('npm', ['run', 'build'], { cwd: root, stdio: 'ignore' });
  const dataDir = mkdtempSync(join(tmpdir(), 'kgraph-bench-obs-'));
  const plane = await startLocalControlPlane({ dataDir, ephemeral: true, extraArgs: ['--trace-receiver'] });
  const kc = new KubeConfig();
  kc.loadFromFile(plane.kubeconfig);
  const admin = new RestClient(kc);
  try {
    await installRgdCrd(admin);
    const cm = (suffix: string) => ({
      id: `c${suffix}`,
      template: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `\${schema.metadata.name}-${suffix}` },
        data: { v: '${schema.spec.v}' },
      },
    });
    await admin.apply(
      {
        apiVersion: 'kro.run/v1alpha1',
        kind: 'ResourceGraphDefinition',
        metadata: { name: 'obs-bench' },
        spec: {
          schema: {
            apiVersion: 'v1alpha1',
            group: 'obs.kgraph.bench',
            kind: 'ObsBench',
            spec: { v: 'string' },
          },
          resources: [cm('a'), cm('b'), cm('c')],
        },
      },
      { fieldManager: 'bench', force: true },
    );
    // One controller run registers the CRD; the rounds then time instances only.
    const off: Round[] = [];
    const on: Round[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      off.push(await round(admin, plane.kubeconfig, plane.otlp ?? '', false, i));
      on.push(await round(admin, plane.kubeconfig, plane.otlp ?? '', true, i));
      console.log(`round ${i}: off ${JSON.stringify(off.at(-1))}, on ${JSON.stringify(on.at(-1))}`);
    }
    const mem = historyMemory();
    const row = (name: string, xs: Round[]) =>
      `| ${name} | ${median(xs.map((x) => x.seconds)).toFixed(1)} s | ${median(xs.map((x) => x.cpu)).toFixed(1)} s | ${median(xs.map((x) => x.rssMb)).toFixed(0)} MB | ${xs.map((x) => `${x.seconds.toFixed(1)}/${x.cpu.toFixed(1)}`).join(', ')} |`;
    const section = [
      '## Observability overhead',
      '',
      measuredBy(
        'observability.bench.ts',
        `load average ${loadAverage()} at the end; ${ROUNDS} rounds per mode, alternating`,
      ),
      `${N} RGD instances of 3 ConfigMaps each, created 20 at a time, \`kgraph controller --no-graphs --rgd-concurrency 4\` (dist/);`,
      "convergence = first create until every instance is ACTIVE (wall time moves with the shared machine's load;",
      "the controller's CPU seconds over the same span do much less); RSS at that moment (`process_resident_memory_bytes`).",
      "Tracing on: `OTEL_EXPORTER_OTLP_ENDPOINT` at kube-testenv's OTLP receiver (the API server traces into it in both modes).",
      '',
      '| tracing | convergence (median) | controller CPU (median) | RSS (median) | rounds (wall/CPU s) |',
      '|---|---|---|---|---|',
      row('off', off),
      row('on', on),
      '',
      `Reconcile history (default 20 passes per object), 5-node passes: ${mem.perObjectKb.toFixed(1)} kB per object with 20 passes (${mem.perPassB.toFixed(0)} B per pass), 1,000 objects retained on the heap.`,
      '',
    ].join('\n');
    console.log(section);
    if (write) writeReadmeSection(section);
  } finally {
    admin.close();
    await plane.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
