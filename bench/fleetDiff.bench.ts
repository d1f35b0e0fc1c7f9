// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * `kgraph fleet diff` over a fleet (design/rgd.md §19.9): a fresh local control plane, the RGD controller
 * (in-process) converges N instances of an RGD with 5 ConfigMap children (1 base + 4 reading it) and is
 * stopped; then an edit of one child template is diffed against every instance, in-process (median of
 * rounds: reading the cluster, the diff, the requests made), once with `--server-side`, and as the
 * command (`kgraph fleet diff -f`, a new process each round, through tsx).
 *
 * Run: node --import tsx bench/fleetDiff.bench.ts [--write] [--instances N] [--rounds N]
 * With --write the table replaces the `## Fleet diff` section of bench/README.md.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { stringify } from 'yaml';
import { RgdController } from '../src/controller/rgd/controller.ts';
import { installRgdCrd } from '../src/controller/rgd/crd.ts';
import { runFleetDiff } from '../src/fleet/run.ts';
import { RestClient } from '../src/kube/rest.ts';
import { loadAverage, measuredBy, median, startBenchPlane, writeReadmeSection } from './support.ts';

const arg = (name: string, dflt: number): number => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
const INSTANCES = arg('--instances', 500);
const ROUNDS = arg('--rounds', 5);
const ns = 'bench';

const cm = (name: string, data: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name },
  data,
});
const rgd = (leafData: Record<string, string>) => ({
  apiVersion: 'kro.run/v1alpha1',
  kind: 'ResourceGraphDefinition',
  metadata: { name: 'fleetapp' },
  spec: {
    schema: { apiVersion: 'v1alpha1', kind: 'FleetApp', spec: { size: 'integer | default=1' } },
    resources: [
      { id: 'base', template: cm('${schema.metadata.name}-base', { size: '${string(schema.spec.size)}' }) },
      ...Array.from({ length: 4 }, (_, k) => ({
        id: `leaf${k}`,
        template: cm(
          `\${schema.metadata.name}-leaf${k}`,
          k === 0 ? leafData : { from: '${base.metadata.name}' },
        ),
      })),
    ],
  },
});

const bench = await startBenchPlane('fleet-diff');
const dir = mkdtempSync(join(tmpdir(), 'kgraph-bench-fleet-'));
const { admin } = bench;
let controller: RgdController | undefined;
try {
  await admin.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  await installRgdCrd(admin);
  controller = new RgdController({
    client: new RestClient(bench.kc),
    namespaces: [ns],
    installCrd: false,
    concurrency: 8,
    log: pino({ level: 'silent' }),
  });
  await controller.start();
  await admin.apply(rgd({ from: '${base.metadata.name}' }), { fieldManager: 'bench', force: true });
  for (;;) {
    const r = await admin.getOrUndefined({
      apiVersion: 'kro.run/v1alpha1',
      kind: 'ResourceGraphDefinition',
      name: 'fleetapp',
    });
    if ((r?.status as { state?: string } | undefined)?.state === 'Active') break;
    await new Promise((res) => setTimeout(res, 100));
  }
  admin.discovery.invalidate('kro.run/v1alpha1');
  const t0 = performance.now();
  for (let i = 0; i < INSTANCES; i += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, INSTANCES - i) }, (_, k) =>
        admin.create({
          apiVersion: 'kro.run/v1alpha1',
          kind: 'FleetApp',
          metadata: { name: `app${i + k}`, namespace: ns },
          spec: {},
        }),
      ),
    );
  }
  for (;;) {
    const list = await admin.listAll({ apiVersion: 'kro.run/v1alpha1', kind: 'FleetApp', namespace: ns });
    if (
      list.items.filter((o) => (o.status as { state?: string } | undefined)?.state === 'ACTIVE').length ===
      INSTANCES
    )
      break;
    await new Promise((res) => setTimeout(res, 500));
  }
  const convergeS = (performance.now() - t0) / 1000;
  await controller.idle();
  await controller.stop();
  controller.client.close();
  controller = undefined;

  const file = join(dir, 'fleetapp-v2.yaml');
  writeFileSync(file, stringify(rgd({ from: '${base.metadata.name}', owner: 'platform' })));

  const client = new RestClient(bench.kc);
  const requests: Record<string, number> = {};
  client.counters.listen((verb) => {
    requests[verb] = (requests[verb] ?? 0) + 1;
  });
  const walls: number[] = [];
  const reads: number[] = [];
  const diffs: number[] = [];
  let changed = 0;
  let byVerb = '';
  for (let r = 0; r < ROUNDS; r++) {
    for (const k of Object.keys(requests)) delete requests[k];
    const start = performance.now();
    const run = await runFleetDiff(client, { file }, { namespace: ns });
    walls.push(performance.now() - start);
    reads.push(run.timings.read);
    diffs.push(run.timings.diff);
    changed = run.report.summary.change;
    byVerb = Object.entries(requests)
      .map(([v, n]) => `${v} ${n}`)
      .join(', ');
  }
  for (const k of Object.keys(requests)) delete requests[k];
  const ss0 = performance.now();
  const ss = await runFleetDiff(client, { file }, { namespace: ns, serverSide: true });
  const serverSideMs = performance.now() - ss0;
  const dryruns = requests.dryrun ?? requests.apply ?? 0;
  client.close();

  const cliWalls: number[] = [];
  for (let r = 0; r < Math.min(ROUNDS, 3); r++) {
    const start = performance.now();
    const res = spawnSync(
      process.execPath,
      [
        'bin/kgraph.js',
        'fleet',
        'diff',
        '-f',
        file,
        '-n',
        ns,
        '-o',
        'json',
        '--kubeconfig',
        bench.plane.kubeconfig,
      ],
      { encoding: 'utf8', env: { ...process.env, KGRAPH_SOURCES: '1' }, maxBuffer: 256 * 1024 * 1024 },
    );
    cliWalls.push(performance.now() - start);
    if (res.status !== 1) throw new Error(`fleet diff exited ${res.status}: ${res.stderr}`);
  }

  const ms = (x: number) => `${(x / 1000).toFixed(2)} s`;
  const lines = [
    measuredBy('fleetDiff.bench.ts', `load average ${loadAverage()} at the end`),
    `${INSTANCES} instances of one RGD with 5 ConfigMap children (1 base + 4 reading it) = ${INSTANCES * 5} children, converged by the RGD controller (${convergeS.toFixed(0)} s), which is then stopped; the edit adds a key to one child template, so every instance has ${changed / INSTANCES} object to change (${changed} in all). Fresh local control plane; medians of ${ROUNDS} rounds.`,
    '',
    '| case | wall time (median) | of which compiling both specs and reading the cluster | of which the diff | requests |',
    '|---|---|---|---|---|',
    `| \`fleet diff -f\`, in-process | ${ms(median(walls))} (${walls.map((w) => (w / 1000).toFixed(2)).join(', ')}) | ${ms(median(reads))} | ${ms(median(diffs))} (${(median(diffs) / INSTANCES).toFixed(1)} ms per instance) | ${byVerb} (one LIST for the instances, one per kind) |`,
    `| \`fleet diff -f --server-side\`, in-process, one run | ${ms(serverSideMs)} | ${ms(ss.timings.read)} | ${ms(ss.timings.diff)} | + ${dryruns} dry-run applies (${ms(ss.timings.serverSide)}) |`,
    `| \`kgraph fleet diff -f … -o json\`, a new process (sources through tsx) | ${ms(median(cliWalls))} (${cliWalls.map((w) => (w / 1000).toFixed(2)).join(', ')}) | | | |`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  if (process.argv.includes('--write')) writeReadmeSection(`## Fleet diff\n\n${lines.join('\n')}\n`);
} finally {
  await controller?.stop();
  controller?.client.close();
  rmSync(dir, { recursive: true, force: true });
  await bench.stop();
}
