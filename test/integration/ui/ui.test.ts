// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the Graphs quote kgraph ${…} expressions
/**
 * `kgraph ui` in a real browser (headless Debian Chromium through playwright-core) against the real
 * control plane: the examples applied as `kgraph up` applies them and reconciled by the Graph
 * controller, the UI server watching with its own client. The page lists the example Graphs, draws
 * the showcase with the right nodes and states, follows a child deleted out of band (not ready, then
 * ready again once the controller recreated it), shows an invalid Graph's located diagnostic, and a
 * user who may read one namespace sees only that namespace. Screenshots: test-results/ui/.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { offlineUiSource } from '../../../src/cli/commands/ui.ts';
import { loadDocuments, planDocuments } from '../../../src/cli/up/documents.ts';
import { waitForCrd } from '../../../src/controller/core/crdReady.ts';
import { GraphController } from '../../../src/controller/graph/controller.ts';
import { installGraphCrd } from '../../../src/controller/graph/crd.ts';
import { RestClient } from '../../../src/kube/rest.ts';
import { repoRoot } from '../../../src/localplane/localControlPlane.ts';
import { clusterSource } from '../../../src/ui/clusterSource.ts';
import { startUiServer, type UiServer } from '../../../src/ui/server.ts';
import type { UiSource } from '../../../src/ui/source.ts';
import { launchBrowser, type TestBrowser } from '../../support/browser.ts';
import { sharedControlPlane } from '../../support/controlPlane.ts';
import { adminClient, eventually, testNamespace } from '../../support/kube.ts';

const EXAMPLES_NS = 'kgraph-examples';
const SHOWCASE = 'graph:kgraph-examples/showcase';
/** Generous: the shared 2-core machine is often loaded; the latency is measured in bench/, not here. */
const WAIT_MS = 120_000;

let admin: RestClient;
let controller: GraphController;
let source: UiSource;
let server: UiServer;
let browser: TestBrowser;

async function applyExamples(): Promise<void> {
  const plan = planDocuments([
    ...loadDocuments(join(repoRoot, 'examples', 'cluster')),
    ...loadDocuments(join(repoRoot, 'examples', 'graphs')),
  ]);
  for (const d of plan.crds) {
    await admin.apply(d.object, { fieldManager: 'ui-test', force: true });
    await waitForCrd(admin, d.object.metadata.name ?? '', 60_000);
  }
  for (const d of [...plan.objects, ...plan.graphs])
    await admin.apply(d.object, { fieldManager: 'ui-test', force: true });
}

/** The page's node states, `path → state`, read from the drawn DAG. */
async function dagStates(): Promise<Record<string, string>> {
  const pairs = await browser.page.$$eval('#dag [data-node]', (gs) =>
    gs.map((g) => [g.getAttribute('data-node') ?? '', g.getAttribute('data-state') ?? '']),
  );
  return Object.fromEntries(pairs);
}

/** The Graph controller, restricted to the examples' namespaces (other tests' Graphs are not its business). */
async function startController(): Promise<GraphController> {
  const cp = await sharedControlPlane();
  const c = new GraphController({
    client: new RestClient(cp.kc),
    namespaces: [EXAMPLES_NS, 'team-alpha', 'team-beta'],
    installCrd: false,
    concurrency: 2,
    log: pino({ level: 'silent' }),
  });
  await c.start();
  return c;
}

async function stopController(): Promise<void> {
  await controller?.stop();
  controller?.client.close();
}

const sorted = (o: Record<string, string>): [string, string][] =>
  Object.entries(o).sort(([a], [b]) => a.localeCompare(b));

describe('kgraph ui in a browser', { timeout: 600_000 }, () => {
  before(async () => {
    admin = await adminClient();
    await installGraphCrd(admin);
    await applyExamples();
    const cp = await sharedControlPlane();
    controller = await startController();
    source = clusterSource({ client: new RestClient(cp.kc), closeClient: true });
    server = await startUiServer({ source, port: 0 });
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await server?.close();
    await source?.close();
    await stopController();
  });

  it('lists the example Graphs with their Ready state', async (t) => {
    const { page } = browser;
    await page.goto(server.url);
    for (const name of ['showcase', 'namespace-decorator', 'team-stamper']) {
      await page.waitForSelector(`#list a[data-key="graph:${EXAMPLES_NS}/${name}"]`, { timeout: WAIT_MS });
    }
    await page.waitForSelector(`#list a[data-key="graph:${EXAMPLES_NS}/showcase"][data-ready="True"]`, {
      timeout: WAIT_MS,
    });
    // Each Graph's dot is its Ready condition (the namespace-restricted controller of this test may
    // leave team-stamper waiting: its ref lists Graphs of other namespaces).
    await eventually(
      'the page showing the Ready condition of each Graph',
      async () => {
        for (const name of ['showcase', 'namespace-decorator', 'team-stamper']) {
          const g = await admin.get({
            apiVersion: 'kro.run/v1alpha1',
            kind: 'Graph',
            namespace: EXAMPLES_NS,
            name,
          });
          const conds = (g.status as { conditions?: { type: string; status: string }[] } | undefined)
            ?.conditions;
          const ready = conds?.find((c) => c.type === 'Ready')?.status ?? 'Unknown';
          const shown = await page.getAttribute(
            `#list a[data-key="graph:${EXAMPLES_NS}/${name}"]`,
            'data-ready',
          );
          if (shown !== ready) return undefined;
        }
        return true;
      },
      WAIT_MS,
      250,
    );
    const rows = await page.$$eval('#list a[data-key]', (as) =>
      as.map((a) => `${a.getAttribute('data-key')} ${a.getAttribute('data-ready')}`),
    );
    t.diagnostic(rows.join(' | '));
    // The Graphs team-stamper stamps into its team namespaces are Graphs too.
    await page.waitForSelector('#list a[data-key="graph:team-alpha/team-setup"]', { timeout: WAIT_MS });
    // Filtering by name keeps only the matches.
    await page.fill('#q', 'decorator');
    const shown = await page.$$eval('#list a[data-key]', (as) => as.map((a) => a.getAttribute('data-key')));
    assert.deepEqual(shown, [`graph:${EXAMPLES_NS}/namespace-decorator`]);
    await page.fill('#q', '');
    await browser.screenshot('01-list');
  });

  it("draws the showcase's DAG: its nodes, each in its state, collections with their item count", async () => {
    const { page } = browser;
    await page.goto(`${server.url}#${encodeURIComponent(SHOWCASE)}`);
    const expected = {
      settings: 'ready',
      app: 'ready',
      tierConfigs: 'ready',
      tierServices: 'ready',
      debug: 'excluded',
      backend: 'ready',
      'backend.deployment': 'ready',
      'backend.service': 'ready',
      policy: 'ready',
      settingsNote: 'ready',
    };
    // The page polls nothing: this loop only reads the DOM the pushed updates build.
    await eventually(
      'the showcase drawn with every node in its expected state',
      async () =>
        JSON.stringify(sorted(await dagStates())) === JSON.stringify(sorted(expected)) ? true : undefined,
      WAIT_MS,
      200,
    );
    assert.deepEqual(await dagStates(), expected);
    const count = await page.textContent('#dag g.node[data-node="tierConfigs"] text.count');
    assert.equal(count, '×2');
    // Edges carry the fields that create them (from the same DOT as `kgraph graph`).
    assert.match((await page.textContent('#dag')) ?? '', /forEach\.tier/);
    // A node's details: rendered objects, the live ones, and no difference between them.
    await page.click('#dag g.node[data-node="tierConfigs"]');
    await page.waitForSelector(
      '#details section.object[data-identity="configmap/showcase-web -n kgraph-examples"][data-live="found"]',
    );
    assert.match((await page.textContent('#details')) ?? '', /0 differing/);
    await browser.screenshot('02-showcase');
  });

  it('turns a child deleted out of band to not-ready, and back once the controller recreates it', async (t) => {
    const { page } = browser;
    await page.goto(`${server.url}#${encodeURIComponent(SHOWCASE)}`);
    await page.waitForSelector('#dag g.node[data-node="tierServices"][data-state="ready"]', {
      timeout: WAIT_MS,
    });
    await page.click('#dag g.node[data-node="tierServices"]');
    // The controller recreates the Service within milliseconds, often before the page could show
    // the gap; it is paused while the child is gone so the not-ready state is observable.
    await stopController();
    const started = Date.now();
    await admin.delete({ apiVersion: 'v1', kind: 'Service', namespace: EXAMPLES_NS, name: 'showcase-web' });
    // The page must show the change pushed by the watch; no reload.
    await page.waitForSelector('#dag g.node[data-node="tierServices"]:not([data-state="ready"])', {
      timeout: WAIT_MS,
    });
    const notReady = Date.now() - started;
    await browser.screenshot('03-child-deleted');
    assert.equal(
      await page.getAttribute(
        '#details section.object[data-identity="service/showcase-web -n kgraph-examples"]',
        'data-live',
      ),
      'missing',
    );
    const restarted = Date.now();
    controller = await startController();
    await page.waitForSelector('#dag g.node[data-node="tierServices"][data-state="ready"]', {
      timeout: WAIT_MS,
    });
    const readyAgain = Date.now() - restarted;
    t.diagnostic(
      `not ready on the page ${notReady} ms after the delete; ready again ${readyAgain} ms after the controller restarted`,
    );
    const live = await page.getAttribute(
      '#details section.object[data-identity="service/showcase-web -n kgraph-examples"]',
      'data-live',
    );
    assert.equal(live, 'found');
  });

  it("shows an invalid Graph's located diagnostic", async () => {
    const { page } = browser;
    const ns = await testNamespace('ui-invalid');
    await admin.apply(
      {
        apiVersion: 'kro.run/v1alpha1',
        kind: 'Graph',
        metadata: { name: 'broken', namespace: ns },
        spec: {
          nodes: [
            {
              id: 'cm',
              template: {
                apiVersion: 'v1',
                kind: 'ConfigMap',
                metadata: { name: 'cm' },
                data: { value: '${nothere.data.x}' },
              },
            },
          ],
        },
      },
      { fieldManager: 'ui-test' },
    );
    await page.goto(`${server.url}#${encodeURIComponent(`graph:${ns}/broken`)}`);
    const pre = await page.waitForSelector('#diagnostics pre.diagnostic[data-severity="error"]', {
      timeout: WAIT_MS,
    });
    const text = (await pre.textContent()) ?? '';
    // file:line:column, the code, the node, and the offending line with a caret.
    assert.match(text, new RegExp(`Graph ${ns}/broken:\\d+:\\d+ - error KG\\d{4}: .*nothere`));
    assert.match(text, /node cm/);
    assert.match(text, /value: \$\{nothere\.data\.x\}\n\s+~+/);
    await browser.screenshot('04-invalid');
  });

  it('offline (--render): the same page for what `kgraph render` computes, no cluster', async () => {
    const ex = (p: string): string => join(repoRoot, 'examples', p);
    const offline = offlineUiSource({
      addr: '',
      namespace: [],
      render: ex('graphs/showcase.yaml'),
      state: [ex('state/showcase-observed.yaml')],
      crd: [],
    });
    const offServer = await startUiServer({ source: offline, port: 0 });
    try {
      const { page } = browser;
      await page.goto(`${offServer.url}#${encodeURIComponent(SHOWCASE)}`);
      // Without the settings ConfigMap in the state, the ref waits and everything after it is pending.
      await page.waitForSelector('#dag g.node[data-node="settings"][data-state="pending"]', {
        timeout: WAIT_MS,
      });
      const states = await dagStates();
      assert.ok(
        Object.values(states).every((s) => s === 'pending'),
        JSON.stringify(states),
      );
      await page.click('#dag g.node[data-node="settings"]');
      assert.match(
        (await page.textContent('#details')) ?? '',
        /configmap\/showcase-settings -n kgraph-examples does not exist yet/,
      );
      await browser.screenshot('06-offline');
    } finally {
      await offServer.close();
      await offline.close();
    }
  });

  it('shows only what the user may read', async () => {
    const ns = await testNamespace('ui-viewer');
    const user = `viewer-${ns}`;
    await admin.apply(
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'Role',
        metadata: { name: 'graph-viewer', namespace: ns },
        rules: [
          {
            apiGroups: ['kro.run', ''],
            resources: ['graphs', 'configmaps'],
            verbs: ['get', 'list', 'watch'],
          },
        ],
      },
      { fieldManager: 'ui-test' },
    );
    await admin.apply(
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name: 'graph-viewer', namespace: ns },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'graph-viewer' },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }],
      },
      { fieldManager: 'ui-test' },
    );
    await admin.apply(
      {
        apiVersion: 'kro.run/v1alpha1',
        kind: 'Graph',
        metadata: { name: 'mine', namespace: ns },
        spec: {
          nodes: [
            {
              id: 'cfg',
              template: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg' }, data: { a: '1' } },
            },
            {
              id: 'svc',
              template: {
                apiVersion: 'v1',
                kind: 'Service',
                metadata: { name: 'svc' },
                spec: { ports: [{ port: 80 }] },
              },
            },
          ],
        },
      },
      { fieldManager: 'ui-test' },
    );
    const cp = await sharedControlPlane();
    const asViewer = new RestClient(cp.kc).withImpersonation({ user });
    const viewerSource = clusterSource({ client: asViewer, fallbackNamespace: ns });
    const viewerServer = await startUiServer({ source: viewerSource, port: 0 });
    try {
      const { page } = browser;
      await page.goto(`${viewerServer.url}#${encodeURIComponent(`graph:${ns}/mine`)}`);
      await page.waitForSelector(`#list a[data-key="graph:${ns}/mine"]`, { timeout: WAIT_MS });
      const keys = await page.$$eval('#list a[data-key]', (as) => as.map((a) => a.getAttribute('data-key')));
      assert.deepEqual(keys, [`graph:${ns}/mine`], 'no Graph of another namespace');
      // Services are not readable for this user: their live state says so instead of "missing".
      await page.waitForSelector('#dag g.node[data-node="svc"]', { timeout: WAIT_MS });
      await page.click('#dag g.node[data-node="svc"]');
      await page.waitForSelector(
        `#details section.object[data-identity="service/svc -n ${ns}"][data-live="unreadable"]`,
        {
          timeout: WAIT_MS,
        },
      );
      assert.match((await page.textContent('#note')) ?? '', /you may not list Graphs in all namespaces/);
      await browser.screenshot('05-viewer');
    } finally {
      await viewerServer.close();
      await viewerSource.close();
    }
  });
});
