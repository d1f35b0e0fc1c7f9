/**
 * How much memory the RGD controller holds (goal "controller RSS ≤ 0.5× kro's"):
 * `kgraph controller --no-graphs` from the compiled dist/, as its own process (what a user runs), on a
 * fresh local control plane, serving one RGD of 5 children (bench/vs-kro/rgd.ts: ConfigMap, Secret,
 * ServiceAccount, ClusterIP Service, ConfigMap reading the first). Levels of instances (0, then
 * `--levels`) are created in steps; at each, once every instance is ACTIVE and the controller has been
 * left alone `--idle` seconds: RSS (/proc, median of `--samples` a second apart), V8 heap used and
 * the heap spaces (its /metrics, prom-client's process metrics: no GC is forced), the controller's
 * CPU for the step and the idle window, and what its informer caches hold — objects and JSON bytes of
 * every kind it watches, as the server lists them and as the controller's cache transforms keep them
 * (src/controller/rgd/caches.ts).
 *
 * `--node-arg A` (repeatable) passes a flag to node before bin/kgraph.js (e.g.
 * `--semi-space-growth-factor=2` to measure V8's default, which the CLI otherwise lowers);
 * `--snapshot` writes a heap snapshot of the controller at the last level (SIGUSR2,
 * bench/.out/rgd-memory/) and prints its largest constructors (taken after the measurements).
 *
 * `--baseline DIR` first measures another checkout's bin/kgraph.js (a built worktree of the commit
 * before a change: "before"), `--compare-node-arg A` this checkout with other node flags; `--rounds N`
 * alternates the variants N times (medians); `--note FILE` appends a Markdown note to the section.
 *
 * Run: node --import tsx bench/rgd-memory.bench.ts [--write] [--levels 200,1000] [--idle 30]
 *        [--samples 5] [--concurrency 4] [--node-arg …] [--label after] [--snapshot] [--no-build]
 *        [--baseline DIR] [--compare-node-arg "--semi-space-growth-factor=2"] [--rounds 2]
 *        [--note bench/rgd-memory.note.md]
 * With --write the table replaces the `## RGD controller memory` section of bench/README.md (`--section`
 * names another).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pool } from '../src/controller/core/apply.ts';
import { rgdCacheTransforms } from '../src/controller/rgd/caches.ts';
import { installRgdCrd } from '../src/controller/rgd/crd.ts';
import { Informer, type KubeObject, type RestClient } from '../src/kube/index.ts';
import { freePort } from '../src/localplane/freePort.ts';
import { topConstructors } from './heapRetainers.ts';
import {
  loadAverage,
  measuredBy,
  median,
  spawnRgdController,
  startBenchPlane,
  writeReadmeSection,
} from './support.ts';
import { cpuMs, rssMiB } from './vs-kro/proc.ts';
import { applyBenchRgdUntilActive, benchInstance, INSTANCE_API, instanceActive } from './vs-kro/rgd.ts';

const args = process.argv;
const arg = (name: string, dflt: string): string => {
  const i = args.indexOf(name);
  return i >= 0 ? (args[i + 1] ?? dflt) : dflt;
};
const LEVELS = [0, ...arg('--levels', '200,1000').split(',').map(Number)];
const IDLE_S = Number(arg('--idle', '30'));
const SAMPLES = Number(arg('--samples', '5'));
const CONCURRENCY = Number(arg('--concurrency', '4'));
const NODE_ARGS = args.flatMap((a, i) => (a === '--node-arg' && args[i + 1] ? [args[i + 1] as string] : []));
const LABEL = arg('--label', NODE_ARGS.length > 0 ? `node ${NODE_ARGS.join(' ')}` : 'this checkout');
const SNAPSHOT = args.includes('--snapshot');
const SECTION = arg('--section', 'RGD controller memory');
const ROUNDS = Number(arg('--rounds', '1'));
/** A Markdown file appended to the section (the closing note: what bounds the rest). */
const NOTE = args.includes('--note') ? arg('--note', '') : undefined;
/** Another checkout (e.g. a worktree of the commit before a change, built) measured first, as "before". */
const BASELINE = args.includes('--baseline') ? arg('--baseline', '') : undefined;
/** More runs of this checkout with other node flags (`--compare-node-arg "--semi-space-growth-factor=2"`). */
const COMPARE_ARGS = args.flatMap((a, i) =>
  a === '--compare-node-arg' && args[i + 1] ? [args[i + 1] as string] : [],
);
const NS = 'bench';
const ROOT = join(import.meta.dirname, '..');
const OUT = join(import.meta.dirname, '.out', 'rgd-memory');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const MiB = (b: number): string => (b / 2 ** 20).toFixed(1);
const KiB = (b: number): string => (b / 1024).toFixed(0);

/** One level's figures. */
interface Level {
  instances: number;
  convergeMs: number;
  cpuStepMs: number;
  cpuIdleMs: number;
  rssMiB: number;
  rssFileMiB: number;
  rssAnonMiB: number;
  heapUsed: number;
  spaces: Record<string, number>;
  caches: CacheRow[];
  load: string;
}

interface CacheRow {
  cache: string;
  objects: number;
  listedBytes: number;
  cachedBytes: number;
}

async function metricsText(port: number): Promise<string> {
  return (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
}

/** prom-client's `nodejs_heap_size_used_bytes` and `nodejs_heap_space_size_used_bytes{space=…}`. */
function heapOf(text: string): { used: number; spaces: Record<string, number> } {
  const used = Number(/^nodejs_heap_size_used_bytes (\S+)$/m.exec(text)?.[1] ?? 0);
  const spaces: Record<string, number> = {};
  for (const m of text.matchAll(/^nodejs_heap_space_size_used_bytes\{space="([^"]+)"\} (\S+)$/gm))
    spaces[m[1] as string] = Number(m[2]);
  return { used, spaces };
}

const jsonBytes = (o: unknown): number => Buffer.byteLength(JSON.stringify(o));

/**
 * What each informer of the controller holds: every object of the kinds it watches (cluster-wide, as
 * the controller without --namespace does), JSON bytes as listed and after the controller's transform.
 */
async function caches(admin: RestClient): Promise<CacheRow[]> {
  const t = rgdCacheTransforms;
  const kinds: [string, { apiVersion: string; kind: string }, (o: KubeObject) => KubeObject][] = [
    ['RGDs', { apiVersion: 'kro.run/v1alpha1', kind: 'ResourceGraphDefinition' }, t.rgd],
    ['CRDs', { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' }, t.crd],
    ['instances', INSTANCE_API, t.instance],
    ...(['ConfigMap', 'Secret', 'ServiceAccount', 'Service'].map((kind) => [
      `children: ${kind}s`,
      { apiVersion: 'v1', kind },
      t.child,
    ]) as [string, { apiVersion: string; kind: string }, (o: KubeObject) => KubeObject][]),
  ];
  const rows: CacheRow[] = [];
  for (const [cache, target, transform] of kinds) {
    const { items } = await admin.listAll(target);
    let listedBytes = 0;
    let cachedBytes = 0;
    for (const o of items) {
      listedBytes += jsonBytes(o);
      cachedBytes += jsonBytes(transform(structuredClone(o)));
    }
    rows.push({ cache, objects: items.length, listedBytes, cachedBytes });
  }
  return rows;
}

/** File-backed and anonymous resident memory of a process, MiB (/proc/PID/status RssFile, RssAnon). */
function rssSplit(pid: number): { file: number; anon: number } {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (f: string) => Number(new RegExp(`${f}:\\s+(\\d+) kB`).exec(text)?.[1] ?? 0) / 1024;
  return { file: kb('RssFile'), anon: kb('RssAnon') };
}

/** An idle bare node process: what any Node program starts from. */
async function bareNode(): Promise<{ rss: number; file: number; anon: number }> {
  const p = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1e9)'], { stdio: 'ignore' });
  try {
    await sleep(2000);
    return { rss: rssMiB(p.pid ?? 0), ...rssSplit(p.pid ?? 0) };
  } finally {
    p.kill('SIGTERM');
  }
}

async function waitHttp(url: string, proc: ChildProcess): Promise<void> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`the controller exited with code ${proc.exitCode}`);
    const r = await fetch(url).catch(() => undefined);
    if (r?.status === 200) return;
    if (Date.now() > deadline) throw new Error(`the controller is not ready after 120 s (${url})`);
    await sleep(50);
  }
}

/** SIGUSR2 makes the controller (`--heapsnapshot-signal`) write a snapshot into OUT; its path once written. */
async function snapshot(proc: ChildProcess): Promise<string> {
  const before = new Set(readdirSync(OUT));
  proc.kill('SIGUSR2');
  for (;;) {
    await sleep(1000);
    const file = readdirSync(OUT).find((f) => f.endsWith('.heapsnapshot') && !before.has(f));
    if (!file) continue;
    // Written in one go, the size stops growing when done.
    const path = join(OUT, file);
    const a = statSync(path).size;
    await sleep(2000);
    if (statSync(path).size === a && a > 0) return path;
  }
}

if (!args.includes('--no-build')) execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
if (SNAPSHOT) {
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });
}

/** One controller under test: a checkout's bin/kgraph.js (its dist/) and node flags. */
interface Variant {
  label: string;
  root: string;
  nodeArgs: string[];
}

/** One run of a variant on a fresh control plane: every level, and (snapshot) the heap's top constructors. */
async function run(v: Variant, snapshotAtEnd: boolean): Promise<{ levels: Level[]; snapshot: string[] }> {
  const bench = await startBenchPlane('rgd-memory');
  const { plane, admin } = bench;
  const levels: Level[] = [];
  let snapshotLines: string[] = [];
  let proc: ChildProcess | undefined;
  try {
    await admin.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    await installRgdCrd(admin);
    const port = await freePort();
    proc = spawnRgdController({
      kubeconfig: plane.kubeconfig,
      port,
      concurrency: CONCURRENCY,
      root: v.root,
      nodeArgs: [
        ...v.nodeArgs,
        ...(snapshotAtEnd ? ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${OUT}`] : []),
      ],
    });
    const pid = proc.pid ?? 0;
    await waitHttp(`http://127.0.0.1:${port}/readyz`, proc);
    await applyBenchRgdUntilActive(admin, proc, 'the controller');
    admin.discovery.invalidate(INSTANCE_API.apiVersion);
    await sleep(1000); // the instance informer starts after Active

    const active = new Set<string>();
    const watch = new Informer(admin, { target: { ...INSTANCE_API, namespace: NS } });
    const onInstance = (o: KubeObject) => {
      if (instanceActive(o)) active.add(o.metadata.name ?? '');
    };
    watch.addHandlers({ add: onInstance, update: (_o, n) => onInstance(n) });
    watch.start();
    await watch.waitForSync();
    try {
      let created = 0;
      for (const level of LEVELS) {
        const cpu0 = cpuMs(pid);
        const t0 = performance.now();
        await pool(
          Array.from({ length: level - created }, (_, i) => created + i),
          16,
          async (i) => {
            await admin.create(benchInstance(i, NS));
          },
        );
        created = level;
        while (active.size < level) {
          if (proc.exitCode !== null) throw new Error(`the controller exited with code ${proc.exitCode}`);
          await sleep(250);
        }
        const convergeMs = performance.now() - t0;
        const cpuStepMs = cpuMs(pid) - cpu0;
        const idle0 = cpuMs(pid);
        await sleep(IDLE_S * 1000);
        const cpuIdleMs = cpuMs(pid) - idle0;
        const rss: number[] = [];
        const split: { file: number; anon: number }[] = [];
        for (let s = 0; s < SAMPLES; s++) {
          rss.push(rssMiB(pid));
          split.push(rssSplit(pid));
          await sleep(1000);
        }
        const heap = heapOf(await metricsText(port));
        const row: Level = {
          instances: level,
          convergeMs,
          cpuStepMs,
          cpuIdleMs,
          rssMiB: median(rss),
          rssFileMiB: median(split.map((x) => x.file)),
          rssAnonMiB: median(split.map((x) => x.anon)),
          heapUsed: heap.used,
          spaces: heap.spaces,
          caches: await caches(admin),
          load: loadAverage(),
        };
        levels.push(row);
        process.stderr.write(
          `${v.label}, ${level} instances: ACTIVE in ${(convergeMs / 1000).toFixed(1)} s, RSS ${row.rssMiB.toFixed(1)} MiB, heap ${MiB(row.heapUsed)} MiB, step CPU ${(cpuStepMs / 1000).toFixed(2)} s, load ${row.load}\n`,
        );
      }
      if (snapshotAtEnd) {
        const path = await snapshot(proc);
        snapshotLines = [
          '',
          `At ${LEVELS.at(-1)} instances, after the measurements (${path.slice(ROOT.length + 1)}). ${topConstructors(path, 15).join('\n')}`,
        ];
      }
    } finally {
      await watch.stop();
    }
  } finally {
    proc?.kill('SIGTERM');
    if (proc && proc.exitCode === null) await once(proc, 'exit').catch(() => undefined);
    await bench.stop();
  }
  return { levels, snapshot: snapshotLines };
}

const commitOf = (dir: string): string =>
  execFileSync('git', ['-C', dir, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
const variants: Variant[] = [
  ...(BASELINE ? [{ label: `before (${commitOf(BASELINE)})`, root: BASELINE, nodeArgs: [] }] : []),
  ...COMPARE_ARGS.map((a) => ({ label: `${LABEL}, node ${a}`, root: ROOT, nodeArgs: a.split(' ') })),
  { label: LABEL, root: ROOT, nodeArgs: NODE_ARGS },
];
/** Per variant, every round's levels (rounds alternate the variants). */
const results = new Map<string, Level[][]>(variants.map((v) => [v.label, []]));
let snapshotLines: string[] = [];
for (let r = 0; r < ROUNDS; r++) {
  for (const v of variants) {
    const last = v === variants.at(-1) && r === ROUNDS - 1;
    const out = await run(v, SNAPSHOT && last);
    results.get(v.label)?.push(out.levels);
    if (last) snapshotLines = out.snapshot;
  }
}

/** The median of a figure over the rounds of a variant, at one level. */
const med = (label: string, i: number, f: (l: Level) => number): number =>
  median(
    (results.get(label) ?? [])
      .map((levels) => levels[i])
      .filter((l) => l !== undefined)
      .map(f),
  );
const loads = (label: string, i: number): string =>
  (results.get(label) ?? []).map((levels) => levels[i]?.load ?? '?').join('/');
const bare = await bareNode();
const lines = [
  measuredBy(
    'rgd-memory.bench.ts',
    `1-min load at each measurement in the table, ${ROUNDS} round(s), medians`,
  ),
  `\`node [flags] bin/kgraph.js controller --no-graphs\` (compiled dist/, ${CONCURRENCY} instance workers), its own process, on a fresh local control plane per run; one RGD of 5 children (bench/vs-kro/rgd.ts); instances created in steps (16 creates in flight); each level measured once all are ACTIVE and the controller has been idle ${IDLE_S} s. RSS: median of ${SAMPLES} samples a second apart (/proc), split into file-backed (the node binary's mapped pages, shared libraries) and anonymous; V8 heap from the controller's /metrics (no forced GC); CPU user + system of the process. ${variants.length > 1 ? 'Variants run one after the other, alternating per round.' : ''}`,
  '',
  `| instances | variant | RSS | of it file-backed / anonymous | V8 heap used | new space | create → all ACTIVE | controller CPU of the step | CPU in ${IDLE_S} s idle | 1-min load |`,
  '|---|---|---|---|---|---|---|---|---|---|',
  ...LEVELS.flatMap((level, i) =>
    variants.map((v) => {
      const m = (f: (l: Level) => number) => med(v.label, i, f);
      return `| ${level} | ${v.label} | ${m((l) => l.rssMiB).toFixed(1)} MiB | ${m((l) => l.rssFileMiB).toFixed(1)} / ${m((l) => l.rssAnonMiB).toFixed(1)} MiB | ${MiB(m((l) => l.heapUsed))} MiB | ${MiB(m((l) => l.spaces.new ?? 0))} MiB | ${level === 0 ? '—' : `${(m((l) => l.convergeMs) / 1000).toFixed(1)} s`} | ${(m((l) => l.cpuStepMs) / 1000).toFixed(2)} s | ${(m((l) => l.cpuIdleMs) / 1000).toFixed(2)} s | ${loads(v.label, i)} |`;
    }),
  ),
  '',
  `A bare \`node -e 'setInterval(…)'\` (Node ${process.version}) on this machine: RSS ${bare.rss.toFixed(1)} MiB, of it file-backed ${bare.file.toFixed(1)} MiB, anonymous ${bare.anon.toFixed(1)} MiB.`,
];
const lastRun = results
  .get(variants.at(-1)?.label ?? '')
  ?.at(-1)
  ?.at(-1);
if (lastRun) {
  lines.push(
    '',
    `What the informer caches hold at ${lastRun.instances} instances (${variants.at(-1)?.label}; JSON bytes of every object of the watched kinds, cluster-wide, as the server lists them and as src/controller/rgd/caches.ts keeps them):`,
    '',
    '| cache | objects | as listed | as cached |',
    '|---|---|---|---|',
    ...lastRun.caches.map(
      (c) => `| ${c.cache} | ${c.objects} | ${KiB(c.listedBytes)} KiB | ${KiB(c.cachedBytes)} KiB |`,
    ),
  );
}
lines.push(...snapshotLines);
if (NOTE) lines.push('', readFileSync(NOTE, 'utf8').trim());
process.stdout.write(`${lines.join('\n')}\n`);
if (args.includes('--write')) writeReadmeSection(`## ${SECTION}\n\n${lines.join('\n')}\n`);
