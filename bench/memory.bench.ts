/**
 * How much memory the Graph controller holds: the controller from the compiled dist/
 * in its own process (bench/memory-child.mjs, --expose-gc), on a fresh local control plane; its RSS and
 * V8 heap after two full GCs with 0 Graphs, then after N1 and N2 Graphs of the 5-children workload
 * (bench/workload.ts) have all become Ready and the controller is idle. Medians of `--samples`
 * measurements a second apart per level, and of `--rounds` controller processes (each on a fresh
 * namespace of the same plane). What the caches hold is reported as JSON bytes (objects, their
 * managedFields, Graphs); `--snapshot` also writes a heap snapshot per level of the first round
 * (bench/.out/memory-<n>.heapsnapshot, open in Chrome DevTools) and prints the largest constructors.
 *
 * `--spread` puts each Graph in its own namespace with one spec for all (a cluster-wide controller),
 * where the compiled graph is shared.
 *
 * Scale curve: `--idle SECONDS` leaves the controller alone for that long once the
 * level `--idle-at` (default the last) is Ready and measured — RSS at both ends, its CPU, and the
 * requests and writes it sent (its client's counters); `--foreach N` then adds one Graph whose forEach
 * makes N ConfigMaps: time to Ready, CPU, RSS and requests of that step.
 *
 * Run: node --import tsx bench/memory.bench.ts [--write] [--levels 200,1000] [--rounds 1] [--samples 5]
 *        [--concurrency 4] [--snapshot] [--spread] [--no-build] [--idle 600 [--idle-at 1000]]
 *        [--foreach 1000] [--section "Controller scale curve"]
 * With --write the table replaces the `## Controller memory` section of bench/README.md (`--section`
 * names another).
 */
import { type ChildProcess, execFileSync, fork } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { pool } from '../src/controller/core/apply.ts';
import { Informer, type KubeObject } from '../src/kube/index.ts';
import { topConstructors } from './heapRetainers.ts';
import { loadAverage, measuredBy, median, startBenchPlane, writeReadmeSection } from './support.ts';
import { benchNamespace, forEachGraphOf, graphOf, isReady } from './workload.ts';

const arg = (name: string, dflt: string): string => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? (process.argv[i + 1] ?? dflt) : dflt;
};
const LEVELS = [0, ...arg('--levels', '200,1000').split(',').map(Number)];
const ROUNDS = Number(arg('--rounds', '1'));
const SAMPLES = Number(arg('--samples', '5'));
const CONCURRENCY = Number(arg('--concurrency', '4'));
const SNAPSHOT = process.argv.includes('--snapshot');
/** One spec for every Graph, each Graph in its own namespace (a cluster-wide controller): compiles shared. */
const SPREAD = process.argv.includes('--spread');
const IDLE_S = Number(arg('--idle', '0'));
const IDLE_AT = Number(arg('--idle-at', String(LEVELS.at(-1) ?? 0)));
const FOREACH = Number(arg('--foreach', '0'));
const SECTION = arg('--section', `Controller memory${SPREAD ? ', one spec in many namespaces' : ''}`);
const ROOT = join(import.meta.dirname, '..');
const OUT = join(import.meta.dirname, '.out');

interface Measure {
  /** Controller CPU (user + system) since its start. */
  cpuMs: number;
  rss: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
  spaces: Record<string, number>;
  idle: boolean;
  /** Requests and writes the controller sent since its start. */
  requests: number;
  writes: number;
  byVerb: Record<string, number>;
  caches: {
    objects: number;
    objectBytes: number;
    managedFieldsBytes: number;
    graphs: number;
    graphBytes: number;
    compiled: number;
    sharedCompiles: number;
  };
}

/** The controller process and a request/answer channel to it. */
class Child {
  private next = 0;
  private readonly waiting = new Map<number, (v: unknown) => void>();
  private constructor(readonly proc: ChildProcess) {
    proc.on('message', (m: { id?: number; value?: unknown }) => {
      if (m.id !== undefined) this.waiting.get(m.id)?.(m.value);
    });
  }

  static async start(kubeconfig: string, ns: string): Promise<Child> {
    const proc = fork(join(import.meta.dirname, 'memory-child.mjs'), [kubeconfig, ns, String(CONCURRENCY)], {
      execArgv: ['--expose-gc'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    await new Promise<void>((resolve, reject) => {
      proc.once('message', () => resolve());
      proc.once('exit', (code) => reject(new Error(`controller exited with ${code}`)));
    });
    return new Child(proc);
  }

  ask<T>(msg: Record<string, unknown>): Promise<T> {
    const id = this.next++;
    return new Promise((resolve) => {
      this.waiting.set(id, (v) => {
        this.waiting.delete(id);
        resolve(v as T);
      });
      this.proc.send({ ...msg, id });
    });
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** `get 1, watch 12`: the requests by verb sent between two measurements. */
const verbsBetween = (a: Measure | undefined, b: Measure | undefined): string =>
  Object.entries(b?.byVerb ?? {})
    .map(([v, n]) => [v, n - (a?.byVerb?.[v] ?? 0)] as const)
    .filter(([, n]) => n > 0)
    .map(([v, n]) => `${v} ${n}`)
    .join(', ') || 'none';
const MiB = (b: number): string => (b / 2 ** 20).toFixed(1);

/** `--samples` measurements a second apart, once the controller is idle. */
async function sample(child: Child): Promise<Measure[]> {
  for (let i = 0; i < 600; i++) {
    if ((await child.ask<Measure>({ type: 'measure' })).idle) break;
    await sleep(500);
  }
  const out: Measure[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    await sleep(1_000);
    out.push(await child.ask<Measure>({ type: 'measure' }));
  }
  return out;
}

if (!process.argv.includes('--no-build'))
  execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });

const bench = await startBenchPlane('memory');
const { plane, admin } = bench;
/** Per level, every sample of every round; and the load at each level. */
const results = new Map<number, Measure[]>(LEVELS.map((l) => [l, []]));
const loads = new Map<number, string[]>(LEVELS.map((l) => [l, []]));
const converge = new Map<number, number[]>(LEVELS.map((l) => [l, []]));
/** Controller CPU of each step: from the previous level's measurements to this level's first one. */
const stepCpu = new Map<number, number[]>(LEVELS.map((l) => [l, []]));
const snapshots: string[] = [];
/** The idle window and the forEach step, per round. */
const idles: { graphs: number; start: Measure[]; end: Measure[]; load: string }[] = [];
const forEachSteps: { wallMs: number; before: Measure; after: Measure[]; load: string }[] = [];
let attribution: { name: string; bytes: number }[] = [];
try {
  for (let r = 0; r < ROUNDS; r++) {
    const ns = `mem${r}`;
    const nsOf = (i: number) => (SPREAD ? `${ns}-${i}` : ns);
    if (!SPREAD) await benchNamespace(admin, ns);
    const child = await Child.start(plane.kubeconfig, SPREAD ? '*' : ns);
    const ready = new Set<string>();
    const watch = new Informer(admin, {
      target: { apiVersion: 'kro.run/v1alpha1', plural: 'graphs', ...(SPREAD ? {} : { namespace: ns }) },
    });
    const onGraph = (o: KubeObject) => {
      if (isReady(o)) ready.add(`${o.metadata.namespace}/${o.metadata.name}`);
    };
    watch.addHandlers({ add: onGraph, update: (_o, n) => onGraph(n) });
    watch.start();
    await watch.waitForSync();
    try {
      let created = 0;
      let cpuBefore = (await child.ask<Measure>({ type: 'measure' })).cpuMs;
      for (const level of LEVELS) {
        const t0 = performance.now();
        const add = Array.from({ length: level - created }, (_, i) => created + i);
        await pool(add, 16, async (i) => {
          if (SPREAD) await benchNamespace(admin, nsOf(i));
          // Spread: the same Graph (g0, same children) in every namespace; else g<i> in one namespace.
          await admin.create(graphOf(SPREAD ? 0 : i, nsOf(i)));
        });
        created = level;
        while (ready.size < level) await sleep(250);
        converge.get(level)?.push(performance.now() - t0);
        const ms = await sample(child);
        stepCpu.get(level)?.push((ms[0]?.cpuMs ?? 0) - cpuBefore);
        cpuBefore = ms.at(-1)?.cpuMs ?? 0;
        results.get(level)?.push(...ms);
        loads.get(level)?.push(loadAverage());
        const m = ms.at(-1) as Measure;
        process.stderr.write(
          `round ${r + 1}, ${level} Graphs: RSS ${MiB(median(ms.map((x) => x.rss)))} MiB, heap ${MiB(median(ms.map((x) => x.heapUsed)))} MiB, ${m.caches.objects} cached objects, load ${loadAverage()}\n`,
        );
        if (SNAPSHOT && r === 0) {
          mkdirSync(OUT, { recursive: true });
          const path = join(OUT, `memory-${level}.heapsnapshot`);
          await child.ask({ type: 'snapshot', path });
          snapshots.push(`Level ${level} Graphs. ${topConstructors(path, 12).join('\n')}`);
        }
        if (IDLE_S > 0 && level === IDLE_AT) {
          // Nothing changes for IDLE_S seconds: whatever the controller does now is its idle cost.
          const start = ms;
          await sleep(IDLE_S * 1000);
          const end = await sample(child);
          idles.push({ graphs: level, start, end, load: loadAverage() });
          cpuBefore = end.at(-1)?.cpuMs ?? 0;
          process.stderr.write(
            `round ${r + 1}, idle ${IDLE_S} s at ${level} Graphs: CPU ${((end[0]?.cpuMs ?? 0) - (start.at(-1)?.cpuMs ?? 0)).toFixed(0)} ms, requests ${(end[0]?.requests ?? 0) - (start.at(-1)?.requests ?? 0)} (${verbsBetween(start.at(-1), end[0])})\n`,
          );
        }
      }
      if (FOREACH > 0) {
        const before = await child.ask<Measure>({ type: 'measure' });
        const t0 = performance.now();
        await admin.create(forEachGraphOf('fan', FOREACH, nsOf(0)));
        while (!ready.has(`${nsOf(0)}/fan`)) {
          if (performance.now() - t0 > 1_200_000) {
            const g = await admin.getOrUndefined({
              apiVersion: 'kro.run/v1alpha1',
              plural: 'graphs',
              namespace: nsOf(0),
              name: 'fan',
            });
            throw new Error(
              `the forEach Graph is not Ready after 20 min: ${JSON.stringify(g?.status ?? {})}`,
            );
          }
          await sleep(250);
        }
        const wallMs = performance.now() - t0;
        const after = await sample(child);
        forEachSteps.push({ wallMs, before, after, load: loadAverage() });
        process.stderr.write(
          `round ${r + 1}, forEach of ${FOREACH}: Ready in ${(wallMs / 1000).toFixed(1)} s\n`,
        );
      }
      if (r === 0) attribution = await child.ask<{ name: string; bytes: number }[]>({ type: 'attribute' });
    } finally {
      await watch.stop();
      await child.ask({ type: 'stop' });
    }
  }
} finally {
  await bench.stop();
}

const med = (level: number, f: (m: Measure) => number): number => median((results.get(level) ?? []).map(f));
const base = (f: (m: Measure) => number) => med(0, f);
const lines = [
  measuredBy(
    'memory.bench.ts',
    `1-min load at the measurements ${LEVELS.map((l) => `${l}: ${(loads.get(l) ?? []).join('/')}`).join(', ')}`,
  ),
  `The Graph controller (compiled dist/, its own process, 4 workers, ${SPREAD ? 'all namespaces' : 'one namespace'}, no tsx) on a fresh local control plane; ${SPREAD ? 'one Graph of 5 children (bench/workload.ts) with the same spec in each of N namespaces' : 'Graphs of 5 children (bench/workload.ts), one namespace,'} created in steps, each measured once all are Ready and the controller is idle, after two full GCs; medians of ${SAMPLES} samples a second apart × ${ROUNDS} round(s). Cache sizes are the JSON bytes of what the informers hold (not heap bytes).`,
  '',
  '| Graphs | RSS | heap used | old space | code | external | cached objects (JSON) | of it managedFields | Graphs cached (JSON) | compiled (of them shared) | per Graph (RSS / heap over 0) |',
  '|---|---|---|---|---|---|---|---|---|---|---|',
  ...LEVELS.map((l) => {
    const c = (results.get(l) ?? []).at(-1)?.caches;
    const per =
      l === 0
        ? '—'
        : `${((med(l, (m) => m.rss) - base((m) => m.rss)) / l / 1024).toFixed(1)} KiB / ${((med(l, (m) => m.heapUsed) - base((m) => m.heapUsed)) / l / 1024).toFixed(1)} KiB`;
    return `| ${l} | ${MiB(med(l, (m) => m.rss))} MiB | ${MiB(med(l, (m) => m.heapUsed))} MiB | ${MiB(med(l, (m) => m.spaces.old_space ?? 0))} MiB | ${MiB(med(l, (m) => m.spaces.code_space ?? 0))} MiB | ${MiB(med(l, (m) => m.external))} MiB | ${c ? `${c.objects}, ${MiB(c.objectBytes)} MiB` : ''} | ${c ? `${MiB(c.managedFieldsBytes)} MiB` : ''} | ${c ? `${c.graphs}, ${MiB(c.graphBytes)} MiB` : ''} | ${c ? `${c.compiled} (${c.sharedCompiles})` : ''} | ${per} |`;
  }),
  '',
  '',
  'Steps (scale curve): Graphs added in the step, wall time from the first create to all Ready, controller CPU (user + system) of the step including the settling before the measurement, median over rounds.',
  '',
  '| step | Graphs added | to all Ready | per Graph | controller CPU | CPU per Graph |',
  '|---|---|---|---|---|---|',
  ...LEVELS.slice(1).map((l, i) => {
    const prev = LEVELS[i] ?? 0;
    const added = l - prev;
    const t = median(converge.get(l) ?? []);
    const c = median(stepCpu.get(l) ?? []);
    return `| ${prev} → ${l} | ${added} | ${(t / 1000).toFixed(1)} s | ${(t / added).toFixed(0)} ms | ${(c / 1000).toFixed(1)} s | ${(c / added).toFixed(1)} ms |`;
  }),
];
if (attribution.length > 0) {
  const top = LEVELS.at(-1) ?? 0;
  lines.push(
    '',
    `What the heap holds at ${top} Graphs (first round; each structure cleared in turn, heap freed after two full GCs):`,
    '',
    '| structure | heap | per Graph |',
    '|---|---|---|',
    ...attribution.map((a) =>
      // A structure the bench could not clear comes back as null (NaN over IPC).
      Number.isFinite(a.bytes)
        ? `| ${a.name} | ${MiB(a.bytes)} MiB | ${a.name === 'remaining heap' ? '—' : `${(a.bytes / top / 1024).toFixed(1)} KiB`} |`
        : `| ${a.name} | n/a | |`,
    ),
  );
}
if (idles.length > 0) {
  const cpu = median(idles.map((i) => (i.end[0]?.cpuMs ?? 0) - (i.start.at(-1)?.cpuMs ?? 0)));
  const reqs = median(idles.map((i) => (i.end[0]?.requests ?? 0) - (i.start.at(-1)?.requests ?? 0)));
  const writes = median(idles.map((i) => (i.end[0]?.writes ?? 0) - (i.start.at(-1)?.writes ?? 0)));
  const rss = (xs: Measure[][]) => MiB(median(xs.flat().map((m) => m.rss)));
  lines.push(
    '',
    `Idle: ${IDLE_AT} Graphs, all Ready, nothing changed for ${IDLE_S} s (controller CPU and requests between the last sample before and the first after; median over rounds; 1-min load at the end ${idles.map((i) => i.load).join('/')}):`,
    '',
    '| Graphs | window | RSS at start | RSS at end | controller CPU | share of one core | requests (writes) | by verb (first round) |',
    '|---|---|---|---|---|---|---|---|',
    `| ${IDLE_AT} | ${IDLE_S} s | ${rss(idles.map((i) => i.start))} MiB | ${rss(idles.map((i) => i.end))} MiB | ${(cpu / 1000).toFixed(2)} s | ${((100 * cpu) / (IDLE_S * 1000)).toFixed(2)}% | ${reqs} (${writes}) | ${verbsBetween(idles[0]?.start.at(-1), idles[0]?.end[0])} |`,
  );
}
if (forEachSteps.length > 0) {
  const wall = median(forEachSteps.map((f) => f.wallMs));
  const cpu = median(forEachSteps.map((f) => (f.after[0]?.cpuMs ?? 0) - f.before.cpuMs));
  const reqs = median(forEachSteps.map((f) => (f.after[0]?.requests ?? 0) - f.before.requests));
  const writes = median(forEachSteps.map((f) => (f.after[0]?.writes ?? 0) - f.before.writes));
  lines.push(
    '',
    `One more Graph whose forEach makes ${FOREACH} ConfigMaps (bench/workload.ts \`forEachGraphOf\`), added after the levels above; median over rounds; 1-min load ${forEachSteps.map((f) => f.load).join('/')}:`,
    '',
    '| items | create → Ready | controller CPU | RSS before | RSS after | requests (writes) |',
    '|---|---|---|---|---|---|',
    `| ${FOREACH} | ${(wall / 1000).toFixed(1)} s | ${(cpu / 1000).toFixed(2)} s | ${MiB(median(forEachSteps.map((f) => f.before.rss)))} MiB | ${MiB(median(forEachSteps.flatMap((f) => f.after.map((m) => m.rss))))} MiB | ${reqs} (${writes}) |`,
  );
}
if (snapshots.length > 0) lines.push('', ...snapshots.flatMap((s) => [s, '']));
process.stdout.write(`${lines.join('\n')}\n`);
if (process.argv.includes('--write')) writeReadmeSection(`## ${SECTION}\n\n${lines.join('\n')}\n`);
