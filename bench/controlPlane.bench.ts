/**
 * The local control plane (tools/kube-testenv): start to ready line, resident memory of the whole
 * process tree (apiserver + etcd and its children), with and without workloads; with workloads also
 * the time from creating a 3-replica Deployment to 3/3 available. Each round starts a fresh
 * ephemeral plane in a temporary data dir and stops it.
 *
 * Run: node --import tsx bench/controlPlane.bench.ts [--rounds N] [--write]
 * With --write the table replaces the `## Local control plane` section of bench/README.md.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '../src/kube/kubeconfig.ts';
import { RestClient } from '../src/kube/rest.ts';
import { type LocalControlPlane, startLocalControlPlane } from '../src/localplane/localControlPlane.ts';
import { loadAverage, measuredBy, median, writeReadmeSection } from './support.ts';

const roundsArg = process.argv.indexOf('--rounds');
const rounds = roundsArg > 0 ? Number(process.argv[roundsArg + 1]) : 3;

/** RSS in MiB of `pid` and each of its descendants, by command name. */
function treeRss(pid: number): Map<string, number> {
  const parent = new Map<number, number>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      parent.set(Number(d), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // the process ended meanwhile
    }
  }
  const out = new Map<string, number>();
  const rssMiB = (p: number): number => {
    try {
      return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, 'utf8'))?.[1] ?? 0) / 1024;
    } catch {
      return 0; // gone
    }
  };
  const subcommand = (p: number): string => {
    try {
      return readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0')[1] ?? 'child';
    } catch {
      return 'child';
    }
  };
  // Each direct child is labelled by its subcommand (controller-manager, scheduler, kwok).
  const visit = (p: number, label: string): void => {
    out.set(label, (out.get(label) ?? 0) + rssMiB(p));
    for (const [c, pp] of parent) if (pp === p) visit(c, p === pid ? subcommand(c) : label);
  };
  visit(pid, 'apiserver+etcd');
  return out;
}

async function until(what: string, probe: () => Promise<boolean>, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

interface Round {
  readyMs: number;
  rss: Map<string, number>;
  rolloutMs?: number;
}

async function round(workloads: boolean): Promise<Round> {
  const dataDir = mkdtempSync(join(tmpdir(), 'kgraph-bench-plane-'));
  let plane: LocalControlPlane | undefined;
  try {
    const t0 = performance.now();
    plane = await startLocalControlPlane({
      dataDir,
      ephemeral: true,
      withControllers: true,
      withWorkloads: workloads,
      readyTimeoutMs: 300_000,
    });
    const readyMs = performance.now() - t0;
    let rolloutMs: number | undefined;
    if (workloads) {
      const kc = new KubeConfig();
      kc.loadFromFile(plane.kubeconfig);
      const client = new RestClient(kc);
      const t1 = performance.now();
      await client.create({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'web', namespace: 'default' },
        spec: {
          replicas: 3,
          selector: { matchLabels: { app: 'web' } },
          template: {
            metadata: { labels: { app: 'web' } },
            spec: { containers: [{ name: 'web', image: 'nginx' }] },
          },
        },
      });
      await until('3/3 available', async () => {
        const d = await client.get({
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          namespace: 'default',
          name: 'web',
        });
        return (d.status as { availableReplicas?: number } | undefined)?.availableReplicas === 3;
      });
      rolloutMs = performance.now() - t1;
      client.close();
    }
    // Let informers settle before reading memory.
    await new Promise((r) => setTimeout(r, 5000));
    return { readyMs, rss: treeRss(plane.pid), ...(rolloutMs !== undefined ? { rolloutMs } : {}) };
  } finally {
    await plane?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const fmtS = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
const rows: string[] = [];
for (const workloads of [false, true]) {
  const results: Round[] = [];
  for (let i = 0; i < rounds; i++) results.push(await round(workloads));
  const labels = [...new Set(results.flatMap((r) => [...r.rss.keys()]))];
  const perLabel = labels
    .map((l) => `${l} ${median(results.map((r) => r.rss.get(l) ?? 0)).toFixed(0)}`)
    .join(', ');
  const total = median(results.map((r) => [...r.rss.values()].reduce((a, b) => a + b, 0)));
  const rollout = workloads ? fmtS(median(results.map((r) => r.rolloutMs ?? 0))) : '—';
  rows.push(
    `| ${workloads ? '--with-workloads' : '--with-controllers'} | ${fmtS(median(results.map((r) => r.readyMs)))} | ${total.toFixed(0)} MiB (${perLabel}) | ${rollout} |`,
  );
  process.stderr.write(`${rows.at(-1)}\n`);
}

const section = [
  '## Local control plane',
  '',
  `${measuredBy('controlPlane.bench.ts', `load average ${loadAverage()} at the end; medians of ${rounds} rounds`)}`,
  'A fresh ephemeral plane per round. Ready = spawn to the ready line (with workloads: the simulated nodes',
  'Ready). Memory = VmRSS of the process tree 5 s after ready (or after the rollout), MiB. Rollout = creating',
  'a 3-replica Deployment to `availableReplicas: 3`.',
  '',
  '| flags | start to ready | memory (RSS) | rollout 3/3 |',
  '|---|---|---|---|',
  ...rows,
].join('\n');
if (process.argv.includes('--write')) writeReadmeSection(section);
process.stdout.write(`${section}\n`);
