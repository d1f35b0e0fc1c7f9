/**
 * The kube layer against the real control plane (its own ephemeral one):
 * request latency with our keep-alive agents vs client-node's fresh agent per
 * request, server-side apply (changed / unchanged), paged lists, throughput at a
 * given concurrency, and watch event latency through an informer.
 *
 * Run: node --import tsx bench/kube.bench.ts [--write]
 * With --write the table replaces the `## Kube client` section of bench/README.md.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Informer } from '../src/kube/informer.ts';
import { KubeConfig } from '../src/kube/kubeconfig.ts';
import { RestClient } from '../src/kube/rest.ts';
import type { KubeObject } from '../src/kube/types.ts';
import { startLocalControlPlane } from '../src/localplane/localControlPlane.ts';
import { loadAverage, measuredBy, median, writeReadmeSection } from './support.ts';

async function timeEach(n: number, f: (i: number) => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await f(i);
    out.push(performance.now() - t);
  }
  return out;
}
const ms = (x: number): string => `${x.toFixed(2)} ms`;

const dataDir = mkdtempSync(join(tmpdir(), 'kgraph-bench-kube-'));
const plane = await startLocalControlPlane({ dataDir, ephemeral: true });
const kc = new KubeConfig();
kc.loadFromFile(plane.kubeconfig);
const client = new RestClient(kc);
const ns = 'bench';
const rows: string[] = [];
try {
  await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  const cm = (name: string, v: string): KubeObject => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: ns, labels: { bench: 'yes' } },
    data: { v },
  });
  await client.apply(cm('probe', '0'), { fieldManager: 'bench' });
  const target = { apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'probe' };
  await timeEach(20, () => client.get(target)); // warm-up

  const N = 200;
  const getKeepAlive = await timeEach(N, () => client.get(target));
  // client-node's path: applyToHTTPSOptions creates a fresh agent (new TLS connection) per request.
  const url = new URL(`${client.server}/api/v1/namespaces/${ns}/configmaps/probe`);
  const getFresh = await timeEach(N, async () => {
    const opts: https.RequestOptions = { method: 'GET', headers: { Accept: 'application/json' } };
    await kc.applyToHTTPSOptions(opts);
    await new Promise<void>((resolve, reject) => {
      const r = https.request(url, opts, (res) => {
        res.resume();
        res.on('end', () => resolve());
      });
      r.on('error', reject);
      r.end();
    });
  });
  rows.push(`| GET one ConfigMap, keep-alive agent (ours) | ${ms(median(getKeepAlive))} | ${N} |`);
  rows.push(
    `| GET one ConfigMap, fresh agent per request (client-node) | ${ms(median(getFresh))} (${(median(getFresh) / median(getKeepAlive)).toFixed(1)}×) | ${N} |`,
  );

  const applySame = await timeEach(N, () => client.apply(cm('probe', '0'), { fieldManager: 'bench' }));
  rows.push(`| server-side apply, unchanged object | ${ms(median(applySame))} | ${N} |`);
  const applyChanged = await timeEach(N, (i) =>
    client.apply(cm('probe', String(i + 1)), { fieldManager: 'bench' }),
  );
  rows.push(`| server-side apply, changed object | ${ms(median(applyChanged))} | ${N} |`);

  // Throughput: creating 500 objects with 8 in flight.
  const total = 500;
  const conc = 8;
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: conc }, async () => {
      while (next < total) {
        const i = next++;
        await client.apply(cm(`obj-${i}`, String(i)), { fieldManager: 'bench' });
      }
    }),
  );
  const secs = (performance.now() - t0) / 1000;
  rows.push(
    `| apply ${total} new ConfigMaps, ${conc} in flight | ${(total / secs).toFixed(0)} applies/s | 1 |`,
  );

  const listTimes = await timeEach(10, () =>
    client.listAll({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns }, { limit: 100 }),
  );
  rows.push(`| list 501 ConfigMaps in pages of 100 | ${ms(median(listTimes))} | 10 |`);
  const metaTimes = await timeEach(10, () =>
    client.listAll(
      { apiVersion: 'v1', kind: 'ConfigMap', namespace: ns },
      { limit: 100, metadataOnly: true },
    ),
  );
  rows.push(`| same, metadata only | ${ms(median(metaTimes))} | 10 |`);

  // Watch latency: patch → informer update handler.
  const inf = new Informer(client, { target: { apiVersion: 'v1', kind: 'ConfigMap', namespace: ns } });
  let waiter: ((t: number) => void) | undefined;
  inf.addHandlers({
    update: (_o, n) => {
      if (n.metadata.name === 'probe') waiter?.(performance.now());
    },
  });
  const syncStart = performance.now();
  inf.start();
  await inf.waitForSync();
  rows.push(`| informer initial sync of 501 ConfigMaps | ${ms(performance.now() - syncStart)} | 1 |`);
  const lat: number[] = [];
  for (let i = 0; i < 50; i++) {
    const seen = new Promise<number>((r) => {
      waiter = r;
    });
    const t = performance.now();
    await client.patch(target, { data: { v: `w${i}` } });
    lat.push((await seen) - t);
  }
  await inf.stop();
  rows.push(`| watch latency, patch sent → informer update handler | ${ms(median(lat))} | 50 |`);
} finally {
  client.close();
  await plane.stop();
  rmSync(dataDir, { recursive: true, force: true });
}

const section = [
  '## Kube client',
  '',
  measuredBy('kube.bench.ts', `load average ${loadAverage()} at the end`),
  'Against a fresh local control plane (kube-testenv, loopback TLS); medians. Request counts are by verb in `RestClient.counters`.',
  '',
  '| case | median | rounds |',
  '|---|---|---|',
  ...rows,
  '',
].join('\n');
process.stdout.write(`${section}\n`);

if (process.argv.includes('--write')) writeReadmeSection(section);
