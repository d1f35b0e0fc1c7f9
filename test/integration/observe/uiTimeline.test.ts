// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * The reconcile timeline of `kgraph ui` in a real browser (headless Debian Chromium): an instance that
 * waited on a missing ConfigMap and then converged shows both passes; clicking the waiting pass colours
 * the DAG as that pass left it (both nodes pending), "live" goes back to what the cluster holds.
 */
import assert from 'node:assert/strict';
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { fetchHistory } from '../../../src/cli/history.ts';
import { PassHistory } from '../../../src/controller/core/history/passHistory.ts';
import { Observability } from '../../../src/controller/core/observability.ts';
import { historyAnswer } from '../../../src/controller/host/observe.ts';
import { serve } from '../../../src/controller/host/probes.ts';
import type { RgdController } from '../../../src/controller/rgd/controller.ts';
import type { RestClient } from '../../../src/kube/index.ts';
import { RestClient as Client } from '../../../src/kube/rest.ts';
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

const WAIT_MS = 120_000;

describe('the reconcile timeline in kgraph ui', { timeout: 300_000 }, () => {
  let f: RgdFixture;
  let client: RestClient;
  let controller: RgdController;
  let metrics: http.Server;
  let source: UiSource;
  let ui: UiServer;
  let browser: TestBrowser;
  const observe = new Observability({ history: new PassHistory() });

  before(async () => {
    f = await rgdFixture('obs-ui', { observe });
    ({ client, controller } = f);
    metrics = await serve('127.0.0.1:0', { history: (q) => historyAnswer(observe, q) });
    const addr = `127.0.0.1:${(metrics.address() as AddressInfo).port}`;
    const cp = await sharedControlPlane();
    source = clusterSource({ client: new Client(cp.kc), closeClient: true, namespaces: [f.ns] });
    ui = await startUiServer({
      source,
      port: 0,
      history: (q) => fetchHistory({ controller: addr, ...q }),
    });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await ui?.close();
    await source?.close();
    metrics?.close();
    await stopRgdController(controller);
  });

  it('shows the waiting pass and the converged one; a click draws the DAG as it was', async () => {
    await applyRgd(
      client,
      rgd(f, 'tl', { kind: 'TlApp', spec: {} }, [
        { id: 'src', externalRef: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'tl-src' } } },
        { id: 'out', template: cm('${schema.metadata.name}-out', { v: '${src.data.v}' }) },
      ]),
    );
    await waitRgd(client, 'tl', 'Ready', 'True');
    await applyInstance(client, instance(f, 'TlApp', 'x', {}));
    await eventually('a waiting pass', async () =>
      (
        await fetchHistory({
          controller: `127.0.0.1:${(metrics.address() as AddressInfo).port}`,
          apiVersion: `${f.group}/v1alpha1`,
          kind: 'TlApp',
          namespace: f.ns,
          name: 'x',
        })
      ).find((p) => p.result === 'waiting'),
    );
    await client.create({ ...cm('tl-src', { v: '1' }), metadata: { name: 'tl-src', namespace: f.ns } });
    await waitState(client, f, 'TlApp', 'x', 'ACTIVE');

    const { page } = browser;
    const key = `instance:${f.group}/v1alpha1:TlApp:${f.ns}/x`;
    await page.goto(`${ui.url}#${encodeURIComponent(key)}`);
    await page.waitForSelector('#timeline:not([hidden]) .pass[data-result="converged"]', {
      timeout: WAIT_MS,
    });
    await page.waitForSelector('#dag [data-node="out"][data-state="ready"]', { timeout: WAIT_MS });
    const results = await page.$$eval('#passes .pass', (bs) => bs.map((b) => b.getAttribute('data-result')));
    assert.ok(results.includes('waiting'), JSON.stringify(results));

    await page.click('#passes .pass[data-result="waiting"]');
    await page.waitForSelector('#dag [data-node="out"][data-state="pending"]', { timeout: 10_000 });
    assert.equal(await page.getAttribute('#dag [data-node="src"]', 'data-state'), 'pending');
    assert.match(
      (await page.textContent('#pass-note')) ?? '',
      /waiting on src: ref target configmap\/tl-src/,
    );
    await browser.screenshot('timeline-waiting-pass');

    await page.click('#passes .pass.live');
    await page.waitForSelector('#dag [data-node="out"][data-state="ready"]', { timeout: 10_000 });
    assert.equal(await page.textContent('#pass-note'), '');
  });
});
