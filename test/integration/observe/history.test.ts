// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * The reconcile history (docs/observability.md): an instance that waits on a missing ConfigMap, then
 * converges once it exists, has both passes in its history — the waiting one naming the node and why,
 * the converged one what it created — served on the controller's metrics address and printed by
 * `kgraph get --history`'s formatter.
 */
import assert from 'node:assert/strict';
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { fetchHistory, formatHistory } from '../../../src/cli/history.ts';
import { EventRecorder } from '../../../src/controller/core/events/recorder.ts';
import { PassHistory } from '../../../src/controller/core/history/passHistory.ts';
import { Observability } from '../../../src/controller/core/observability.ts';
import { historyAnswer, passesOf } from '../../../src/controller/host/observe.ts';
import { serve } from '../../../src/controller/host/probes.ts';
import type { RgdController } from '../../../src/controller/rgd/controller.ts';
import type { KubeObject, RestClient } from '../../../src/kube/index.ts';
import {
  applyGraph,
  graph,
  graphNamespace,
  startController as startGraphController,
  stopController as stopGraphController,
} from '../graph/support.ts';
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

type GraphEvent = KubeObject & {
  reason?: string;
  type?: string;
  note?: string;
  regarding?: { kind: string; name: string };
};

describe('reconcile history', () => {
  let f: RgdFixture;
  let client: RestClient;
  let controller: RgdController;
  let server: http.Server;
  let addr: string;
  const observe = new Observability({ history: new PassHistory({ perObject: 5 }) });

  before(async () => {
    f = await rgdFixture('obs-history', { observe });
    ({ client, controller } = f);
    server = await serve('127.0.0.1:0', { history: (q) => historyAnswer(observe, q) });
    addr = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.close();
    await stopRgdController(controller);
  });

  it('shows a pass that waited, then the pass that converged', async () => {
    await applyRgd(
      client,
      rgd(f, 'hist', { kind: 'HistApp', spec: {} }, [
        { id: 'src', externalRef: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'hist-src' } } },
        { id: 'out', template: cm('${schema.metadata.name}-out', { v: '${src.data.v}' }) },
      ]),
    );
    await waitRgd(client, 'hist', 'Ready', 'True');
    await applyInstance(client, instance(f, 'HistApp', 'h', {}));
    const q = {
      controller: addr,
      apiVersion: `${f.group}/v1alpha1`,
      kind: 'HistApp',
      namespace: f.ns,
      name: 'h',
    };
    await eventually('a waiting pass', async () =>
      (await fetchHistory(q)).find((p) => p.result === 'waiting'),
    );
    await client.create({ ...cm('hist-src', { v: '1' }), metadata: { name: 'hist-src', namespace: f.ns } });
    await waitState(client, f, 'HistApp', 'h', 'ACTIVE');
    const passes = await eventually('a converged pass', async () => {
      const ps = await fetchHistory(q);
      return ps.at(-1)?.result === 'converged' ? ps : undefined;
    });
    const waited = passes.find((p) => p.result === 'waiting');
    assert.ok(waited, JSON.stringify(passes));
    assert.equal(waited.waiting?.node, 'src');
    assert.equal(waited.waiting?.state, 'pending');
    assert.deepEqual(
      waited.nodes.map((n) => `${n.id}=${n.state}`),
      ['src=pending', 'out=pending'],
    );
    const done = passes.find((p) => p.created.length > 0);
    assert.ok(done, JSON.stringify(passes));
    assert.deepEqual(done.created, [`v1/ConfigMap/${f.ns}/h-out`]);
    assert.ok(passes.indexOf(waited) < passes.indexOf(done));
    const text = formatHistory(`HistApp ${f.ns}/h`, passes);
    assert.match(text, /waiting +NotReady .*waiting on src \(pending\): /);
    assert.match(text, /converged +Ready .*created 1/);
    assert.match(text, /nodes: src=ready out=ready/);
    console.log(text);
  });

  it('keeps the passes of Graphs too, and a failed Graph pass is a Warning event', async () => {
    const gObserve = new Observability({
      history: new PassHistory({ perObject: 5 }),
      events: new EventRecorder(client),
    });
    const ns = await graphNamespace('obs-history-graph');
    const graphs = await startGraphController([ns], { observe: gObserve });
    try {
      await applyGraph(client, graph(ns, 'g', [{ id: 'c', template: cm('g-c', { v: '1' }) }]));
      const passes = await eventually('a converged Graph pass', async () => {
        const ps = passesOf(gObserve, {
          apiVersion: 'kro.run/v1alpha1',
          kind: 'Graph',
          namespace: ns,
          name: 'g',
        });
        return ps.some((p) => p.result === 'converged') ? ps : undefined;
      });
      assert.ok(
        passes.every((p) => p.durationMs > 0 && p.reason !== ''),
        JSON.stringify(passes),
      );
      // A runtime expression error: the pass fails, the Graph gets a ReconcileFailed event.
      await applyGraph(
        client,
        graph(ns, 'bad', [{ id: 'c', template: cm('bad-c', { n: '${string(int("x"))}' }) }]),
      );
      const ev = await eventually('the Graph ReconcileFailed event', async () => {
        const list = await client.listAll({ apiVersion: 'events.k8s.io/v1', kind: 'Event', namespace: ns });
        return (list.items as GraphEvent[]).find(
          (e) => e.reason === 'ReconcileFailed' && e.regarding?.name === 'bad',
        );
      });
      assert.equal(ev.type, 'Warning');
      assert.equal(ev.regarding?.kind, 'Graph');
      assert.match(ev.note ?? '', /node c/);
      const failed = passesOf(gObserve, {
        apiVersion: 'kro.run/v1alpha1',
        kind: 'Graph',
        namespace: ns,
        name: 'bad',
      });
      assert.ok(
        failed.some((p) => p.result === 'failed' && p.error),
        JSON.stringify(failed),
      );
    } finally {
      await stopGraphController(graphs);
      await gObserve.stop();
    }
  });
});
