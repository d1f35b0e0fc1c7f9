// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * Time to converge after an API server outage (kube/connectivity.ts). Per round: a plane of its own
 * (etcd kept across the restart), the RGD controller in this process, N instances of a 5-ConfigMap RGD
 * created at once; when a tenth of the children exist the API server is killed, left down for the
 * outage, started again; measured is the time from the server being ready again to every instance
 * ACTIVE (a round with fewer than a quarter of the instances left to converge is run again). Run once
 * on a checkout without the connectivity retry (the "before" numbers, `--json` to a file) and once with
 * it; `--before <file> --write` puts both in the `## Outage recovery` section.
 *
 * Run: node --import tsx bench/outage.bench.ts [--instances 60] [--rounds 3] [--long-rounds 1]
 *      [--json out.json] [--before before.json] [--write]
 */
import { readFileSync, writeFileSync } from 'node:fs';
import pino from 'pino';
import { RgdController } from '../src/controller/rgd/controller.ts';
import { installRgdCrd } from '../src/controller/rgd/crd.ts';
import type { KubeObject } from '../src/kube/index.ts';
import { RestClient } from '../src/kube/rest.ts';
import { restartableControlPlane } from '../test/support/controlPlane.ts';
import { loadAverage, measuredBy, median, writeReadmeSection } from './support.ts';

function arg(name: string, dflt: number): number {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
}
function sarg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const INSTANCES = arg('--instances', 60);
const CHILDREN = 5;
const CASES = [
  { outageS: 15, rounds: arg('--rounds', 3) },
  { outageS: 120, rounds: arg('--long-rounds', 1) },
];
const GROUP = 'outage.kgraph.bench';

interface Round {
  outageS: number;
  /** Seconds the server was unreachable (outage + its restart). */
  downS: number;
  /** Instances not ACTIVE when the server came back. */
  pending: number;
  convergeMs: number;
  load: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      if (await check()) return;
    } catch {
      // the server may still be starting
    }
    await sleep(100);
  }
  throw new Error(`timed out: ${what}`);
}

async function round(outageS: number): Promise<Round> {
  const plane = await restartableControlPlane();
  const client = new RestClient(plane.kc, { timeoutMs: 5_000 });
  await installRgdCrd(client);
  const ns = 'bench';
  await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  const controller = new RgdController({
    client: new RestClient(plane.kc),
    namespaces: [ns],
    installCrd: false,
    concurrency: 4,
    deleteCrds: false,
    log: pino({ level: 'silent' }),
  });
  await controller.start();
  const items = Array.from({ length: CHILDREN }, (_, i) => `c${i}`);
  await client.apply(
    {
      apiVersion: 'kro.run/v1alpha1',
      kind: 'ResourceGraphDefinition',
      metadata: { name: 'stack' },
      spec: {
        schema: {
          apiVersion: 'v1alpha1',
          group: GROUP,
          kind: 'Stack',
          spec: { items: '[]string | required=true' },
        },
        resources: [
          {
            id: 'parts',
            forEach: [{ part: '${schema.spec.items}' }],
            template: {
              apiVersion: 'v1',
              kind: 'ConfigMap',
              metadata: { name: '${schema.metadata.name}-${part}' },
              data: { part: '${part}' },
            },
          },
        ],
      },
    } as KubeObject,
    { fieldManager: 'bench', force: true },
  );
  const stackApi = { apiVersion: `${GROUP}/v1alpha1`, kind: 'Stack', namespace: ns };
  await until('the Stack kind served', async () => (await client.list(stackApi)).items.length >= 0, 60_000);
  client.discovery.invalidate(`${GROUP}/v1alpha1`);
  await Promise.all(
    Array.from({ length: INSTANCES }, (_, i) =>
      client.apply(
        {
          apiVersion: `${GROUP}/v1alpha1`,
          kind: 'Stack',
          metadata: { name: `s${i}`, namespace: ns },
          spec: { items },
        },
        { fieldManager: 'bench', force: true },
      ),
    ),
  );
  const cms = { apiVersion: 'v1', kind: 'ConfigMap', namespace: ns };
  await until(
    'a tenth of the children',
    async () => (await client.list(cms)).items.length >= (INSTANCES * CHILDREN) / 10,
    120_000,
  );
  await plane.stop();
  const down = Date.now();
  await sleep(outageS * 1000);
  await plane.start();
  const back = Date.now();
  const active = async () =>
    (await client.list(stackApi)).items.filter(
      (o) => (o.status as { state?: string } | undefined)?.state === 'ACTIVE',
    ).length;
  const pending = INSTANCES - (await active());
  await until(`all ${INSTANCES} ACTIVE`, async () => (await active()) === INSTANCES, 600_000);
  const convergeMs = Date.now() - back;
  const load = loadAverage();
  await controller.stop();
  controller.client.close();
  client.close();
  await plane.stop();
  return { outageS, downS: Math.round((back - down) / 1000), pending, convergeMs, load };
}

const rounds: Round[] = [];
for (const c of CASES) {
  for (let r = 0; r < c.rounds; r++) {
    let res = await round(c.outageS);
    // A round where the instances converged before the server died measures nothing: run it again.
    for (let retry = 0; res.pending < INSTANCES / 4 && retry < 3; retry++) {
      process.stdout.write(`# discarded (only ${res.pending} pending): ${JSON.stringify(res)}\n`);
      res = await round(c.outageS);
    }
    process.stdout.write(`${JSON.stringify(res)}\n`);
    rounds.push(res);
  }
}
const out = sarg('--json');
if (out) writeFileSync(out, JSON.stringify(rounds));

const beforeFile = sarg('--before');
const before: Round[] = beforeFile ? (JSON.parse(readFileSync(beforeFile, 'utf8')) as Round[]) : [];
const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const cell = (rs: Round[], outageS: number): string => {
  const xs = rs.filter((r) => r.outageS === outageS);
  if (xs.length === 0) return '—';
  return `${s(median(xs.map((r) => r.convergeMs)))} (${xs.map((r) => s(r.convergeMs)).join(', ')}; load ${xs.map((r) => r.load).join(', ')})`;
};
const table = [
  '| outage (server killed, left down, restarted) | before: backoff only | after: retried on reconnect |',
  '|---|---|---|',
  ...CASES.map(
    (c) =>
      `| ${c.outageS} s (down ${median(rounds.filter((r) => r.outageS === c.outageS).map((r) => r.downS))} s) | ${cell(before, c.outageS)} | ${cell(rounds, c.outageS)} |`,
  ),
];
process.stdout.write(`${table.join('\n')}\n`);
if (process.argv.includes('--write')) {
  writeReadmeSection(
    [
      '## Outage recovery',
      '',
      `${measuredBy('outage.bench.ts', `1-min load average after each round in brackets`)}`,
      `${INSTANCES} instances of a ${CHILDREN}-ConfigMap RGD created at once, RGD controller in process (4 workers); the API`,
      'server (its own plane, etcd kept) killed when a tenth of the children existed, restarted after the outage.',
      'Time from the server being ready again to every instance ACTIVE: median (each round). "Before" is the',
      'same benchmark on the parent commit, where every instance waited out its own queue backoff.',
      '',
      ...table,
    ].join('\n'),
  );
}
process.exit(0);
