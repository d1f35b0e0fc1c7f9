/**
 * CLI and controller start-up: `kgraph --version`, a 5-node `kgraph validate`, and
 * the CPU a `kgraph controller` spends until /readyz answers 200, on the compiled CLI (dist/, what
 * `npx kgraph` runs) and, for comparison, on the sources through tsx (KGRAPH_SOURCES=1, what every
 * start cost before). Each figure is the median of 5 runs; wall and CPU (user + system) of the process.
 * The controller runs against a fresh local control plane with the CRDs installed.
 *
 * `--against DIR` compares with another checkout instead of the sources (e.g. a `git worktree` of the
 * commit before a change; its dist/ is built first): the two CLIs run alternately, one of ours then one
 * of theirs, and each figure gets the median of the pairwise CPU ratios (robust to load that drifts
 * during the run) and the controller's RSS at /readyz. With --write it fills the section
 * `## CLI and controller start-up, against a baseline`.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { installGraphCrd } from '../src/controller/graph/crd.ts';
import { installRgdCrd } from '../src/controller/rgd/crd.ts';
import { KubeConfig } from '../src/kube/kubeconfig.ts';
import { RestClient } from '../src/kube/rest.ts';
import { startLocalControlPlane } from '../src/localplane/localControlPlane.ts';
import { loadAverage, measuredBy, median, writeReadmeSection } from './support.ts';

const RUNS = 5;
const root = join(import.meta.dirname, '..');
const bin = join(root, 'bin', 'kgraph.js');
const dir = mkdtempSync(join(tmpdir(), 'kgraph-bench-startup-'));
const write = process.argv.includes('--write');
const againstAt = process.argv.indexOf('--against');
const against = againstAt >= 0 ? process.argv[againstAt + 1] : undefined;
const againstBin = against ? join(against, 'bin', 'kgraph.js') : undefined;

execFileSync('npm', ['run', 'build'], { cwd: root, stdio: 'ignore' });
if (against) execFileSync('npm', ['run', 'build'], { cwd: against, stdio: 'ignore' });

const graph = join(dir, 'five.yaml');
writeFileSync(
  graph,
  `apiVersion: kro.run/v1alpha1
kind: Graph
metadata: { name: five }
spec:
  nodes:
${['a', 'b', 'c', 'd', 'e']
  .map(
    (id, i, all) => `    - id: ${id}
      template:
        apiVersion: v1
        kind: ConfigMap
        metadata: { name: ${id} }
        data: { x: "${i === 0 ? '1' : `\${${all[i - 1]}.data.x}`}" }`,
  )
  .join('\n')}
`,
);

interface Sample {
  wall: number;
  cpu: number;
  /** VmRSS at /readyz, KiB (controller start only). */
  rssKiB?: number;
}

/** One run under /usr/bin/time: wall and user + system seconds of the process, in ms. */
function timed(args: string[], env: NodeJS.ProcessEnv, cli = bin): Sample {
  const r = spawnSync('/usr/bin/time', ['-f', '%e %U %S', process.execPath, cli, ...args], {
    encoding: 'utf8',
    env,
  });
  const last = r.stderr.trim().split('\n').at(-1) ?? '';
  const [wall, user, sys] = last.split(' ').map(Number);
  if (r.status !== 0 || wall === undefined || user === undefined || sys === undefined)
    throw new Error(`kgraph ${args.join(' ')} failed: ${r.stderr}`);
  return { wall: wall * 1000, cpu: (user + sys) * 1000 };
}

function medianOf(samples: Sample[]): Sample {
  return { wall: median(samples.map((s) => s.wall)), cpu: median(samples.map((s) => s.cpu)) };
}

const compiledEnv = { ...process.env, KGRAPH_SOURCES: '0', NO_COLOR: '1' };
const sourcesEnv = { ...process.env, KGRAPH_SOURCES: '1', NO_COLOR: '1' };
const cli = (args: string[], env: NodeJS.ProcessEnv): Sample => {
  timed(args, env); // warm the file cache
  return medianOf(Array.from({ length: RUNS }, () => timed(args, env)));
};

/** Alternating runs of ours and the baseline's (after one warm-up each). */
interface Paired {
  ours: Sample[];
  theirs: Sample[];
}
async function paired(run: (cli: string) => Sample | Promise<Sample>): Promise<Paired> {
  const out: Paired = { ours: [], theirs: [] };
  if (!againstBin) return out;
  await run(bin);
  await run(againstBin);
  for (let i = 0; i < RUNS; i++) {
    out.ours.push(await run(bin));
    out.theirs.push(await run(againstBin));
  }
  return out;
}

const version = against
  ? undefined
  : { compiled: cli(['--version'], compiledEnv), sources: cli(['--version'], sourcesEnv) };
const validate = against
  ? undefined
  : { compiled: cli(['validate', graph], compiledEnv), sources: cli(['validate', graph], sourcesEnv) };
const versionPaired = await paired((c) => timed(['--version'], compiledEnv, c));
const validatePaired = await paired((c) => timed(['validate', graph], compiledEnv, c));

function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const s = createServer();
    s.once('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => res(typeof a === 'object' && a ? a.port : 0));
    });
  });
}

function readyz(port: number): Promise<boolean> {
  return new Promise((res) => {
    const req = get({ host: '127.0.0.1', port, path: '/readyz', timeout: 500 }, (r) => {
      r.resume();
      res(r.statusCode === 200);
    });
    req.on('error', () => res(false));
    req.on('timeout', () => {
      req.destroy();
      res(false);
    });
  });
}

/** utime + stime of a live process, in ms (Linux /proc, 100 clock ticks a second). */
function cpuOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** VmRSS of a live process, KiB. */
function rssOf(pid: number): number {
  const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m?.[1] ?? 0);
}

async function controllerStart(kubeconfig: string, env: NodeJS.ProcessEnv, cli = bin): Promise<Sample> {
  const port = await freePort();
  const started = Date.now();
  const child = spawn(
    process.execPath,
    [
      cli,
      'controller',
      '--kubeconfig',
      kubeconfig,
      '--metrics-addr',
      '0',
      '--health-addr',
      `127.0.0.1:${port}`,
      '--no-install-crd',
    ],
    { env, stdio: 'ignore' },
  );
  try {
    while (!(await readyz(port))) {
      if (Date.now() - started > 60_000) throw new Error('the controller did not become ready in 60 s');
      await new Promise((r) => setTimeout(r, 20));
    }
    return { wall: Date.now() - started, cpu: cpuOf(child.pid ?? 0), rssKiB: rssOf(child.pid ?? 0) };
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
}

const planeDir = join(dir, 'plane');
const plane = await startLocalControlPlane({ dataDir: planeDir, ephemeral: true });
let controller: { compiled: Sample; sources: Sample } | undefined;
let controllerPaired: Paired = { ours: [], theirs: [] };
try {
  const kc = new KubeConfig();
  kc.loadFromFile(plane.kubeconfig);
  const client = new RestClient(kc);
  await installGraphCrd(client);
  await installRgdCrd(client);
  client.close();
  const runs = async (env: NodeJS.ProcessEnv): Promise<Sample> => {
    await controllerStart(plane.kubeconfig, env);
    const out: Sample[] = [];
    for (let i = 0; i < RUNS; i++) out.push(await controllerStart(plane.kubeconfig, env));
    return medianOf(out);
  };
  if (against) controllerPaired = await paired((c) => controllerStart(plane.kubeconfig, compiledEnv, c));
  else controller = { compiled: await runs(compiledEnv), sources: await runs(sourcesEnv) };
} finally {
  await plane.stop();
  rmSync(dir, { recursive: true, force: true });
}

const ms = (x: number): string => `${x.toFixed(0)} ms`;
const row = (name: string, goal: string, s: { compiled: Sample; sources: Sample }): string =>
  `| ${name} | ${ms(s.compiled.wall)} | ${ms(s.compiled.cpu)} | ${goal} | ${ms(s.sources.wall)} | ${ms(s.sources.cpu)} | ${(s.sources.cpu / s.compiled.cpu).toFixed(1)}× |`;
const baseline = medianOf(
  Array.from({ length: RUNS }, () => {
    const r = spawnSync('/usr/bin/time', ['-f', '%e %U %S', process.execPath, '-e', ''], {
      encoding: 'utf8',
    });
    const [w, u, s] = (r.stderr.trim().split('\n').at(-1) ?? '').split(' ').map(Number);
    return { wall: (w ?? 0) * 1000, cpu: ((u ?? 0) + (s ?? 0)) * 1000 };
  }),
);

const pairedRow = (name: string, p: Paired): string => {
  const ratio = median(p.ours.map((o, i) => o.cpu / (p.theirs[i]?.cpu ?? Number.NaN)));
  const rss = (xs: Sample[]) => median(xs.map((x) => x.rssKiB ?? 0)) / 1024;
  const rssCells =
    p.ours[0]?.rssKiB !== undefined
      ? ` ${rss(p.theirs).toFixed(1)} MiB | ${rss(p.ours).toFixed(1)} MiB | ${(median(p.ours.map((o, i) => (o.rssKiB ?? 0) / (p.theirs[i]?.rssKiB ?? Number.NaN)))).toFixed(2)}× |`
      : ' — | — | — |';
  return `| ${name} | ${ms(medianOf(p.theirs).wall)} / ${ms(medianOf(p.theirs).cpu)} | ${ms(medianOf(p.ours).wall)} / ${ms(medianOf(p.ours).cpu)} | ${ratio.toFixed(2)}× |${rssCells}`;
};

const section = against
  ? `## CLI and controller start-up, against a baseline

${measuredBy('startup.bench.ts', `\`--against ${against}\`, load average ${loadAverage()} at the end`)}
Both compiled (dist/); ${RUNS} runs each after one warm-up, ours and the baseline's alternately, so that load
drifting during the run hits both alike. Wall / CPU are medians; the CPU and RSS ratios are medians of the
${RUNS} pairwise ratios (ours / baseline). RSS = VmRSS of the controller process when /readyz first answers 200.

| figure | baseline (wall / CPU) | this checkout (wall / CPU) | CPU ratio | baseline RSS | this checkout RSS | RSS ratio |
|---|---|---|---|---|---|---|
${pairedRow('`kgraph --version`', versionPaired)}
${pairedRow('`kgraph validate` (5 nodes)', validatePaired)}
${pairedRow('`kgraph controller` start', controllerPaired)}
`
  : `## CLI and controller start-up

${measuredBy('startup.bench.ts', `load average ${loadAverage()} at the end`)}
Median of ${RUNS} runs each (after one warm-up); wall and CPU (user + system) of the kgraph process. "compiled" is what
\`npx kgraph\` runs (dist/, built by \`npm ci\`/\`npm pack\` through \`prepare\`); "sources" is the TypeScript through tsx
(\`KGRAPH_SOURCES=1\`, how every command started before). Controller start = spawn → \`/readyz\` 200 against a fresh
local control plane with the CRDs installed (Graphs and RGDs, no objects). A bare \`node -e ''\` takes ${ms(baseline.wall)} wall, ${ms(baseline.cpu)} CPU here: on a loaded machine the wall times are
inflated by waiting for a core, the CPU times and their ratio are the comparable figures.

| figure | compiled (wall) | compiled (CPU) | goal | sources (wall) | sources (CPU) | sources/compiled (CPU) |
|---|---|---|---|---|---|---|
${version ? row('`kgraph --version`', '< 150 ms', version) : ''}
${validate ? row('`kgraph validate` (5 nodes)', '< 400 ms', validate) : ''}
${controller ? row('`kgraph controller` start', '< 500 ms CPU', controller) : ''}
`;
process.stdout.write(section);
if (write) writeReadmeSection(section);
