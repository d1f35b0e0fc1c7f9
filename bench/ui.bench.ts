// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the Graph quotes kgraph ${…} expressions
/**
 * `kgraph ui` update latency: a change in the cluster → the page showing it, in headless Chromium,
 * pushed by the watches and server-sent events (no polling, no reload). A fresh local control plane
 * and a Graph whose template reads a ConfigMap; the page has the template's node open. Two cases:
 * the ConfigMap's data patched (the rendered object in the node's details changes) and the
 * template's object deleted out of band (the node turns from ready to waiting; no controller runs,
 * so it stays so until the benchmark re-creates it). Also the page's and assets' sizes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { installGraphCrd } from '../src/controller/graph/crd.ts';
import { KubeConfig } from '../src/kube/kubeconfig.ts';
import { RestClient } from '../src/kube/rest.ts';
import type { KubeObject } from '../src/kube/types.ts';
import { startLocalControlPlane } from '../src/localplane/localControlPlane.ts';
import { clusterSource } from '../src/ui/clusterSource.ts';
import { loadAssets, startUiServer } from '../src/ui/server.ts';
import { launchBrowser } from '../test/support/browser.ts';
import { loadAverage, measuredBy, median, writeReadmeSection } from './support.ts';

const N = 15;
const ms = (x: number): string => `${x.toFixed(0)} ms`;
const kb = (n: number): string => `${(n / 1024).toFixed(1)} KiB`;

const dataDir = mkdtempSync(join(tmpdir(), 'kgraph-bench-ui-'));
const plane = await startLocalControlPlane({ dataDir, ephemeral: true });
const kc = new KubeConfig();
kc.loadFromFile(plane.kubeconfig);
const client = new RestClient(kc);
const ns = 'bench';
const rows: string[] = [];
const sizes: string[] = [];
try {
  await installGraphCrd(client);
  await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  await client.create({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'src', namespace: ns },
    data: { v: 'r0' },
  });
  const out: KubeObject = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'out', namespace: ns },
    data: { v: 'r0' },
  };
  await client.create(out);
  await client.apply(
    {
      apiVersion: 'kro.run/v1alpha1',
      kind: 'Graph',
      metadata: { name: 'g', namespace: ns },
      spec: {
        nodes: [
          { id: 'src', ref: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'src' } } },
          {
            id: 'out',
            template: {
              apiVersion: 'v1',
              kind: 'ConfigMap',
              metadata: { name: 'out' },
              data: { v: '${src.data.v}' },
            },
          },
        ],
      },
    },
    { fieldManager: 'bench' },
  );
  const source = clusterSource({ client: new RestClient(kc), closeClient: true });
  const server = await startUiServer({ source, port: 0 });
  const browser = await launchBrowser();
  try {
    const { page } = browser;
    await page.goto(`${server.url}#${encodeURIComponent(`graph:${ns}/g`)}`);
    await page.waitForSelector('#dag g.node[data-node="out"][data-state="ready"]', { timeout: 60_000 });
    await page.click('#dag g.node[data-node="out"]');
    await page.waitForSelector('#details pre.rendered');

    const patched: number[] = [];
    for (let i = 1; i <= N; i++) {
      const t = performance.now();
      await client.patch(
        { apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'src' },
        { data: { v: `r${i}` } },
      );
      await page.locator('#details pre.rendered', { hasText: `v: r${i}` }).waitFor({ timeout: 30_000 });
      patched.push(performance.now() - t);
    }
    rows.push(
      `| ConfigMap patched → the node's rendered object updated on the page | ${ms(median(patched))} | ${ms(Math.max(...patched))} | ${N} |`,
    );

    const deleted: number[] = [];
    for (let i = 1; i <= N; i++) {
      const t = performance.now();
      await client.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'out' });
      await page.waitForSelector('#dag g.node[data-node="out"][data-state="waiting"]', { timeout: 30_000 });
      deleted.push(performance.now() - t);
      await client.create({ ...out, data: { v: `r${N}` } });
      await page.waitForSelector('#dag g.node[data-node="out"][data-state="ready"]', { timeout: 30_000 });
    }
    rows.push(
      `| child deleted → its node "waiting" on the page | ${ms(median(deleted))} | ${ms(Math.max(...deleted))} | ${N} |`,
    );

    const assets = loadAssets();
    const total = [...assets.values()].reduce((n, a) => n + a.body.length, 0);
    for (const [route, a] of assets) sizes.push(`${route} ${kb(a.body.length)}`);
    const view = await (
      await fetch(`${server.url}api/view?key=${encodeURIComponent(`graph:${ns}/g`)}`)
    ).text();
    sizes.push(
      `all assets ${kb(total)}`,
      `one view of this 2-node Graph ${kb(view.length)} (JSON, SVG included)`,
    );
  } finally {
    await browser.close();
    await server.close();
    await source.close();
  }
} finally {
  client.close();
  await plane.stop();
  rmSync(dataDir, { recursive: true, force: true });
}

const section = [
  '## UI',
  '',
  measuredBy('ui.bench.ts', `load average ${loadAverage()} at the end`),
  'A fresh local control plane; `kgraph ui` (cluster source, its own client) and headless Debian Chromium through',
  'playwright-core; time from the API request to the DOM change, which the page gets by server-sent events.',
  '',
  '| case | median | max | rounds |',
  '|---|---|---|---|',
  ...rows,
  '',
  `Sizes: ${sizes.join(' · ')}.`,
  '',
].join('\n');
process.stdout.write(`${section}\n`);

if (process.argv.includes('--write')) writeReadmeSection(section);
