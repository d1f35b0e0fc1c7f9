/**
 * Where the time goes: 200 Graphs of 5 children (bench/workload.ts) reconciled by the
 * Graph controller (in this process, 4 workers) on a fresh local control plane, against a bare
 * server-side-apply loop of the same 1,000 objects at 4 in flight on the same plane (the lower bound),
 * median of `--rounds`. Per Graph it records a timeline — queued (and why), reconcile start/end, outcome,
 * requeue delay, each request the controller sent for it (child applies, status writes, finalizer patch)
 * — and summarises it; `--profile` takes a CPU profile of the controller during the first round's
 * convergence (bench/.out/converge.cpuprofile, open it in Chrome DevTools) and prints the top functions.
 *
 * Run: node --import tsx bench/converge.bench.ts [--write] [--graphs 200] [--rounds 3] [--concurrency 4]
 *        [--profile] [--timeline] (writes bench/.out/converge-timeline.json)
 * With --write the tables replace the `## Convergence` section of bench/README.md.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import pino from 'pino';
import { GraphController, type ReconcileTrace } from '../src/controller/graph/controller.ts';
import { Informer, type KubeObject, type VerbCounts, WRITE_VERBS } from '../src/kube/index.ts';
import { diffCounts, VERBS } from '../src/kube/metrics.ts';
import { RestClient } from '../src/kube/rest.ts';
import { type CpuProfile, topFunctions } from './profile.ts';
import { loadAverage, measuredBy, median, startBenchPlane, writeReadmeSection } from './support.ts';
import { bareApplyLoop, benchNamespace, graphOf, isReady } from './workload.ts';

const arg = (name: string, dflt: number): number => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
const GRAPHS = arg('--graphs', 200);
const ROUNDS = arg('--rounds', 3);
const CONCURRENCY = arg('--concurrency', 4);
const PROFILE = process.argv.includes('--profile');
const TIMELINE = process.argv.includes('--timeline');
const OUT = join(import.meta.dirname, '.out');

/** One thing that happened to one Graph, ms since the Graphs were created. */
interface Step {
  t: number;
  what: string;
}

interface Round {
  bareMs: number;
  readyMs: number;
  counts: VerbCounts;
  reconciles: number;
  cpuMs: number;
  peakRssMiB: number;
  load: string;
  timeline: Map<string, Step[]>;
  profile?: CpuProfile;
}

/** `…/namespaces/<ns>/<resource>/<name>[/status]` → the instance the request is for, and what it was. */
function attribute(path: string, ns: string): { key: string; what: string } | undefined {
  const m = new RegExp(`/namespaces/${ns}/([a-z]+)(?:/(g\\d+)(?:-([a-z]+))?(/status)?)?`).exec(path);
  if (!m?.[2]) return undefined;
  const [, resource, instance, role, status] = m;
  if (resource === 'graphs') return { key: `${ns}/${instance}`, what: status ? 'status' : 'graph' };
  return { key: `${ns}/${instance}`, what: role ?? resource ?? '?' };
}

async function round(index: number): Promise<Round> {
  // Room for the Services of the bare loop and of the Graphs.
  const bench = await startBenchPlane('converge');
  const { kc, admin } = bench;
  const ns = 'bench';
  let controller: GraphController | undefined;
  let readyWatch: Informer | undefined;
  try {
    await benchNamespace(admin, 'bare');
    const bareMs = await bareApplyLoop(admin, 'bare', GRAPHS, CONCURRENCY);
    await benchNamespace(admin, ns);

    let t0 = 0;
    const at = () => performance.now() - t0;
    const timeline = new Map<string, Step[]>();
    let errors = 0;
    const note = (key: string, what: string): void => {
      if (t0 === 0) return;
      const steps = timeline.get(key) ?? [];
      if (steps.length === 0) timeline.set(key, steps);
      steps.push({ t: at(), what });
    };
    const trace = (e: ReconcileTrace): void => {
      if (e.event === 'queued') note(e.key, `queued ${e.cause}${e.by ? ` ${e.by}` : ''}`);
      else if (e.event === 'started') note(e.key, 'started');
      else if (e.event === 'finished')
        note(
          e.key,
          `${e.kind} ${e.reason}${e.requeueAfterMs !== undefined ? ` requeue ${e.requeueAfterMs} ms` : ''}${e.error ? `: ${e.error}` : ''}`,
        );
      else {
        note(e.key, `error ${e.message}`);
        if (errors++ < 5) process.stderr.write(`  ${e.key}: ${e.message}\n`);
      }
    };
    const client = new RestClient(kc);
    client.counters.listen((verb, _method, path) => {
      const a = attribute(path, ns);
      if (a) note(a.key, `${verb} ${a.what}`);
    });
    controller = new GraphController({
      client,
      namespaces: [ns],
      concurrency: CONCURRENCY,
      log: pino({ level: 'silent' }),
      trace,
    });
    await controller.start();
    const c = controller;

    // Ready from a watch of our own (admin client, not counted as the controller's).
    let readyCount = 0;
    const ready = new Set<string>();
    let allReady: () => void = () => {};
    const done = new Promise<void>((r) => {
      allReady = r;
    });
    readyWatch = new Informer(admin, {
      target: { apiVersion: 'kro.run/v1alpha1', plural: 'graphs', namespace: ns },
    });
    const onGraph = (o: KubeObject): void => {
      const key = `${ns}/${o.metadata.name}`;
      if (!ready.has(key) && isReady(o)) {
        ready.add(key);
        note(key, 'Ready observed');
        readyCount += 1;
        if (readyCount === GRAPHS) allReady();
      }
    };
    readyWatch.addHandlers({ add: onGraph, update: (_o, n) => onGraph(n) });
    readyWatch.start();
    await readyWatch.waitForSync();

    let peakRss = process.memoryUsage.rss();
    const rssTimer = setInterval(() => {
      peakRss = Math.max(peakRss, process.memoryUsage.rss());
    }, 1_000);
    let session: Session | undefined;
    if (PROFILE && index === 0) {
      session = new Session();
      session.connect();
      await session.post('Profiler.enable');
      await session.post('Profiler.start');
    }
    const load = loadAverage();
    const before = c.client.counters.snapshot();
    const rc0 = c.metrics.reconcileCount();
    const cpu0 = process.cpuUsage();
    t0 = performance.now();
    await Promise.all(Array.from({ length: GRAPHS }, (_, i) => admin.create(graphOf(i, ns))));
    const progress = setInterval(() => {
      const q = c.queue.stats();
      process.stderr.write(
        `  ${(at() / 1000).toFixed(0)} s: ${readyCount}/${GRAPHS} Ready, queue ${q.depth} processing ${q.processing} delayed ${q.delayed}\n`,
      );
    }, 5_000);
    const deadline = arg('--deadline-s', 240) * 1000;
    const timedOut = await Promise.race([
      done.then(() => false),
      new Promise<boolean>((r) => setTimeout(() => r(true), deadline).unref()),
    ]);
    clearInterval(progress);
    if (timedOut) {
      const stuck = [...timeline].filter(([k]) => !ready.has(k)).slice(0, 2);
      for (const [k, steps] of stuck) {
        process.stderr.write(`${k} (not Ready):\n`);
        for (const s of steps.slice(-25)) process.stderr.write(`  ${s.t.toFixed(0)} ${s.what}\n`);
      }
      throw new Error(`${GRAPHS - readyCount} Graphs not Ready after ${deadline / 1000} s`);
    }
    const readyMs = at();
    const cpu = process.cpuUsage(cpu0);
    const counts = diffCounts(before, c.client.counters.snapshot());
    const reconciles = c.metrics.reconcileCount() - rc0;
    let profile: CpuProfile | undefined;
    if (session) {
      profile = (await session.post('Profiler.stop')).profile as CpuProfile;
      session.disconnect();
    }
    clearInterval(rssTimer);
    return {
      bareMs,
      readyMs,
      counts,
      reconciles,
      cpuMs: (cpu.user + cpu.system) / 1000,
      peakRssMiB: peakRss / 2 ** 20,
      load: `${load}–${loadAverage()}`,
      timeline,
      ...(profile ? { profile } : {}),
    };
  } finally {
    await readyWatch?.stop();
    await controller?.stop();
    controller?.client.close();
    await bench.stop();
  }
}

const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? 0;
};
const ms = (x: number): string => (x >= 1000 ? `${(x / 1000).toFixed(2)} s` : `${x.toFixed(0)} ms`);

/** Per-Graph figures of one round's timeline. */
function summarise(timeline: Map<string, Step[]>): string[] {
  const firstStart: number[] = [];
  const lastChild: number[] = [];
  const readyAt: number[] = [];
  const reconciles: number[] = [];
  const statusWrites: number[] = [];
  const childWrites: number[] = [];
  const outcomes = new Map<string, number>();
  const causes = new Map<string, number>();
  for (const steps of timeline.values()) {
    const t = (p: (s: Step) => boolean) => steps.find(p)?.t;
    firstStart.push(t((s) => s.what === 'started') ?? Number.NaN);
    const children = steps.filter((s) => /^(apply|create|patch) (base|secret|sa|svc|derived)$/.test(s.what));
    lastChild.push(children.at(-1)?.t ?? Number.NaN);
    childWrites.push(children.length);
    readyAt.push(t((s) => s.what === 'Ready observed') ?? Number.NaN);
    reconciles.push(steps.filter((s) => s.what === 'started').length);
    statusWrites.push(steps.filter((s) => s.what === 'apply status').length);
    for (const s of steps) {
      const out = /^(converged|waiting|failed|invalid) (\w+)/.exec(s.what);
      if (out) outcomes.set(`${out[1]} ${out[2]}`, (outcomes.get(`${out[1]} ${out[2]}`) ?? 0) + 1);
      const q = /^queued (\w+)(?: (\w+))?/.exec(s.what);
      if (q)
        causes.set(
          `${q[1]}${q[2] ? ` ${q[2]}` : ''}`,
          (causes.get(`${q[1]}${q[2] ? ` ${q[2]}` : ''}`) ?? 0) + 1,
        );
    }
  }
  const row = (name: string, xs: number[], f: (x: number) => string = ms) =>
    `| ${name} | ${f(median(xs))} | ${f(pct(xs, 0.9))} | ${f(Math.max(...xs))} |`;
  const n = (x: number) => x.toFixed(1).replace(/\.0$/, '');
  const lines = [
    '| per Graph (ms after the creates were sent) | median | p90 | max |',
    '|---|---|---|---|',
    row('first reconcile starts', firstStart),
    row('last child write sent', lastChild),
    row('Ready observed (watch)', readyAt),
    row('reconciles', reconciles, n),
    row('child writes', childWrites, n),
    row('status writes', statusWrites, n),
    '',
    `Reconcile outcomes: ${[...outcomes].map(([k, v]) => `${k} ${v}`).join(', ')}. Queued by: ${[...causes].map(([k, v]) => `${k} ${v}`).join(', ')}.`,
  ];
  return lines;
}

const rounds: Round[] = [];
for (let i = 0; i < ROUNDS; i++) {
  const r = await round(i);
  rounds.push(r);
  process.stdout.write(
    `round ${i + 1}: bare ${ms(r.bareMs)}, kgraph ${ms(r.readyMs)} (${(r.readyMs / r.bareMs).toFixed(1)}×), ${r.reconciles} reconciles, load ${r.load}\n`,
  );
}
const fmt = (counts: VerbCounts): string =>
  VERBS.filter((v) => counts[v] !== 0)
    .map((v) => `${v} ${counts[v]}`)
    .join(', ') || 'none';
const mid = [...rounds].sort((a, b) => a.readyMs - b.readyMs)[Math.floor(rounds.length / 2)] as Round;
const writes = (c: VerbCounts) => WRITE_VERBS.reduce((s, v) => s + c[v], 0);
const lines = [
  measuredBy(
    'converge.bench.ts',
    `1-min load during the rounds ${rounds.map((r) => r.load).join(', ')}; median of ${ROUNDS} rounds`,
  ),
  `${GRAPHS} Graphs of 5 children (ConfigMap, Secret, ServiceAccount, ClusterIP Service, a ConfigMap reading the first through CEL), controller in-process with ${CONCURRENCY} workers, one namespace; before it, on the same fresh plane, a bare server-side-apply loop of the same ${GRAPHS * 5} objects at ${CONCURRENCY} in flight. Requests are the controller's; CPU is this process's (controller and the benchmark's one Graph watch).`,
  '',
  '| figure | kgraph | bare SSA loop | kgraph/bare |',
  '|---|---|---|---|',
  `| create → all ${GRAPHS} Ready | ${ms(median(rounds.map((r) => r.readyMs)))} | ${ms(median(rounds.map((r) => r.bareMs)))} | ${median(rounds.map((r) => r.readyMs / r.bareMs)).toFixed(2)}× |`,
  `| requests (writes), median round | ${mid.counts ? `${Object.values(mid.counts).reduce((a, b) => a + b, 0)} (${writes(mid.counts)})` : ''} | ${GRAPHS * 5} (${GRAPHS * 5}) | |`,
  `| writes per Graph | ${(writes(mid.counts) / GRAPHS).toFixed(2)} | 5 | |`,
  `| reconciles | ${median(rounds.map((r) => r.reconciles))} | — | |`,
  `| CPU during convergence | ${ms(median(rounds.map((r) => r.cpuMs)))} | — | |`,
  `| peak RSS | ${median(rounds.map((r) => r.peakRssMiB)).toFixed(0)} MiB | — | |`,
  '',
  `Requests by verb (median round): ${fmt(mid.counts)}.`,
  '',
  ...summarise(mid.timeline),
];
const profiled = rounds[0]?.profile;
if (profiled) {
  mkdirSync(OUT, { recursive: true });
  writeFileSync(join(OUT, 'converge.cpuprofile'), JSON.stringify(profiled));
  lines.push('', 'CPU profile of the first round (self time, top 15):', '', ...topFunctions(profiled, 15));
}
if (TIMELINE) {
  mkdirSync(OUT, { recursive: true });
  writeFileSync(
    join(OUT, 'converge-timeline.json'),
    JSON.stringify(Object.fromEntries(mid.timeline), null, 1),
  );
}
process.stdout.write(`${lines.join('\n')}\n`);
if (process.argv.includes('--write'))
  writeReadmeSection(`## Convergence, ${GRAPHS} Graphs × 5 children\n\n${lines.join('\n')}\n`);
