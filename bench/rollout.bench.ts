// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * A progressive rollout (docs/rollout.md) of N instances on a fresh local control plane: one RGD of one
 * ConfigMap, N instances, a GraphRollout of a canary (the oldest 5 %, by label), a batch to 25 % and a batch
 * to 100 %, no pause. The RGD controller runs in this process (its rollout statistics are read directly).
 * Reports each step's latency, the time from the RGD edit to Completed, and the writes per instance: the
 * rollout's own (assign, release) and every write request of the controller during the rollout.
 *
 * Run: node --import tsx bench/rollout.bench.ts [--write] [--instances N] [--concurrency N]
 * With --write the table replaces the `## Progressive rollout` section of bench/README.md.
 */
import pino from 'pino';
import { RgdController } from '../src/controller/rgd/controller.ts';
import { installRgdCrd } from '../src/controller/rgd/crd.ts';
import type { KubeObject } from '../src/kube/index.ts';
import { RestClient } from '../src/kube/rest.ts';
import { loadAverage, measuredBy, startBenchPlane, writeReadmeSection } from './support.ts';

const arg = (name: string, dflt: number): number => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
const N = arg('--instances', 200);
const CONCURRENCY = arg('--concurrency', 4);
const CANARY = Math.max(1, Math.round(N / 20));
const ns = 'bench';
const RGD = { apiVersion: 'kro.run/v1alpha1', kind: 'ResourceGraphDefinition' };
const RO = { apiVersion: 'kgraph.dev/v1alpha1', kind: 'GraphRollout' };

const bench = await startBenchPlane('rollout');
const { admin, kc } = bench;
const controller = new RgdController({
  client: new RestClient(kc),
  installCrd: false,
  concurrency: CONCURRENCY,
  log: pino({ level: 'warn' }),
});
const until = async (what: string, ok: () => Promise<boolean>, timeoutMs = 600_000): Promise<void> => {
  const end = Date.now() + timeoutMs;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
};
const rgd = (v: string): KubeObject => ({
  ...RGD,
  metadata: { name: 'fleet' },
  spec: {
    schema: { apiVersion: 'v1alpha1', kind: 'Fleet', spec: { n: 'string | default="x"' } },
    resources: [
      {
        id: 'a',
        template: {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: '${schema.metadata.name}-a' },
          data: { v },
        },
      },
    ],
  },
});
const phase = async () =>
  ((await admin.getOrUndefined({ ...RO, name: 'fleet' }))?.status ?? {}) as {
    phase?: string;
    stableRevision?: number;
  };
try {
  await admin.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  await installRgdCrd(admin);
  await controller.start();
  await admin.apply(rgd('one'), { fieldManager: 'bench', force: true });
  await until(
    'RGD active',
    async () =>
      ((await admin.getOrUndefined({ ...RGD, name: 'fleet' }))?.status as { state?: string } | undefined)
        ?.state === 'Active',
  );
  admin.discovery.invalidate('kro.run/v1alpha1');
  await admin.apply(
    {
      ...RO,
      metadata: { name: 'fleet' },
      spec: {
        steps: [
          { canary: { selector: { matchLabels: { canary: 'true' } } } },
          { batch: { percent: 25, maxInFlight: 25 } },
          { batch: { percent: 100, maxInFlight: 50 } },
        ],
      },
    } as KubeObject,
    { fieldManager: 'bench', force: true },
  );
  const name = (i: number) => `f${String(i).padStart(4, '0')}`;
  for (let i = 0; i < N; i += 50)
    await Promise.all(
      Array.from({ length: Math.min(50, N - i) }, (_, k) =>
        admin.create({
          apiVersion: 'kro.run/v1alpha1',
          kind: 'Fleet',
          metadata: {
            name: name(i + k),
            namespace: ns,
            ...(i + k < CANARY ? { labels: { canary: 'true' } } : {}),
          },
          spec: {},
        }),
      ),
    );
  const atRevision = async (rev: string) =>
    (await admin.listAll({ apiVersion: 'kro.run/v1alpha1', kind: 'Fleet', namespace: ns })).items.filter(
      (o) =>
        o.metadata.labels?.['kgraph.dev/revision'] === rev &&
        (o.status as { state?: string } | undefined)?.state === 'ACTIVE',
    ).length;
  await until('fleet ACTIVE at 1', async () => (await atRevision('1')) === N);
  await until('rollout stable at 1', async () => (await phase()).stableRevision === 1);
  await controller.idle(120_000);

  const writes0 = controller.client.counters.writes();
  const rolloutWrites0 = controller.rollouts.stats.instanceWrites;
  const t0 = performance.now();
  await admin.apply(rgd('two'), { fieldManager: 'bench', force: true });
  await until('rollout completed at 2', async () => {
    const p = await phase();
    return p.phase === 'Completed' && p.stableRevision === 2;
  });
  const totalMs = performance.now() - t0;
  // Completed is recorded before the assignments are released: count the releases too.
  await until('assignments released', async () =>
    (await admin.listAll({ apiVersion: 'kro.run/v1alpha1', kind: 'Fleet', namespace: ns })).items.every(
      (o) => o.metadata.annotations?.['kgraph.dev/revision'] === undefined,
    ),
  );
  await controller.idle(120_000);
  const writes = controller.client.counters.writes() - writes0;
  const rolloutWrites = controller.rollouts.stats.instanceWrites - rolloutWrites0;
  const steps = controller.rollouts.stats.steps.filter((s) => s.rollout === 'fleet');
  const moved = [CANARY, Math.ceil(N / 4) - CANARY, N - Math.ceil(N / 4)];
  const label = ['canary (label selector)', 'batch to 25 %, 25 in flight', 'batch to 100 %, 50 in flight'];
  const lines = [
    measuredBy('rollout.bench.ts', `load average ${loadAverage()} at the end`),
    `${N} instances of one RGD with one ConfigMap child, one namespace, instance concurrency ${CONCURRENCY}; the RGD controller in the benchmark's process; fresh local control plane; one run. The RGD's ConfigMap data is edited once; the GraphRollout moves the fleet with no pause.`,
    '',
    '| step | instances moved | latency (step start → next step) | per instance |',
    '|---|---|---|---|',
    ...steps.map(
      (s, i) =>
        `| ${label[i] ?? `step ${s.step}`} | ${moved[i] ?? '?'} | ${(s.ms / 1000).toFixed(2)} s | ${Math.round(s.ms / (moved[i] ?? 1))} ms |`,
    ),
    '',
    `RGD edit → Completed: ${(totalMs / 1000).toFixed(1)} s (${(totalMs / N).toFixed(0)} ms per instance). Writes per instance: ${(rolloutWrites / N).toFixed(2)} by the rollout (assign, release), ${(writes / N).toFixed(2)} by the whole controller (the instance's label, child and status, the rollout's writes, and the revision, RGD and rollout status writes shared by the fleet).`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  if (process.argv.includes('--write')) writeReadmeSection(`## Progressive rollout\n\n${lines.join('\n')}\n`);
} finally {
  await controller.stop();
  controller.client.close();
  await bench.stop();
}
