// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * Kubernetes Events (`events.k8s.io/v1`) on the real API server (docs/observability.md): an instance's
 * changes (created, updated, pruned, counted), drift repaired, waiting on a node and why, a refused read
 * with the grant hint, a revision issued and a breaking change blocked on the RGD, kro's condition
 * transitions behind their flag; and under 200 failing instances, one Event object per instance and
 * reason (repeats are its series), with the writes bounded by the rate limit.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { EventRecorder } from '../../../src/controller/core/events/recorder.ts';
import { PassHistory } from '../../../src/controller/core/history/passHistory.ts';
import { Observability } from '../../../src/controller/core/observability.ts';
import type { RgdController } from '../../../src/controller/rgd/controller.ts';
import type { KubeObject, RestClient } from '../../../src/kube/index.ts';
import { adminClient, grantServiceAccount } from '../../support/kube.ts';
import {
  applyInstance,
  applyRgd,
  cm,
  conditionOf,
  eventually,
  instance,
  type RgdFixture,
  rgd,
  rgdFixture,
  stopRgdController,
  waitRgd,
  waitState,
} from '../rgd/support.ts';

interface Ev extends KubeObject {
  reason: string;
  type: string;
  note: string;
  action: string;
  regarding: { kind: string; name: string; namespace?: string };
  series?: { count: number; lastObservedTime: string };
}

async function eventsOf(client: RestClient, ns: string, name: string, reason?: string): Promise<Ev[]> {
  const list = await client.listAll({ apiVersion: 'events.k8s.io/v1', kind: 'Event', namespace: ns });
  return (list.items as Ev[]).filter(
    (e) => e.regarding.name === name && (reason === undefined || e.reason === reason),
  );
}

async function waitEvent(
  client: RestClient,
  ns: string,
  name: string,
  reason: string,
  note?: RegExp,
): Promise<Ev> {
  try {
    return await eventually(
      `event ${reason} on ${name}`,
      async () => (await eventsOf(client, ns, name, reason)).find((e) => !note || note.test(e.note)),
      30_000,
      200,
    );
  } catch (e) {
    const seen = (await eventsOf(client, ns, name)).map((x) => `${x.reason}: ${x.note}`);
    throw new Error(`${(e as Error).message}; events of ${name}: ${JSON.stringify(seen)}`);
  }
}

describe('events of RGDs and instances', () => {
  let f: RgdFixture;
  let client: RestClient;
  let controller: RgdController;
  let observe: Observability;
  let eventsClient: RestClient;

  before(async () => {
    eventsClient = await adminClient();
    observe = new Observability({
      events: new EventRecorder(eventsClient, { flushMs: 500 }),
      conditionEvents: true,
      history: new PassHistory(),
    });
    f = await rgdFixture('obs-events', { observe });
    ({ client, controller } = f);
  });
  after(async () => {
    await stopRgdController(controller);
    await observe.stop();
  });

  it('a revision, an instance created, drift repaired, a spec change, a prune, condition transitions', async () => {
    await applyRgd(
      client,
      rgd(f, 'ev', { kind: 'EvApp', spec: { v: 'string | default="1"', extra: 'boolean | default=false' } }, [
        { id: 'main', template: cm('${schema.metadata.name}-main', { v: '${schema.spec.v}' }) },
        { id: 'extra', includeWhen: ['${schema.spec.extra}'], template: cm('${schema.metadata.name}-extra') },
      ]),
    );
    await waitRgd(client, 'ev', 'Ready', 'True');
    const rev = await waitEvent(client, 'default', 'ev', 'RevisionIssued');
    assert.equal(rev.type, 'Normal');
    assert.match(rev.note, /revision 1/);

    await applyInstance(client, instance(f, 'EvApp', 'a', { extra: true }));
    await waitState(client, f, 'EvApp', 'a', 'ACTIVE');
    const applied = await waitEvent(client, f.ns, 'a', 'ResourcesApplied');
    assert.match(applied.note, /^applied 2, pruned 0: created 2 \(ConfigMap a-extra, ConfigMap a-main\)/);
    assert.equal(applied.action, 'Reconcile');
    assert.equal(applied.regarding.kind, 'EvApp');
    // kro's form: reason the condition type, "<old> -> <new>: <reason>".
    const ready = await waitEvent(client, f.ns, 'a', 'Ready', /-> True: /);
    assert.equal(ready.type, 'Normal');

    // Someone changes what the instance owns: the next pass puts it back and says so.
    await client.apply(
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'a-main', namespace: f.ns },
        data: { v: 'x' },
      },
      { fieldManager: 'someone', force: true },
    );
    const drift = await waitEvent(client, f.ns, 'a', 'DriftRepaired');
    assert.match(drift.note, /re-applied 1 object\(s\) changed outside kgraph: ConfigMap a-main/);

    await applyInstance(client, instance(f, 'EvApp', 'a', { v: '2', extra: false }));
    const changed = await waitEvent(client, f.ns, 'a', 'ResourcesApplied', /pruned 1/);
    assert.match(changed.note, /updated 1 \(ConfigMap a-main\); pruned 1 \(ConfigMap a-extra\)/);
    // The list for docs/observability.md (test-results/ is not committed), as `kubectl events` prints it.
    const all = [...(await eventsOf(client, f.ns, 'a')), ...(await eventsOf(client, 'default', 'ev'))];
    const rows = all
      .sort((x, y) =>
        String(x.metadata.creationTimestamp).localeCompare(String(y.metadata.creationTimestamp)),
      )
      .map(
        (e) =>
          `${e.type.padEnd(8)}${e.reason.padEnd(18)}${`${e.regarding.kind}/${e.regarding.name}`.padEnd(36)}${e.note}`,
      );
    mkdirSync('test-results', { recursive: true });
    writeFileSync(
      'test-results/observability-events.txt',
      `${'TYPE'.padEnd(8)}${'REASON'.padEnd(18)}${'OBJECT'.padEnd(36)}MESSAGE\n${rows.join('\n')}\n`,
    );
  });

  it('waiting on a node says which and why', async () => {
    await applyRgd(
      client,
      rgd(f, 'wait', { kind: 'EvWait', spec: {} }, [
        { id: 'src', externalRef: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'absent' } } },
        { id: 'out', template: cm('${schema.metadata.name}-out', { v: '${src.data.v}' }) },
      ]),
    );
    await waitRgd(client, 'wait', 'Ready', 'True');
    await applyInstance(client, instance(f, 'EvWait', 'w', {}));
    const w = await waitEvent(client, f.ns, 'w', 'Waiting');
    assert.match(w.note, /^waiting on node src \(pending\): /);
    // Retries of the same wait are one Event object with a series, never a new object.
    await new Promise((r) => setTimeout(r, 8_000));
    const all = await eventsOf(client, f.ns, 'w', 'Waiting');
    assert.equal(all.length, 1, JSON.stringify(all.map((e) => e.note)));
    assert.ok((all[0]?.series?.count ?? 0) >= 2, `a series: ${JSON.stringify(all[0]?.series)}`);
  });

  it('a refused read is a Warning with the grant hint', async () => {
    await client.create({
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: 'app', namespace: f.ns },
    });
    const r = rgd(f, 'refused', { kind: 'EvRefused', spec: {} }, [
      { id: 's', externalRef: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'db' } } },
      { id: 'out', template: cm('${schema.metadata.name}-out', { n: '${s.metadata.name}' }) },
    ]);
    (r.spec as Record<string, unknown>).defaultServiceAccounts = { [f.ns]: 'app' };
    await applyRgd(client, r);
    await waitRgd(client, 'refused', 'Ready', 'True');
    await applyInstance(client, instance(f, 'EvRefused', 'r', {}));
    await waitState(
      client,
      f,
      'EvRefused',
      'r',
      'ERROR',
      (o) => conditionOf(o, 'ResourcesReady')?.reason === 'ReadForbidden',
    );
    const e = await waitEvent(client, f.ns, 'r', 'ReadForbidden');
    assert.equal(e.type, 'Warning');
    assert.equal(e.action, 'Read');
    assert.match(e.note, /may not get secrets "db"/);
    assert.match(e.note, /kubectl create role /);
  });

  it('a refused write is a Warning with the grant hint', async () => {
    await client.create({
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: 'reader', namespace: f.ns },
    });
    // May read ConfigMaps (the read checks pass), may not write them.
    await grantServiceAccount(client, f.ns, 'reader-cm', ['configmaps'], ['get', 'list', 'watch'], {
      name: 'reader',
      namespace: f.ns,
    });
    const r = rgd(f, 'wrefused', { kind: 'EvWriteRefused', spec: {} }, [
      { id: 'out', template: cm('${schema.metadata.name}-out', { v: '1' }) },
    ]);
    (r.spec as Record<string, unknown>).defaultServiceAccounts = { [f.ns]: 'reader' };
    await applyRgd(client, r);
    await waitRgd(client, 'wrefused', 'Ready', 'True');
    await applyInstance(client, instance(f, 'EvWriteRefused', 'w', {}));
    const e = await waitEvent(client, f.ns, 'w', 'WriteForbidden');
    assert.equal(e.type, 'Warning');
    assert.equal(e.action, 'Apply');
    assert.match(e.note, /configmaps "w-out" is forbidden/);
    assert.match(e.note, /kubectl create role kgraph-reader-configmaps -n /);
  });

  it('a breaking change is blocked with a Warning on the RGD', async () => {
    await applyRgd(
      client,
      rgd(f, 'brk', { kind: 'EvBreak', spec: { n: 'string' } }, [
        { id: 'c', template: cm('${schema.metadata.name}-c') },
      ]),
    );
    await waitRgd(client, 'brk', 'Ready', 'True');
    await applyRgd(
      client,
      rgd(f, 'brk', { kind: 'EvBreak', spec: { n: 'integer' } }, [
        { id: 'c', template: cm('${schema.metadata.name}-c') },
      ]),
    );
    const e = await waitEvent(client, 'default', 'brk', 'BreakingChangeBlocked');
    assert.equal(e.type, 'Warning');
    assert.match(e.note, /the CRD update is blocked/);
  });
});

describe('no event storm under 200 failing instances', () => {
  let f: RgdFixture;
  let controller: RgdController;
  let observe: Observability;
  let recorder: EventRecorder;
  let eventsClient: RestClient;

  before(async () => {
    eventsClient = await adminClient();
    recorder = new EventRecorder(eventsClient, { flushMs: 1_000 });
    observe = new Observability({ events: recorder });
    f = await rgdFixture('obs-storm', { observe, concurrency: 8 });
    ({ controller } = f);
  });
  after(async () => {
    await stopRgdController(controller);
    await observe.stop();
  });

  it('writes at most the rate limit, one Event object per instance and reason', async () => {
    const client = f.client;
    await applyRgd(
      client,
      rgd(f, 'storm', { kind: 'EvStorm', spec: { s: 'string | default="x"' } }, [
        { id: 'bad', template: cm('${schema.metadata.name}-bad', { n: '${string(int(schema.spec.s))}' }) },
      ]),
    );
    await waitRgd(client, 'storm', 'Ready', 'True');
    const N = 200;
    const started = Date.now();
    await Promise.all(
      Array.from({ length: N }, (_, i) => applyInstance(client, instance(f, 'EvStorm', `s${i}`, {}))),
    );
    const windowMs = 20_000;
    const perSecond: number[] = [];
    let last = 0;
    while (Date.now() - started < windowMs) {
      await new Promise((r) => setTimeout(r, 1_000));
      const s = recorder.stats;
      const writes = s.created + s.seriesUpdates;
      perSecond.push(writes - last);
      last = writes;
    }
    await recorder.drained();
    const s = recorder.stats;
    const elapsed = (Date.now() - started) / 1000;
    const reconciles = controller.metrics.reconcileCount();
    console.log(
      `storm: ${N} failing instances, ${elapsed.toFixed(1)} s, ${reconciles} reconciles; events created ${s.created}, series updates ${s.seriesUpdates}, aggregated ${s.aggregated}, dropped ${s.dropped}; writes per second ${JSON.stringify(perSecond)}`,
    );
    // The global bucket: a burst of 100, then 5 a second (series updates count too).
    assert.ok(s.created + s.seriesUpdates <= 100 + 5 * elapsed + 1, JSON.stringify(s));
    assert.ok(Math.max(...perSecond.slice(1)) <= 100, JSON.stringify(perSecond));
    const evs = (await client.listAll({ apiVersion: 'events.k8s.io/v1', kind: 'Event', namespace: f.ns }))
      .items as Ev[];
    const perInstance = new Map<string, number>();
    for (const e of evs) {
      const k = `${e.regarding.name}|${e.reason}`;
      perInstance.set(k, (perInstance.get(k) ?? 0) + 1);
    }
    assert.ok(evs.length > 0, 'some events were written');
    for (const [k, n] of perInstance) assert.equal(n, 1, `${k}: ${n} Event objects`);
    assert.ok(evs.every((e) => e.reason === 'ReconcileFailed' && e.type === 'Warning'));
  });
});
