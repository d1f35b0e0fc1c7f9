// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * The fleet panel of `kgraph ui` in a real browser (headless Debian Chromium) against the real control
 * plane and the RGD controller: an RGD change held after its canary shows the instances at two
 * revisions (pinned one marked, stable/target/latest marked) and the GraphRollout paused with its
 * counts; `promote` (the rollout actions module, as `kgraph rollout promote`) moves the panel to the
 * completed rollout without a reload; a user who may not read GraphRollouts sees the fleet and is told
 * why there is no rollout. Screenshots: test-results/ui/.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { rolloutAction } from '../../../src/controller/rgd/rollout/actions.ts';
import { type KubeObject, RestClient } from '../../../src/kube/index.ts';
import { clusterSource } from '../../../src/ui/clusterSource.ts';
import { startUiServer, type UiServer } from '../../../src/ui/server.ts';
import type { UiSource } from '../../../src/ui/source.ts';
import { launchBrowser, type TestBrowser } from '../../support/browser.ts';
import { sharedControlPlane } from '../../support/controlPlane.ts';
import {
  applyInstance,
  applyRgd,
  cm,
  eventually,
  instance,
  type RgdFixture,
  rgd,
  rgdFixture,
  stopRgdController,
  waitRgd,
  waitState,
} from '../rgd/support.ts';

const RO = { apiVersion: 'kgraph.dev/v1alpha1', kind: 'GraphRollout' };
/** Generous: the shared 2-core machine is often loaded. */
const WAIT_MS = 120_000;
const NAMES = ['i0', 'i1', 'i2', 'i3'];
const CANARY = 'i1';

describe('kgraph ui: the fleet panel of an RGD', { timeout: 600_000 }, () => {
  let f: RgdFixture;
  let source: UiSource;
  let server: UiServer;
  let browser: TestBrowser;
  const rgdName = () => `${f.suite}-web`;
  const web = (v: string) =>
    rgd(f, rgdName(), { kind: 'Web', spec: { n: 'string' }, status: { v: '${a.data.v}' } }, [
      { id: 'a', template: cm('${schema.metadata.name}-a', { v }) },
    ]);
  const rolloutStatus = async () =>
    (await f.client.getOrUndefined({ ...RO, name: rgdName() }))?.status as
      | { phase?: string; step?: number; stableRevision?: number; targetRevision?: number }
      | undefined;

  before(async () => {
    f = await rgdFixture('ui-fleet');
    const cp = await sharedControlPlane();
    source = clusterSource({ client: new RestClient(cp.kc), closeClient: true });
    server = await startUiServer({ source, port: 0 });
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await server?.close();
    await source?.close();
    await stopRgdController(f?.controller);
  });

  /** The panel's rows: `revision → [instances, ready, pinned, marks]`. */
  const rows = () =>
    browser.page.$$eval('#fleet tr[data-revision]', (trs) =>
      Object.fromEntries(
        trs.map((tr) => [
          tr.getAttribute('data-revision') ?? '',
          [
            Number(tr.querySelector('td.count')?.textContent),
            Number(tr.querySelector('td.ready')?.textContent),
            Number(tr.querySelector('td.pinned')?.textContent),
            [...tr.querySelectorAll('[data-mark]')].map((m) => m.getAttribute('data-mark')).join(','),
          ],
        ]),
      ),
    );
  const counts = () =>
    browser.page.$$eval('#fleet [data-count]', (cs) =>
      Object.fromEntries(cs.map((c) => [c.getAttribute('data-count') ?? '', Number(c.textContent)])),
    );
  const phase = () => browser.page.getAttribute('#fleet .fleet-rollout', 'data-phase');
  /** Waits (reading only the DOM the pushed updates build) until the panel shows `want`. */
  const waitPanel = (what: string, want: () => Promise<boolean>) =>
    eventually(what, async () => ((await want()) ? true : undefined), WAIT_MS, 200);

  it('shows instances at two revisions and the paused rollout, then the promotion without a reload', async (t) => {
    const { client } = f;
    await applyRgd(client, web('one'));
    await waitRgd(client, rgdName(), 'Ready', 'True');
    await client.apply(
      {
        ...RO,
        metadata: { name: rgdName() },
        spec: {
          steps: [
            { canary: { selector: { matchLabels: { tier: 'canary' } } } },
            { pause: {} },
            { batch: { percent: 100 } },
          ],
        },
      } as KubeObject,
      { fieldManager: 'test', force: true },
    );
    for (const n of NAMES)
      await applyInstance(
        client,
        instance(f, 'Web', n, { n }, n === CANARY ? { labels: { tier: 'canary' } } : {}),
      );
    await applyInstance(
      client,
      instance(f, 'Web', 'pinned', { n: 'p' }, { annotations: { 'kgraph.dev/revision-policy': 'Manual' } }),
    );
    for (const n of [...NAMES, 'pinned'])
      await waitState(
        client,
        f,
        'Web',
        n,
        'ACTIVE',
        (o) => o.metadata.labels?.['kgraph.dev/revision'] === '1',
      );
    await eventually(
      'rollout stable at 1',
      async () => {
        const s = await rolloutStatus();
        return s?.phase === 'Completed' && s.stableRevision === 1 ? s : undefined;
      },
      WAIT_MS,
    );

    const { page } = browser;
    await page.goto(`${server.url}#${encodeURIComponent(`rgd:${rgdName()}`)}`);
    await waitPanel('the panel: five instances at revision 1, stable', async () => {
      const r = await rows();
      return JSON.stringify(r) === JSON.stringify({ '1': [5, 5, 1, 'latest,stable'] });
    });
    // Marks the page to prove that what follows arrives without a reload.
    await page.evaluate(() => {
      (globalThis as unknown as { fleetTestMarker: boolean }).fleetTestMarker = true;
    });

    await applyRgd(client, web('two'));
    const pausedSeen = Date.now();
    await waitPanel('the panel: canary at 2, the rest at 1, rollout paused after the canary', async () => {
      const r = await rows();
      const c = await counts();
      return (
        (await phase()) === 'Paused' &&
        JSON.stringify(r) === JSON.stringify({ '2': [1, 1, 0, 'latest,target'], '1': [4, 4, 1, 'stable'] }) &&
        c.updated === 1 &&
        c.ready === 1 &&
        c.failed === 0
      );
    });
    t.diagnostic(`paused rollout on the page ${Date.now() - pausedSeen} ms after the RGD change`);
    assert.equal(
      await page.textContent('#fleet .fleet-step'),
      'step 1/3 (now: pause until promoted)',
      'the current step in words',
    );
    assert.equal(await page.textContent('#fleet .fleet-revs'), '1 → 2');
    // The pinned instance is listed, marked, at revision 1.
    await page.click('#fleet tr[data-revision="1"] summary');
    assert.equal(await page.textContent('#fleet tr[data-revision="1"] li[data-pinned] a'), `${f.ns}/pinned`);
    await browser.screenshot('07-fleet-paused');

    const promoted = Date.now();
    await rolloutAction(client, rgdName(), 'promote');
    await waitPanel('the panel: rollout completed, all but the pinned instance at 2', async () => {
      const r = await rows();
      return (
        (await phase()) === 'Completed' &&
        JSON.stringify(r) === JSON.stringify({ '2': [4, 4, 0, 'latest,stable'], '1': [1, 1, 1, ''] })
      );
    });
    t.diagnostic(`completed rollout on the page ${Date.now() - promoted} ms after promote`);
    assert.equal(await page.textContent('#fleet .fleet-step'), 'step 3/3 (all done)');
    assert.equal(
      await page.evaluate(() => (globalThis as unknown as { fleetTestMarker?: boolean }).fleetTestMarker),
      true,
      'the page was not reloaded',
    );
    // The instance list the user opened stays open across the pushed updates.
    assert.equal(await page.getAttribute('#fleet tr[data-revision="1"] details', 'open'), '');
    await browser.screenshot('08-fleet-completed');
  });

  it('a user who may not read GraphRollouts sees the fleet by revision, and why no rollout is shown', async () => {
    const { client } = f;
    const user = `fleet-viewer-${f.suite}`;
    const role = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', name: user };
    const binding = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', name: user };
    await client.apply(
      {
        apiVersion: role.apiVersion,
        kind: role.kind,
        metadata: { name: user },
        rules: [
          {
            apiGroups: ['kro.run', f.group],
            resources: ['resourcegraphdefinitions', 'graphs', 'webs'],
            verbs: ['get', 'list', 'watch'],
          },
        ],
      },
      { fieldManager: 'test', force: true },
    );
    await client.apply(
      {
        apiVersion: binding.apiVersion,
        kind: binding.kind,
        metadata: { name: user },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: user },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }],
      },
      { fieldManager: 'test', force: true },
    );
    const cp = await sharedControlPlane();
    const viewerSource = clusterSource({ client: new RestClient(cp.kc).withImpersonation({ user }) });
    const viewerServer = await startUiServer({ source: viewerSource, port: 0 });
    try {
      const { page } = browser;
      await page.goto(`${viewerServer.url}#${encodeURIComponent(`rgd:${rgdName()}`)}`);
      await waitPanel(
        'the viewer sees the fleet (after the previous test: 4 at r2, the pinned one at r1)',
        async () => {
          const r = await rows();
          return JSON.stringify(r) === JSON.stringify({ '2': [4, 4, 0, 'latest'], '1': [1, 1, 1, ''] });
        },
      );
      assert.equal(await page.$('#fleet .fleet-rollout'), null, 'no rollout shown');
      assert.match((await page.textContent('#note')) ?? '', /you may not list GraphRollouts/);
    } finally {
      await viewerServer.close();
      await viewerSource.close();
      await client.delete(binding).catch(() => undefined);
      await client.delete(role).catch(() => undefined);
    }
  });
});
