/**
 * kgraph against kro, side by side: the same ResourceGraphDefinition (bench/vs-kro/rgd.ts,
 * 5 children per instance) and N instances, reconciled once by `kgraph controller` and once by kro's own
 * controller (github.com/kubernetes-sigs/kro v0.9.4, built unchanged from the Go module proxy by
 * bench/vs-kro/kro/build.sh), each on a fresh local control plane, one after the other; then the bare
 * server-side-apply loop of the same objects at the same concurrency (bench/workload.ts). Median of
 * `--rounds` for every figure. Not part of `npm test`.
 *
 * Run: npm run bench:vs-kro -- [--write] [--instances 200] [--concurrency 4] [--rounds 3] [--steady-seconds 120]
 *        [--only kgraph,kro,bare] [--server-report] [--pprof DIR] [--pprof-seconds 10] [--poll-lists]
 *        [--idle-delay 10]
 * With --write the table replaces the `## kgraph vs kro` section of bench/README.md (all three only).
 * --only runs a subset (comma list of kgraph, kro, bare); --server-report prints the API server's own
 * requests by verb and resource with their mean durations for each run's convergence (bench/vs-kro/
 * apiserver.ts); --pprof DIR writes a CPU profile of the API server (with etcd) over the first
 * --pprof-seconds of each convergence to DIR/<who>-<round>.pb.gz (`go tool pprof -top FILE`).
 * Convergence is awaited through a watch of the instances (one list, one watch: the benchmark adds no
 * polling load to the server); --poll-lists lists them every 250 ms instead, as before. The idle window
 * starts --idle-delay seconds after the last instance is ACTIVE, so the tail of convergence (status
 * echoes, GC) is not counted as idle.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { installRgdCrd } from '../../src/controller/rgd/crd.ts';
import type { KubeObject } from '../../src/kube/index.ts';
import { Informer } from '../../src/kube/informer.ts';
import { KubeConfig } from '../../src/kube/kubeconfig.ts';
import { VERBS, WRITE_VERBS } from '../../src/kube/metrics.ts';
import { RestClient } from '../../src/kube/rest.ts';
import { freePort } from '../../src/localplane/freePort.ts';
import { startLocalControlPlane } from '../../src/localplane/localControlPlane.ts';
import { loadAverage, measuredBy, median, writeReadmeSection } from '../support.ts';
import { bareApplyLoop } from '../workload.ts';
import {
  formatServerReport,
  type ServerSnapshot,
  serverCpuProfile,
  serverDiff,
  serverSnapshot,
  totalRequests,
} from './apiserver.ts';
import { cpuMs, rssMiB, treeCpuMs } from './proc.ts';
import { applyBenchRgdUntilActive, benchInstance, INSTANCE_API, instanceActive } from './rgd.ts';

const arg = (name: string, dflt: number): number => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
const INSTANCES = arg('--instances', 200);
const CONCURRENCY = arg('--concurrency', 4);
const ROUNDS = arg('--rounds', 3);
const STEADY_S = arg('--steady-seconds', 120);
const IDLE_DELAY_S = arg('--idle-delay', 10);
const strArg = (name: string): string | undefined => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const ONLY = new Set((strArg('--only') ?? 'kgraph,kro,bare').split(',').map((w) => w.trim()));
for (const w of ONLY)
  if (!['kgraph', 'kro', 'bare'].includes(w)) throw new Error(`--only: unknown ${w} (kgraph, kro, bare)`);
const SERVER_REPORT = process.argv.includes('--server-report');
const PPROF_DIR = strArg('--pprof');
const PPROF_S = arg('--pprof-seconds', 10);
const POLL_LISTS = process.argv.includes('--poll-lists');
if (process.argv.includes('--write') && ONLY.size < 3)
  throw new Error('--write needs all of kgraph, kro and bare (no --only)');
const NS = 'bench';
const repo = join(import.meta.dirname, '..', '..');
const KRO_MODULE = join(import.meta.dirname, 'kro');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Requests {
  total: number;
  writes: number;
}

/** One controller under test: how to install its CRDs, start it and read its request counters. */
interface Contender {
  name: string;
  installCrds(admin: RestClient): Promise<void>;
  start(kubeconfig: string, metricsPort: number, healthPort: number): ChildProcess;
  requests(metricsPort: number): Promise<Requests>;
}

async function metricsText(port: number): Promise<string> {
  return (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
}

const kgraph: Contender = {
  name: 'kgraph',
  installCrds: async (admin) => {
    await installRgdCrd(admin);
  },
  start: (kubeconfig, metricsPort, healthPort) =>
    spawn(
      process.execPath,
      [
        join(repo, 'bin', 'kgraph.js'),
        'controller',
        '--kubeconfig',
        kubeconfig,
        '--no-graphs',
        '--no-install-crd',
        '--rgd-concurrency',
        String(CONCURRENCY),
        '--metrics-addr',
        `127.0.0.1:${metricsPort}`,
        '--health-addr',
        `127.0.0.1:${healthPort}`,
        '--log-level',
        'warn',
      ],
      // dist/, as a user runs it (the bench builds it first), never the sources through tsx.
      { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, KGRAPH_SOURCES: '' } },
    ),
  requests: async (port) => {
    const text = await metricsText(port);
    const count = (v: string) =>
      Number(new RegExp(`^kgraph_api_requests_total\\{verb="${v}"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
    return {
      total: VERBS.reduce((n, v) => n + count(v), 0),
      writes: WRITE_VERBS.reduce((n, v) => n + count(v), 0),
    };
  },
};

function kroModuleDir(): string {
  return execFileSync('go', ['list', '-m', '-f', '{{.Dir}}', 'github.com/kubernetes-sigs/kro'], {
    cwd: KRO_MODULE,
    encoding: 'utf8',
  }).trim();
}

function kro(binary: string): Contender {
  return {
    name: 'kro v0.9.4',
    installCrds: async (admin) => {
      // kro's own CRDs (ResourceGraphDefinition, GraphRevision) from its released module.
      const dir = join(kroModuleDir(), 'helm', 'crds');
      for (const file of readdirSync(dir).filter((f) => f.endsWith('.yaml'))) {
        for (const doc of parseAllDocuments(readFileSync(join(dir, file), 'utf8'))) {
          const crd = doc.toJS() as KubeObject | null;
          if (crd) await admin.apply(crd, { fieldManager: 'bench', force: true });
        }
      }
      for (const file of readdirSync(dir).filter((f) => f.endsWith('.yaml'))) {
        const name = file.replace(/\.yaml$/, '').replace(/^([^_]+)_(.+)$/, '$2.$1');
        for (;;) {
          const crd = await admin.getOrUndefined({
            apiVersion: 'apiextensions.k8s.io/v1',
            kind: 'CustomResourceDefinition',
            name,
          });
          const conds = (crd?.status as { conditions?: { type: string; status: string }[] } | undefined)
            ?.conditions;
          if (conds?.some((c) => c.type === 'Established' && c.status === 'True')) break;
          await sleep(100);
        }
      }
    },
    start: (kubeconfig, metricsPort, healthPort) =>
      spawn(
        binary,
        [
          `--metrics-bind-address=127.0.0.1:${metricsPort}`,
          `--health-probe-bind-address=127.0.0.1:${healthPort}`,
          `--dynamic-controller-concurrent-reconciles=${CONCURRENCY}`,
          // Production logging (its default is zap's development mode, debug level), errors only as kgraph's warn.
          '--zap-devel=false',
          '--zap-log-level=error',
        ],
        { stdio: ['ignore', 'ignore', 'ignore'], env: { ...process.env, KUBECONFIG: kubeconfig } },
      ),
    requests: async (port) => {
      // controller-runtime's client-go adapter: rest_client_requests_total{code,host,method}.
      let total = 0;
      let writes = 0;
      for (const m of (await metricsText(port)).matchAll(
        /^rest_client_requests_total\{([^}]*)\} ([0-9.e+]+)$/gm,
      )) {
        const n = Number(m[2]);
        total += n;
        if (/method="(POST|PUT|PATCH|DELETE)"/.test(m[1] ?? '')) writes += n;
      }
      return { total, writes };
    },
  };
}

interface ControllerRound {
  convergeMs: number;
  /** What the API server counted during convergence. */
  server: ServerSnapshot;
  converge: Requests;
  steady: Requests;
  cpuStartMs: number;
  cpuConvergeMs: number;
  cpuIdleMs: number;
  rssPeak: number;
  rssSteady: number;
  planeCpuMs: number;
  load: string;
}

async function waitHttp(url: string, proc: ChildProcess, what: string): Promise<void> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (proc.exitCode !== null)
      throw new Error(`${what} exited with code ${proc.exitCode} before it was ready`);
    const r = await fetch(url).catch(() => undefined);
    if (r?.status === 200) return;
    if (Date.now() > deadline) throw new Error(`${what} not ready after 120 s (${url})`);
    await sleep(50);
  }
}

/** Resolves when every instance of `informer` is ACTIVE (checked at each event); rejects if `proc` exits. */
function allActive(informer: Informer, proc: ChildProcess, who: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const active = new Set<string>();
    let done = false;
    const check = (o: KubeObject) => {
      if (done) return;
      const key = o.metadata.name ?? '';
      if (instanceActive(o)) active.add(key);
      else active.delete(key);
      if (active.size >= INSTANCES) {
        done = true;
        proc.off('exit', exited);
        resolve();
      }
    };
    const exited = (code: number | null) => {
      if (!done) reject(new Error(`${who} exited with code ${code}`));
      done = true;
    };
    proc.on('exit', exited);
    informer.addHandlers({
      add: check,
      update: (_, o) => check(o),
      delete: (o) => active.delete(o.metadata.name ?? ''),
    });
  });
}

async function pollActive(admin: RestClient, proc: ChildProcess, who: string): Promise<void> {
  for (;;) {
    const list = await admin.listAll({ ...INSTANCE_API, namespace: NS });
    if (list.items.filter(instanceActive).length >= INSTANCES) return;
    if (proc.exitCode !== null) throw new Error(`${who} exited with code ${proc.exitCode}`);
    await sleep(250);
  }
}

function writeProfile(who: string, round: number, profile: Promise<Buffer> | undefined): Promise<void> {
  if (!profile || !PPROF_DIR) return Promise.resolve();
  return profile.then(
    (buf) => {
      mkdirSync(PPROF_DIR, { recursive: true });
      const file = join(PPROF_DIR, `${who.replace(/[^\w.-]+/g, '_')}-${round}.pb.gz`);
      writeFileSync(file, buf);
      process.stderr.write(`  API server CPU profile: ${file}\n`);
    },
    (e: unknown) => {
      process.stderr.write(`  API server CPU profile failed: ${(e as Error).message}\n`);
    },
  );
}

async function controllerRound(c: Contender, round: number): Promise<ControllerRound> {
  const dataDir = mkdtempSync(join(tmpdir(), 'kgraph-bench-vskro-'));
  const plane = await startLocalControlPlane({ dataDir, ephemeral: true });
  const kc = new KubeConfig();
  kc.loadFromFile(plane.kubeconfig);
  const admin = new RestClient(kc);
  let proc: ChildProcess | undefined;
  try {
    await admin.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    await c.installCrds(admin);
    const metricsPort = await freePort();
    const healthPort = await freePort();
    proc = c.start(plane.kubeconfig, metricsPort, healthPort);
    const pid = proc.pid ?? 0;
    await waitHttp(`http://127.0.0.1:${healthPort}/readyz`, proc, c.name);

    await applyBenchRgdUntilActive(admin, proc, c.name);
    // Start-up ends when the controller serves the instance kind: kro's /readyz answers before its caches
    // sync, kgraph's after, so the process's CPU at readyz alone would not compare like with like.
    const cpuStartMs = cpuMs(pid);
    admin.discovery.invalidate(INSTANCE_API.apiVersion);
    await sleep(1000); // the instance informer starts after Active

    // The benchmark's own watch of the instances, opened (empty) before the first create.
    const informer = POLL_LISTS
      ? undefined
      : new Informer(admin, { target: { ...INSTANCE_API, namespace: NS } });
    informer?.start();
    await informer?.waitForSync();
    const converged = informer ? allActive(informer, proc, c.name) : undefined;

    const load = loadAverage();
    const before = await c.requests(metricsPort);
    const server0 = await serverSnapshot(kc);
    const cpu0 = cpuMs(pid);
    const plane0 = treeCpuMs(plane.process.pid ?? 0);
    const rss: number[] = [];
    const sampleRss = () => rss.push(rssMiB(pid));
    const rssTimer = setInterval(sampleRss, 250);
    const profile = PPROF_DIR ? serverCpuProfile(kc, PPROF_S) : undefined;
    const t0 = performance.now();
    try {
      await Promise.all(Array.from({ length: INSTANCES }, (_, i) => admin.create(benchInstance(i, NS))));
      if (converged) await converged;
      else await pollActive(admin, proc, c.name);
    } finally {
      clearInterval(rssTimer);
    }
    const convergeMs = performance.now() - t0;
    const cpuConvergeMs = cpuMs(pid) - cpu0;
    const planeCpuMs = treeCpuMs(plane.process.pid ?? 0) - plane0;
    sampleRss();
    const after = await c.requests(metricsPort);
    const server = serverDiff(server0, await serverSnapshot(kc));
    await informer?.stop();
    if (SERVER_REPORT)
      process.stderr.write(
        `  ${c.name}: the API server's requests during convergence (${totalRequests(server)} in all):\n${formatServerReport(server, '    ')}\n`,
      );
    await writeProfile(c.name, round, profile);

    // The last echoes settle (the tail of convergence: status echoes, GC), then a quiet window:
    // nothing changes, watches stay open.
    await sleep(IDLE_DELAY_S * 1000);
    const steady0 = await c.requests(metricsPort);
    const idle0 = cpuMs(pid);
    await sleep(STEADY_S * 1000);
    const steady1 = await c.requests(metricsPort);
    return {
      convergeMs,
      server,
      converge: { total: after.total - before.total, writes: after.writes - before.writes },
      steady: { total: steady1.total - steady0.total, writes: steady1.writes - steady0.writes },
      cpuStartMs,
      cpuConvergeMs,
      cpuIdleMs: cpuMs(pid) - idle0,
      rssPeak: Math.max(...rss),
      rssSteady: rssMiB(pid),
      planeCpuMs,
      load,
    };
  } finally {
    proc?.kill('SIGTERM');
    if (proc && proc.exitCode === null) await once(proc, 'exit').catch(() => undefined);
    admin.close();
    await plane.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

interface BareRound {
  ms: number;
  planeCpuMs: number;
  serverRequests: number;
}

async function bareRound(round: number): Promise<BareRound> {
  const dataDir = mkdtempSync(join(tmpdir(), 'kgraph-bench-vskro-bare-'));
  const plane = await startLocalControlPlane({ dataDir, ephemeral: true });
  const kc = new KubeConfig();
  kc.loadFromFile(plane.kubeconfig);
  const admin = new RestClient(kc);
  try {
    await admin.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    const server0 = await serverSnapshot(kc);
    const plane0 = treeCpuMs(plane.process.pid ?? 0);
    const profile = PPROF_DIR ? serverCpuProfile(kc, PPROF_S) : undefined;
    const ms = await bareApplyLoop(admin, NS, INSTANCES, CONCURRENCY);
    const planeCpuMs = treeCpuMs(plane.process.pid ?? 0) - plane0;
    const server = serverDiff(server0, await serverSnapshot(kc));
    if (SERVER_REPORT)
      process.stderr.write(
        `  bare SSA loop: the API server's requests (${totalRequests(server)} in all):\n${formatServerReport(server, '    ')}\n`,
      );
    await writeProfile('bare', round, profile);
    return { ms, planeCpuMs, serverRequests: totalRequests(server) };
  } finally {
    admin.close();
    await plane.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const wantKro = ONLY.has('kro');
process.stderr.write(
  `building dist/ (npm run build)${wantKro ? ' and kro (bench/vs-kro/kro/build.sh)' : ''}…\n`,
);
execFileSync('npm', ['run', 'build', '--silent'], { cwd: repo, stdio: ['ignore', 'ignore', 'inherit'] });
const kroBinary = wantKro
  ? execFileSync('bash', [join(KRO_MODULE, 'build.sh')], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    }).trim()
  : '';
const contenders = [...(ONLY.has('kgraph') ? [kgraph] : []), ...(wantKro ? [kro(kroBinary)] : [])];

const results = new Map<string, ControllerRound[]>(contenders.map((c) => [c.name, []]));
const bare: BareRound[] = [];
const loads: string[] = [];
for (let r = 0; r < ROUNDS; r++) {
  for (const c of contenders) {
    const round = await controllerRound(c, r + 1);
    results.get(c.name)?.push(round);
    loads.push(round.load);
    process.stderr.write(
      `round ${r + 1} ${c.name}: ${(round.convergeMs / 1000).toFixed(2)} s, ${round.converge.total} requests (${round.converge.writes} writes; the API server counted ${totalRequests(round.server)}), apiserver+etcd CPU ${(round.planeCpuMs / 1000).toFixed(2)} s, controller CPU ${(round.cpuConvergeMs / 1000).toFixed(2)} s, idle CPU ${(round.cpuIdleMs / 1000).toFixed(2)} s in ${STEADY_S} s, steady ${round.steady.total}, load ${round.load}\n`,
    );
  }
  if (ONLY.has('bare')) {
    const b = await bareRound(r + 1);
    bare.push(b);
    process.stderr.write(
      `round ${r + 1} bare SSA: ${(b.ms / 1000).toFixed(2)} s, apiserver+etcd CPU ${(b.planeCpuMs / 1000).toFixed(2)} s, load ${loadAverage()}\n`,
    );
  }
}

const med = (name: string, f: (r: ControllerRound) => number) => median((results.get(name) ?? []).map(f));
const names = contenders.map((c) => c.name);
const [k, o] = [names.find((n) => n === 'kgraph'), names.find((n) => n !== 'kgraph')];
const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const ratio = (a: number, b: number) => (b > 0 ? `${(a / b).toFixed(2)}×` : '—');
const hasBare = bare.length > 0;
const bareMs = median(bare.map((b) => b.ms));
const barePlane = median(bare.map((b) => b.planeCpuMs));
const bareServer = median(bare.map((b) => b.serverRequests));
type Row = [string, (r: ControllerRound) => number, (v: number) => string, number | undefined];
const rows: Row[] = [
  ['apply → all instances ACTIVE', (r) => r.convergeMs, s, bareMs],
  ['requests during convergence', (r) => r.converge.total, String, INSTANCES * 5],
  ['of which writes', (r) => r.converge.writes, String, INSTANCES * 5],
  [
    "requests the API server counted during convergence (the benchmark's creates included)",
    (r) => totalRequests(r.server),
    String,
    bareServer,
  ],
  [`requests in ${STEADY_S} s of steady state`, (r) => r.steady.total, String, undefined],
  ['controller CPU, start-up (exec → RGD Active)', (r) => r.cpuStartMs, s, undefined],
  ['controller CPU, convergence', (r) => r.cpuConvergeMs, s, undefined],
  [
    `controller CPU, ${STEADY_S} s idle (from ${IDLE_DELAY_S} s after convergence)`,
    (r) => r.cpuIdleMs,
    s,
    undefined,
  ],
  ['peak RSS (MiB)', (r) => r.rssPeak, (v) => v.toFixed(0), undefined],
  ['steady RSS (MiB)', (r) => r.rssSteady, (v) => v.toFixed(0), undefined],
  ['apiserver + etcd CPU during convergence', (r) => r.planeCpuMs, s, barePlane],
];
const cols = [...names, ...(hasBare ? ['bare SSA loop'] : [])];
const ratioCols = [...(k && o ? [`${k}/${o}`] : []), ...(k && hasBare ? [`${k}/bare`] : [])];
const lines = [
  measuredBy(
    'vs-kro/vs-kro.bench.ts',
    `1-min load ${loads.join(', ')} at the start of each measured convergence; ${ROUNDS} round(s), median`,
  ),
  `${INSTANCES} instances of one RGD (bench/vs-kro/rgd.ts: ConfigMap, Secret, ServiceAccount, ClusterIP Service, ConfigMap reading the first) = ${INSTANCES * 5} children, ${CONCURRENCY} instance workers each; \`kgraph controller --no-graphs\` (dist/) and kro v0.9.4's controller (github.com/kubernetes-sigs/kro, built unchanged by bench/vs-kro/kro/build.sh), each on its own fresh local control plane, one after the other; the bare loop server-side-applies the same ${INSTANCES * 5} objects, ${CONCURRENCY} in flight, no reads or status. Requests are each controller's own counters (kgraph_api_requests_total; kro's rest_client_requests_total, where a watch counts as a GET) and, in one row, the API server's (apiserver_request_total). Convergence is awaited through one watch of the instances${POLL_LISTS ? ' (here: --poll-lists, a list every 250 ms)' : ''}.`,
  '',
  `| figure | ${cols.join(' | ')} | ${ratioCols.join(' | ')} |`,
  `|---|${cols.map(() => '---|').join('')}${ratioCols.map(() => '---|').join('')}`,
  ...rows.map(([label, f, fmt, bareValue]) => {
    const vals = names.map((n) => med(n, f));
    const a = k ? med(k, f) : 0;
    const cells = [
      ...vals.map(fmt),
      ...(hasBare ? [bareValue === undefined ? '—' : fmt(bareValue)] : []),
      ...(k && o ? [ratio(a, med(o, f))] : []),
      ...(k && hasBare ? [bareValue === undefined ? '' : ratio(a, bareValue)] : []),
    ];
    return `| ${label} | ${cells.join(' | ')} |`;
  }),
];
process.stdout.write(`${lines.join('\n')}\n`);
if (process.argv.includes('--write')) writeReadmeSection(`## kgraph vs kro\n\n${lines.join('\n')}\n`);
