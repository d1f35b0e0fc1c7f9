/**
 * `kgraph up` / `kgraph down` end to end: a fresh control plane in a temporary data dir, the Graph
 * controller, the examples applied and converged, the controller following live edits, then `down`
 * stopping the foreground `up` and the control plane; a second, plain `up` reuses the data and returns
 * with the controller in the background.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { connect } from '../../../src/kube/connect.ts';
import type { RestClient } from '../../../src/kube/rest.ts';
import type { KubeObject } from '../../../src/kube/types.ts';
import { repoRoot } from '../../../src/localplane/localControlPlane.ts';
import { launchBrowser } from '../../support/browser.ts';
import { eventually } from '../../support/kube.ts';

const cli = join(repoRoot, 'bin', 'kgraph.js');
const dataDir = mkdtempSync(join(tmpdir(), 'kgraph-up-'));
const NS = 'kgraph-examples';

interface Cond {
  type: string;
  status: string;
  reason?: string;
  observedGeneration?: number;
}

function conditions(g: KubeObject | undefined): Record<string, Cond> {
  const list = ((g?.status as { conditions?: Cond[] } | undefined)?.conditions ?? []) as Cond[];
  return Object.fromEntries(list.map((c) => [c.type, c]));
}

/** Spawns `kgraph up` and resolves once its output contains `marker` (rejects if it exits first). */
function startUp(args: string[], marker: RegExp, timeoutMs: number) {
  const child = spawn(process.execPath, [cli, 'up', '--data-dir', dataDir, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
  });
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
  });
  const exited = new Promise<number | null>((res) => child.on('exit', (code) => res(code)));
  const reached = new Promise<void>((res, rej) => {
    const timer = setTimeout(
      () => rej(new Error(`no ${marker} within ${timeoutMs} ms:\n${stdout}\n${stderr}`)),
      timeoutMs,
    );
    const check = (): void => {
      if (marker.test(stdout)) {
        clearTimeout(timer);
        res();
      }
    };
    child.stdout.on('data', check);
    void exited.then((code) => {
      check();
      clearTimeout(timer);
      rej(new Error(`kgraph up exited (${code}) before ${marker}:\n${stdout}\n${stderr}`));
    });
  });
  return { child, reached, exited, output: () => stdout, errors: () => stderr };
}

function kgraph(...args: string[]) {
  const r = spawnSync(process.execPath, [cli, ...args, '--data-dir', dataDir], {
    encoding: 'utf8',
    timeout: 180_000,
  });
  return { code: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
}

const get = (c: RestClient, apiVersion: string, kind: string, namespace: string | undefined, name: string) =>
  c.getOrUndefined(namespace ? { apiVersion, kind, namespace, name } : { apiVersion, kind, name });

describe('kgraph up / down', () => {
  let up: ReturnType<typeof startUp> | undefined;
  let client: RestClient | undefined;

  after(() => {
    client?.close();
    if (up && up.child.exitCode === null) up.child.kill('SIGKILL');
    spawnSync(process.execPath, [cli, 'down', '--data-dir', dataDir], { timeout: 60_000 });
    // Should `down` itself fail, stop what this test started by the pids recorded in the data dir.
    // SIGTERM lets the control plane stop its own controller-manager child.
    for (const f of ['controller.pid', 'ui.json', 'ready.json']) {
      try {
        const { pid } = JSON.parse(readFileSync(join(dataDir, f), 'utf8')) as { pid?: number };
        if (pid) process.kill(pid, 'SIGTERM');
      } catch {
        // no file or no such process: nothing left to stop
      }
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('starts everything, applies the examples and waits until their Graphs are Ready', async () => {
    up = startUp(['--timeout', '2m', '--foreground'], /Press Ctrl-C/, 240_000);
    await up.reached;
    const out = up.output();
    assert.match(out, /control plane started at https:\/\/127\.0\.0\.1:\d+/);
    // Objects as kubectl names them (kind.group/name, -n ns), never `Kind ns/name`.
    assert.match(out, /installed customresourcedefinition\.apiextensions\.k8s\.io\/graphs\.kro\.run\n/);
    assert.match(out, /controller running in this process/);
    assert.match(out, /applied {2}graph\.kro\.run\/showcase -n kgraph-examples \(/);
    assert.match(out, /applied {2}namespace\/team-a \(/);
    assert.match(
      out,
      /installed customresourcedefinition\.apiextensions\.k8s\.io\/resourcegraphdefinitions\.kro\.run\n/,
    );
    assert.match(out, /applied {2}resourcegraphdefinition\.kro\.run\/regionalconfig \(/);
    assert.match(
      out,
      /active {3}resourcegraphdefinition\.kro\.run\/regionalconfig: serves RegionalConfig \(regionalconfig\.kro\.run\)/,
    );
    assert.match(out, /applied {2}regionalconfig\.kro\.run\/shop -n kgraph-examples \(/);
    // The instance's status converging, then instance → children.
    assert.match(out, /s regionalconfig\.kro\.run\/shop -n kgraph-examples {2}(IN_PROGRESS|ACTIVE)/);
    assert.match(
      out,
      /\nregionalconfig\.kro\.run\/shop -n kgraph-examples {2}ACTIVE {2}InstanceManaged=True GraphResolved=True ResourcesReady=True Ready=True/,
    );
    assert.match(out, /tierServices {2}ready/);
    // The instance's children in its namespace, without -n (as `kubectl -n kgraph-examples get` prints them).
    assert.match(out, /\n {2}[│ ] {4}service\/shop-ap-south-api\n/);
    for (const g of ['showcase', 'namespace-decorator', 'team-stamper', 'webshop'])
      assert.match(out, new RegExp(`\\ngraph\\.kro\\.run/${g} -n kgraph-examples {2}Ready\\n`));
    assert.match(out, /s ready {3}graph\.kro\.run\/showcase -n kgraph-examples {2}Ready=True/);
    assert.match(out, new RegExp(`export KUBECONFIG=${join(dataDir, 'admin.kubeconfig')}`));
    assert.match(out, /kubectl get graph showcase -n kgraph-examples -o yaml/);
    // The report's resources are a table with a NAMESPACE column.
    assert.match(out, /\n {4}NAMESPACE +NAME +NODE\n/);
    assert.match(out, /\n {4}team-a +networkpolicy\.networking\.k8s\.io\/default-deny-ingress +policies\n/);
    assert.doesNotMatch(out, /^(applied|installed|active|inactive|skipped) +[A-Z]/m, 'no `Kind name` lines');
    assert.doesNotMatch(out, /^Graph |s (ready|waiting) +Graph /m, 'no `Graph ns/name`');
    assert.match(
      out,
      /Stop everything with: npx kgraph down --data-dir /,
      'hints run as printed after npm ci',
    );

    client = connect(join(dataDir, 'admin.kubeconfig'));
    for (const name of ['showcase', 'namespace-decorator', 'team-stamper', 'webshop']) {
      const g = await get(client, 'kro.run/v1alpha1', 'Graph', NS, name);
      const c = conditions(g);
      assert.equal(c.Accepted?.status, 'True', name);
      assert.equal(c.ResourcesConverged?.status, 'True', name);
      assert.equal(c.Ready?.status, 'True', name);
      assert.equal(c.Ready?.observedGeneration, g?.metadata.generation);
    }
  });

  it('kgraph get names the instance and its children as kubectl does', () => {
    const r = spawnSync(
      process.execPath,
      [cli, 'get', 'RegionalConfig', '-n', NS, '--kubeconfig', join(dataDir, 'admin.kubeconfig')],
      { encoding: 'utf8', timeout: 60_000 },
    );
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^regionalconfig\.kro\.run\/shop -n kgraph-examples {2}ACTIVE /);
    assert.match(r.stdout, /\n {2}[├└]─ tierServices {2}ready\n/);
    assert.match(r.stdout, /\n {2}[│ ] {4}service\/shop-ap-south-api\n/);
    assert.doesNotMatch(r.stdout, /RegionalConfig kgraph-examples|Service kgraph-examples/);
  });

  it('serves kgraph ui beside the controller, at the address it printed', async () => {
    assert.ok(up);
    const url = /ui: (http:\/\/127\.0\.0\.1:\d+\/)/.exec(up.output())?.[1];
    assert.ok(url, up.output());
    assert.match(await (await fetch(url)).text(), /<title>kgraph ui<\/title>/);
    const { entries } = (await (await fetch(`${url}api/entries`)).json()) as { entries: { key: string }[] };
    for (const name of ['showcase', 'namespace-decorator', 'team-stamper']) {
      assert.ok(
        entries.some((e) => e.key === `graph:${NS}/${name}`),
        `${name} in ${JSON.stringify(entries)}`,
      );
    }
  });

  it('the showcase created its resources: forEach items, the subgraph, the policy and the patch', async () => {
    assert.ok(client);
    for (const tier of ['web', 'api']) {
      const cm = await get(client, 'v1', 'ConfigMap', NS, `showcase-${tier}`);
      assert.deepEqual(cm?.data, { TIER: tier, OWNER: 'team-a' });
      assert.equal(cm?.metadata.labels?.['kro.run/node-id'], 'tierConfigs');
      const svc = await get(client, 'v1', 'Service', NS, `showcase-${tier}`);
      assert.match(
        String((svc?.spec as { clusterIP?: string } | undefined)?.clusterIP),
        /^\d+\.\d+\.\d+\.\d+$/,
      );
    }
    const deployment = await get(client, 'apps/v1', 'Deployment', NS, 'showcase-backend');
    assert.equal(deployment?.metadata.labels?.['kro.run/node-id'], 'backend.deployment');
    const backend = await get(client, 'v1', 'Service', NS, 'showcase-backend');
    assert.ok(backend);
    assert.ok(await get(client, 'networking.k8s.io/v1', 'NetworkPolicy', NS, 'showcase-backend'));
    // includeWhen is false by default: no debug ConfigMap.
    assert.equal(await get(client, 'v1', 'ConfigMap', NS, 'showcase-debug'), undefined);
    // The patch contributed annotations to the ConfigMap the Graph only reads.
    const settings = await get(client, 'v1', 'ConfigMap', NS, 'showcase-settings');
    assert.equal(settings?.metadata.annotations?.['kgraph.dev/backend-service'], 'showcase-backend');
    assert.equal(
      settings?.metadata.annotations?.['kgraph.dev/backend-cluster-ip'],
      (backend.spec as { clusterIP: string }).clusterIP,
    );
  });

  it('the webshop ran its migration Job to completion before rolling out its Deployment', async () => {
    const c = client;
    assert.ok(c);
    const job = await get(c, 'batch/v1', 'Job', NS, 'webshop-migrate');
    const completed = (job?.status as { completionTime?: string } | undefined)?.completionTime;
    assert.ok(completed, 'the job controller completed the migration');
    const web = await get(c, 'apps/v1', 'Deployment', NS, 'webshop');
    assert.equal(web?.metadata.annotations?.['kgraph.dev/migrated-at'], completed);
    assert.equal((web?.status as { availableReplicas?: number } | undefined)?.availableReplicas, 3);
  });

  it('the team stamper stamped child Graphs that converged on their own, under their own identity', async () => {
    const c = client;
    assert.ok(c);
    for (const team of ['alpha', 'beta']) {
      const child = await get(c, 'kro.run/v1alpha1', 'Graph', `team-${team}`, 'team-setup');
      assert.equal(conditions(child).Ready?.status, 'True', team);
      assert.equal(
        (child?.status as { appliedServiceAccount?: string } | undefined)?.appliedServiceAccount,
        `system:serviceaccount:team-${team}:default`,
      );
      const copy = await get(c, 'v1', 'ConfigMap', `team-${team}`, 'team-info-copy');
      assert.deepEqual(copy?.data, { copiedFrom: 'team-info', team });
    }
  });

  it('the decorator gave one NetworkPolicy per labelled namespace, and follows a new label', async () => {
    const c = client;
    assert.ok(c);
    const policy = (ns: string) =>
      get(c, 'networking.k8s.io/v1', 'NetworkPolicy', ns, 'default-deny-ingress');
    assert.ok(await policy('team-a'));
    assert.ok(await policy('team-b'));
    assert.equal(await policy('team-c'), undefined);
    // The controller keeps running in the foreground: labelling team-c adds its policy.
    await c.patch(
      { apiVersion: 'v1', kind: 'Namespace', name: 'team-c' },
      { metadata: { labels: { 'kgraph.dev/decorate': 'true' } } },
      { type: 'merge' },
    );
    await eventually('policy in team-c', async () => ((await policy('team-c')) ? true : undefined), 30_000);
  });

  it('the showcase follows an edit of its settings: includeWhen and a larger forEach', async () => {
    const c = client;
    assert.ok(c);
    await c.patch(
      { apiVersion: 'v1', kind: 'ConfigMap', namespace: NS, name: 'showcase-settings' },
      { data: { debug: 'true', tiers: 'web,api,worker' } },
      { type: 'merge' },
    );
    await eventually(
      'debug and worker ConfigMaps',
      async () =>
        (await get(c, 'v1', 'ConfigMap', NS, 'showcase-debug')) &&
        (await get(c, 'v1', 'Service', NS, 'showcase-worker'))
          ? true
          : undefined,
      30_000,
    );
  });

  it('kgraph down stops the foreground controller and the control plane', async () => {
    assert.ok(up);
    const down = kgraph('down');
    assert.equal(down.code, 0, down.stderr);
    assert.match(down.stdout, /controller stopped \(pid \d+, foreground\)/);
    assert.match(down.stdout, /control plane stopped/);
    assert.equal(await up.exited, 0, up.errors());
    assert.match(up.output(), /SIGTERM: stopping the controller/);
    assert.equal(existsSync(join(dataDir, 'ready.json')), false);
    assert.equal(existsSync(join(dataDir, 'controller.pid')), false);
    const again = kgraph('down');
    assert.match(again.stdout, /no controller running\nno control plane running/);
  });

  it('up restarts on the same data, re-converges, returns; its printed ui address shows the DAGs live; down stops both', async () => {
    const r = kgraph('up', '--timeout', '2m');
    assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
    assert.match(r.stdout, /control plane started/);
    assert.match(r.stdout, /\ngraph\.kro\.run\/showcase -n kgraph-examples {2}Ready\n/);
    assert.match(r.stdout, /controller handed over to a background process \(pid (\d+)/);
    const { pid } = JSON.parse(readFileSync(join(dataDir, 'controller.pid'), 'utf8')) as { pid: number };
    assert.doesNotThrow(() => process.kill(pid, 0), 'the background controller runs after up returned');
    // The page, served by a background process too, at the address `up` printed.
    const ui =
      /ui: (http:\/\/127\.0\.0\.1:\d+\/) {2}\(the Graphs' DAGs, live; background process (\d+)\)/.exec(
        r.stdout,
      );
    assert.ok(ui?.[1] && ui[2], r.stdout);
    const [, url, uiPid] = ui;
    assert.doesNotThrow(() => process.kill(Number(uiPid), 0), 'the ui runs after up returned');
    const browser = await launchBrowser();
    // `up` re-applied the settings (debug "false", tiers web,api) over the earlier edit, and returned
    // only once the controller had reconciled that: the worker tier and the debug ConfigMap are pruned.
    const c = connect(join(dataDir, 'admin.kubeconfig'));
    try {
      assert.equal(await get(c, 'v1', 'ConfigMap', NS, 'showcase-worker'), undefined);
      assert.equal(await get(c, 'v1', 'ConfigMap', NS, 'showcase-debug'), undefined);
      assert.ok(await get(c, 'v1', 'ConfigMap', NS, 'showcase-web'));
      // The background controller reconciles: turning debug on again creates the ConfigMap.
      await c.patch(
        { apiVersion: 'v1', kind: 'ConfigMap', namespace: NS, name: 'showcase-settings' },
        { data: { debug: 'true' } },
        { type: 'merge' },
      );
      await eventually(
        'debug ConfigMap from the background controller',
        async () => ((await get(c, 'v1', 'ConfigMap', NS, 'showcase-debug')) ? true : undefined),
        // The background process boots the CLI through tsx first: slow on a loaded machine.
        120_000,
      );
      // In a real browser: the showcase listed Ready, its DAG drawn, and the debug node that the edit above
      // just included turning ready live (no reload).
      const { page } = browser;
      await page.goto(`${url}#${encodeURIComponent(`graph:${NS}/showcase`)}`);
      await page.waitForSelector(`#list a[data-key="graph:${NS}/showcase"][data-ready="True"]`, {
        timeout: 60_000,
      });
      await page.waitForSelector('#dag g.node[data-node="tierServices"][data-state="ready"]', {
        timeout: 60_000,
      });
      await page.waitForSelector('#dag g.node[data-node="debug"][data-state="ready"]', { timeout: 60_000 });
      await c.patch(
        { apiVersion: 'v1', kind: 'ConfigMap', namespace: NS, name: 'showcase-settings' },
        { data: { debug: 'false' } },
        { type: 'merge' },
      );
      await page.waitForSelector('#dag g.node[data-node="debug"][data-state="excluded"]', {
        timeout: 60_000,
      });
      await browser.screenshot('up-background-ui');
    } finally {
      await browser.close();
      c.close();
    }
    const down = kgraph('down');
    assert.match(down.stdout, new RegExp(`controller stopped \\(pid ${pid}, detached\\)`));
    assert.match(down.stdout, new RegExp(`ui stopped \\(pid ${uiPid}, `));
    assert.throws(() => process.kill(pid, 0));
    assert.throws(() => process.kill(Number(uiPid), 0));
    await assert.rejects(fetch(url), 'nothing serves the page after down');
  });
});
