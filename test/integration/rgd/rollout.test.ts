// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * Progressive rollouts (design/rgd.md §19.8) on the real API server, 20 instances: a good change goes
 * canary → pause → promote → batches → Completed, each instance's children changing in that order; a bad
 * change (its `failWhen` fires) is rolled back after the canary, the other 18 never see it; a pinned
 * instance is never touched. Also the figures docs/rollout.md quotes: step latency, writes per instance.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RgdController } from '../../../src/controller/rgd/controller.ts';
import { rolloutAction, rolloutSummary } from '../../../src/controller/rgd/rollout/actions.ts';
import type { KubeObject, RestClient } from '../../../src/kube/index.ts';
import {
  applyInstance,
  applyRgd,
  cm,
  cmData,
  eventually,
  getInstance,
  instance,
  type RgdFixture,
  rgd,
  rgdFixture,
  stopRgdController,
  waitRgd,
  waitState,
} from './support.ts';

const RO = { apiVersion: 'kgraph.dev/v1alpha1', kind: 'GraphRollout' };
const N = 20;
const names = Array.from({ length: N }, (_, i) => `i${String(i).padStart(2, '0')}`);
const CANARY = ['i10', 'i15'];

/** Polls the children's value and records, per instance, the order in which each value first appeared. */
class ChildWatch {
  readonly seen = new Map<string, Map<string, number>>();
  private tick = 0;
  private stopped = false;
  private loop: Promise<void> | undefined;
  constructor(
    private readonly client: RestClient,
    private readonly ns: string,
  ) {}
  start(): void {
    this.loop = (async () => {
      while (!this.stopped) {
        const list = await this.client.list({ apiVersion: 'v1', kind: 'ConfigMap', namespace: this.ns });
        this.tick += 1;
        for (const o of list.items) {
          const inst = o.metadata.name?.replace(/-a$/, '') ?? '';
          const v = (o.data as Record<string, string> | undefined)?.v ?? '';
          const m = this.seen.get(inst) ?? new Map<string, number>();
          if (!m.has(v)) m.set(v, this.tick);
          this.seen.set(inst, m);
        }
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
  }
  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop;
  }
  when(inst: string, v: string): number | undefined {
    return this.seen.get(inst)?.get(v);
  }
}

describe('GraphRollout: progressive rollout of an RGD change', () => {
  let f: RgdFixture;
  let client: RestClient;
  let controller: RgdController;
  const rgdName = () => `${f.suite}-web`;

  before(async () => {
    f = await rgdFixture('rgd-ro');
    ({ client, controller } = f);
  });
  after(() => stopRgdController(controller));

  const web = (v: string) =>
    rgd(f, rgdName(), { kind: 'Web', spec: { n: 'string' }, status: { v: '${a.data.v}' } }, [
      { id: 'a', template: cm('${schema.metadata.name}-a', { v }) },
    ]);
  const rollout = async () => {
    const got = await client.getOrUndefined({ ...RO, name: rgdName() });
    return got?.status as
      | { phase?: string; step?: number; stableRevision?: number; targetRevision?: number; failed?: string[] }
      | undefined;
  };
  const waitRollout = (what: string, ok: (s: NonNullable<Awaited<ReturnType<typeof rollout>>>) => boolean) =>
    eventually(
      `rollout ${what}`,
      async () => {
        const s = await rollout();
        return s && ok(s) ? s : undefined;
      },
      90_000,
    );
  const label = async (name: string) =>
    (await getInstance(client, f, 'Web', name))?.metadata.labels?.['kgraph.dev/revision'];

  it('a good change: canary, pause, promote, batches, Completed — children updated in that order', async () => {
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
            { batch: { percent: 50, maxInFlight: 4 } },
            { batch: { percent: 100, maxInFlight: 5 } },
          ],
          health: { failWhen: ['${schema.status.?v.orValue("") == "bad"}'], progressDeadline: '60s' },
          onFailure: { action: 'Rollback', maxFailures: 1 },
        },
      } as KubeObject,
      { fieldManager: 'test', force: true },
    );
    for (const n of names)
      await applyInstance(
        client,
        instance(f, 'Web', n, { n }, CANARY.includes(n) ? { labels: { tier: 'canary' } } : {}),
      );
    await applyInstance(
      client,
      instance(f, 'Web', 'pinned', { n: 'p' }, { annotations: { 'kgraph.dev/revision-policy': 'Manual' } }),
    );
    for (const n of [...names, 'pinned'])
      await waitState(
        client,
        f,
        'Web',
        n,
        'ACTIVE',
        (o) => o.metadata.labels?.['kgraph.dev/revision'] === '1',
      );
    await waitRollout('stable at 1', (s) => s.phase === 'Completed' && s.stableRevision === 1);

    const watch = new ChildWatch(client, f.ns);
    watch.start();
    const writesBefore = controller.rollouts.stats.instanceWrites;
    const apiWritesBefore = controller.client.counters.writes();
    await applyRgd(client, web('two'));
    await waitRollout(
      'paused after the canary',
      (s) => s.phase === 'Paused' && s.step === 1 && s.targetRevision === 2,
    );
    await controller.idle();
    for (const n of names) {
      const want = CANARY.includes(n) ? 'two' : 'one';
      assert.equal((await cmData(client, f.ns, `${n}-a`))?.v, want, n);
      assert.equal(await label(n), CANARY.includes(n) ? '2' : '1', n);
    }
    const pausedAt = Date.now();
    const summary = rolloutSummary((await client.get({ ...RO, name: rgdName() })) as KubeObject);
    console.log(summary);
    assert.match(summary, /phase: {4}Paused/);

    await rolloutAction(client, rgdName(), 'promote');
    const done = await waitRollout('completed', (s) => s.phase === 'Completed' && s.stableRevision === 2);
    const completedMs = Date.now() - pausedAt;
    await watch.stop();
    await controller.idle();
    const apiWrites = controller.client.counters.writes() - apiWritesBefore;
    assert.equal(done.targetRevision, undefined);
    for (const n of names) {
      assert.equal((await cmData(client, f.ns, `${n}-a`))?.v, 'two', n);
      const o = await getInstance(client, f, 'Web', n);
      assert.equal(o?.metadata.labels?.['kgraph.dev/revision'], '2', n);
      // Released: the instance follows the (now stable) latest revision with no annotation of ours.
      assert.equal(o?.metadata.annotations?.['kgraph.dev/revision'], undefined, n);
    }
    // The pinned instance was never touched.
    assert.equal((await cmData(client, f.ns, 'pinned-a'))?.v, 'one');
    assert.equal(await label('pinned'), '1');

    // Order: the canary first; then the first batch (the oldest 8 others, here by name); then the rest.
    const batch1 = names.filter((n) => !CANARY.includes(n)).slice(0, 8);
    const batch2 = names.filter((n) => !CANARY.includes(n) && !batch1.includes(n));
    const t = (n: string) => watch.when(n, 'two') ?? Number.POSITIVE_INFINITY;
    const latest = (xs: string[]) => Math.max(...xs.map(t));
    const earliest = (xs: string[]) => Math.min(...xs.map(t));
    assert.ok(
      latest(CANARY) < earliest(batch1),
      `canary ${latest(CANARY)} before batch 1 ${earliest(batch1)}`,
    );
    assert.ok(
      latest(batch1) <= earliest(batch2),
      `batch 1 ${latest(batch1)} before batch 2 ${earliest(batch2)}`,
    );

    const writes = controller.rollouts.stats.instanceWrites - writesBefore;
    const steps = controller.rollouts.stats.steps.filter((s) => s.rollout === rgdName());
    console.log(
      JSON.stringify({
        promoteToCompletedMs: completedMs,
        rolloutWritesPerInstance: writes / N,
        // Every write request of the controller during the rollout (revision, RGD and rollout status included).
        controllerWritesPerInstance: apiWrites / N,
        steps,
      }),
    );
    // One assignment and one release per promoted instance.
    assert.equal(writes, 2 * N);
  });

  it('a bad change: failWhen fires on the canary, which is rolled back; the other 18 never see it', async () => {
    const watch = new ChildWatch(client, f.ns);
    watch.start();
    await applyRgd(client, web('bad'));
    const s = await waitRollout('rolled back', (x) => x.phase === 'RolledBack' && x.targetRevision === 3);
    assert.ok(
      (s.failed ?? []).every((x) => CANARY.map((c) => `${f.ns}/${c}`).includes(x)),
      String(s.failed),
    );
    assert.ok((s.failed ?? []).length >= 1);
    for (const n of CANARY) {
      await eventually(`${n} back at 2`, async () =>
        (await cmData(client, f.ns, `${n}-a`))?.v === 'two' && (await label(n)) === '2' ? true : undefined,
      );
    }
    await controller.idle();
    await watch.stop();
    for (const n of names.filter((x) => !CANARY.includes(x))) {
      assert.equal(watch.when(n, 'bad'), undefined, `${n} never saw the bad revision`);
      assert.equal(await label(n), '2', n);
    }
    assert.equal((await cmData(client, f.ns, 'pinned-a'))?.v, 'one');
    console.log(rolloutSummary((await client.get({ ...RO, name: rgdName() })) as KubeObject));
  });

  it('a stuck change halts at its progress deadline; new instances stay stable; retry, abort, undo, delete', async () => {
    // Halt (not roll back) after one failure; "stuck" never becomes ready; a short deadline.
    await client.patch(
      { ...RO, name: rgdName() },
      {
        spec: {
          onFailure: { action: 'Halt', maxFailures: 1 },
          health: {
            readyWhen: ['${schema.status.state == "ACTIVE"}', '${schema.status.?v.orValue("") != "stuck"}'],
            failWhen: ['${schema.status.?v.orValue("") == "bad"}'],
            progressDeadline: '2s',
          },
        },
      },
    );
    await applyRgd(client, web('stuck'));
    const halted = await waitRollout('halted', (x) => x.phase === 'Halted' && x.targetRevision === 4);
    assert.deepEqual(halted.failed?.sort(), CANARY.map((c) => `${f.ns}/${c}`).sort());
    // Halted, not rolled back: the canary stays at the target.
    for (const n of CANARY) assert.equal(await label(n), '4', n);

    // A new instance during the rollout starts at the stable revision (newInstances: Stable).
    await applyInstance(client, instance(f, 'Web', 'late', { n: 'late' }));
    await waitState(
      client,
      f,
      'Web',
      'late',
      'ACTIVE',
      (o) => o.metadata.labels?.['kgraph.dev/revision'] === '2',
    );
    assert.equal((await cmData(client, f.ns, 'late-a'))?.v, 'two');

    // Retry: the step starts again and fails again at the deadline.
    await rolloutAction(client, rgdName(), 'retry');
    await waitRollout(
      'retried and halted again',
      (x) => x.phase === 'Halted' && (x as { retry?: number }).retry === 1,
    );

    // Abort: the canary goes back to the stable revision.
    await rolloutAction(client, rgdName(), 'abort');
    await waitRollout('aborted', (x) => x.phase === 'Aborted');
    for (const n of CANARY)
      await eventually(`${n} back at 2`, async () =>
        (await cmData(client, f.ns, `${n}-a`))?.v === 'two' && (await label(n)) === '2' ? true : undefined,
      );

    // Undo: the stable revision's spec goes back into the RGD; as in kro a new revision (5) carries it, and
    // the rollout moves the fleet to it: canary, pause, promote, Completed.
    await rolloutAction(client, rgdName(), 'undo');
    await waitRollout('undo paused after the canary', (x) => x.phase === 'Paused' && x.targetRevision === 5);
    await rolloutAction(client, rgdName(), 'promote');
    await waitRollout('undo completed', (x) => x.phase === 'Completed' && x.stableRevision === 5);
    for (const n of [...names, 'late']) {
      assert.equal((await cmData(client, f.ns, `${n}-a`))?.v, 'two', n);
      await waitState(
        client,
        f,
        'Web',
        n,
        'ACTIVE',
        (o) => o.metadata.labels?.['kgraph.dev/revision'] === '5',
      );
    }
    assert.equal((await cmData(client, f.ns, 'pinned-a'))?.v, 'one');

    // A rollout deleted mid-way releases its assignments: the instances follow the latest revision again.
    await applyRgd(client, web('three'));
    await waitRollout('paused at 6', (x) => x.phase === 'Paused' && x.targetRevision === 6);
    await client.delete({ ...RO, name: rgdName() });
    for (const n of [...names, 'late'])
      await eventually(`${n} at 6 without assignment`, async () => {
        const o = await getInstance(client, f, 'Web', n);
        return o?.metadata.labels?.['kgraph.dev/revision'] === '6' &&
          o.metadata.annotations?.['kgraph.dev/revision'] === undefined &&
          (await cmData(client, f.ns, `${n}-a`))?.v === 'three'
          ? true
          : undefined;
      });
    assert.equal((await cmData(client, f.ns, 'pinned-a'))?.v, 'one');
    // Nothing is kept of the instances that are gone (the pinned one included).
    assert.ok(controller.rollouts.retained().passes <= names.length + 2);
  });
});
