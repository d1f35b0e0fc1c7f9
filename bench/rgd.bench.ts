// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * RGD instances against a fresh local control plane: `kgraph controller --no-graphs` as its own process,
 * one RGD of 5 ConfigMap children (one base, four reading it, so two apply layers), N instances created
 * at once. Reports the time until every instance is ACTIVE, the controller's requests by verb during
 * convergence and during a quiet steady-state window (from its /metrics), and the controller's RSS.
 *
 * Run: node --import tsx bench/rgd.bench.ts [--write] [--instances N] [--concurrency N] [--steady-seconds S]
 *        [--profile] (a CPU profile of the controller's whole run, bench/.out/rgd-controller.cpuprofile,
 *        for Chrome DevTools; the top functions are printed)
 * With --write the table replaces the `## RGD controller` section of bench/README.md.
 */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { installRgdCrd } from '../src/controller/rgd/crd.ts';
import { KubeConfig } from '../src/kube/kubeconfig.ts';
import { VERBS } from '../src/kube/metrics.ts';
import { RestClient } from '../src/kube/rest.ts';
import { freePort } from '../src/localplane/freePort.ts';
import { startLocalControlPlane } from '../src/localplane/localControlPlane.ts';
import { type CpuProfile, topFunctions } from './profile.ts';
import { loadAverage, measuredBy, median, spawnRgdController, writeReadmeSection } from './support.ts';

const arg = (name: string, dflt: number): number => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
const INSTANCES = arg('--instances', 200);
const CONCURRENCY = arg('--concurrency', 4);
const STEADY_S = arg('--steady-seconds', 120);
const PROFILE = process.argv.includes('--profile');
const PROFILE_DIR = join(import.meta.dirname, '.out', 'rgd-profile');

async function requests(port: number): Promise<Record<string, number>> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const out: Record<string, number> = {};
  for (const v of VERBS) {
    const m = new RegExp(`^kgraph_api_requests_total\\{verb="${v}"\\} (\\d+)$`, 'm').exec(text);
    out[v] = Number(m?.[1] ?? 0);
  }
  return out;
}

const diff = (a: Record<string, number>, b: Record<string, number>) =>
  Object.fromEntries(VERBS.map((v) => [v, (b[v] ?? 0) - (a[v] ?? 0)]));
const fmt = (counts: Record<string, number>) =>
  VERBS.filter((v) => counts[v] !== 0)
    .map((v) => `${v} ${counts[v]}`)
    .join(', ') || 'none';

/** The process's CPU time (user + system) so far, in seconds, from /proc. */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // After the command: state is field 3, so utime (14) and stime (15) are at 11 and 12 here.
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m?.[1] ?? 0) / 1024;
}

const dataDir = mkdtempSync(join(tmpdir(), 'kgraph-bench-rgd-'));
const plane = await startLocalControlPlane({ dataDir, ephemeral: true });
const kc = new KubeConfig();
kc.loadFromFile(plane.kubeconfig);
const admin = new RestClient(kc);
const ns = 'bench';
let proc: ChildProcess | undefined;
if (PROFILE) {
  rmSync(PROFILE_DIR, { recursive: true, force: true });
  mkdirSync(PROFILE_DIR, { recursive: true });
}
try {
  await admin.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  await installRgdCrd(admin);
  const port = await freePort();
  proc = spawnRgdController({
    kubeconfig: plane.kubeconfig,
    port,
    concurrency: CONCURRENCY,
    nodeArgs: PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] : [],
  });
  const pid = proc.pid ?? 0;
  for (;;) {
    const r = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined);
    if (r?.status === 200) break;
    await new Promise((res) => setTimeout(res, 100));
  }
  const cm = (name: string, data: Record<string, string>) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name },
    data,
  });
  await admin.apply(
    {
      apiVersion: 'kro.run/v1alpha1',
      kind: 'ResourceGraphDefinition',
      metadata: { name: 'benchapp' },
      spec: {
        schema: {
          apiVersion: 'v1alpha1',
          kind: 'BenchApp',
          spec: { size: 'integer | default=1' },
          status: { base: '${base.metadata.name}' },
        },
        resources: [
          {
            id: 'base',
            template: cm('${schema.metadata.name}-base', { size: '${string(schema.spec.size)}' }),
          },
          ...Array.from({ length: 4 }, (_, k) => ({
            id: `leaf${k}`,
            template: cm(`\${schema.metadata.name}-leaf${k}`, { from: '${base.metadata.name}' }),
          })),
        ],
      },
    },
    { fieldManager: 'bench', force: true },
  );
  for (;;) {
    const r = await admin.getOrUndefined({
      apiVersion: 'kro.run/v1alpha1',
      kind: 'ResourceGraphDefinition',
      name: 'benchapp',
    });
    if ((r?.status as { state?: string } | undefined)?.state === 'Active') break;
    await new Promise((res) => setTimeout(res, 100));
  }
  admin.discovery.invalidate('kro.run/v1alpha1');
  const rssIdle = rssMiB(pid);

  const active = async (): Promise<number> => {
    const list = await admin.listAll({ apiVersion: 'kro.run/v1alpha1', kind: 'BenchApp', namespace: ns });
    return list.items.filter((o) => (o.status as { state?: string } | undefined)?.state === 'ACTIVE').length;
  };
  const before = await requests(port);
  const cpu0 = cpuSeconds(pid);
  const t0 = performance.now();
  const rssSamples: number[] = [];
  await Promise.all(
    Array.from({ length: INSTANCES }, (_, i) =>
      admin.create({
        apiVersion: 'kro.run/v1alpha1',
        kind: 'BenchApp',
        metadata: { name: `app${i}`, namespace: ns },
        spec: {},
      }),
    ),
  );
  while ((await active()) < INSTANCES) {
    rssSamples.push(rssMiB(pid));
    await new Promise((res) => setTimeout(res, 250));
  }
  const convergeMs = performance.now() - t0;
  const convergeCpu = cpuSeconds(pid) - cpu0;
  const loadConverged = loadAverage();
  const converge = diff(before, await requests(port));
  // Let the last events (our own status echoes) settle before the steady window.
  await new Promise((res) => setTimeout(res, 5000));
  const steadyBefore = await requests(port);
  await new Promise((res) => setTimeout(res, STEADY_S * 1000));
  const steady = diff(steadyBefore, await requests(port));
  const rssEnd = rssMiB(pid);
  const children = (
    await admin.listAll(
      { apiVersion: 'v1', kind: 'ConfigMap', namespace: ns },
      { labelSelector: { 'kro.run/owned': 'true' } },
    )
  ).items.length;

  const lines = [
    measuredBy('rgd.bench.ts', `load average ${loadAverage()} at the end`),
    `${INSTANCES} instances of one RGD with 5 ConfigMap children (1 base + 4 reading it) = ${children} children, one namespace, instance concurrency ${CONCURRENCY}; the controller (\`kgraph controller --no-graphs\`) is its own process, requests from its /metrics; fresh local control plane; one run.`,
    '',
    '| case | wall time | controller requests by verb |',
    '|---|---|---|',
    `| create ${INSTANCES} instances → all ACTIVE | ${(convergeMs / 1000).toFixed(1)} s (${(convergeMs / INSTANCES).toFixed(0)} ms per instance) | ${fmt(converge)} |`,
    `| steady state (no change, watches open) | ${STEADY_S} s | ${fmt(steady)} |`,
    '',
    `Controller CPU (user + system) from the first create to all ACTIVE: ${convergeCpu.toFixed(1)} s, ${((convergeCpu * 1000) / INSTANCES).toFixed(1)} ms per instance (load average ${loadConverged} then).`,
    '',
    `Controller RSS: ${rssIdle.toFixed(0)} MiB serving the RGD with no instance, median ${median(rssSamples).toFixed(0)} MiB (max ${Math.max(...rssSamples, rssIdle).toFixed(0)} MiB) during convergence, ${rssEnd.toFixed(0)} MiB after the steady window.`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  if (process.argv.includes('--write')) writeReadmeSection(`## RGD controller\n\n${lines.join('\n')}\n`);
} finally {
  proc?.kill('SIGTERM');
  if (proc) await once(proc, 'exit').catch(() => undefined);
  if (PROFILE) printProfile();
  admin.close();
  await plane.stop();
  rmSync(dataDir, { recursive: true, force: true });
}

/** The controller wrote its profile on exit (`--cpu-prof`): keep it under one name and print the top. */
function printProfile(): void {
  const file = readdirSync(PROFILE_DIR).find((f) => f.endsWith('.cpuprofile'));
  if (!file) {
    process.stderr.write(`no CPU profile in ${PROFILE_DIR} (did the controller exit cleanly?)\n`);
    return;
  }
  const out = join(import.meta.dirname, '.out', 'rgd-controller.cpuprofile');
  renameSync(join(PROFILE_DIR, file), out);
  rmSync(PROFILE_DIR, { recursive: true, force: true });
  const profile = JSON.parse(readFileSync(out, 'utf8')) as CpuProfile;
  process.stdout.write(
    `\nCPU profile of the controller (${out}), self time, top 25:\n\n${topFunctions(profile, 25).join('\n')}\n`,
  );
}
