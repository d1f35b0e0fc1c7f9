// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * GraphRollout details on the real API server (design/rgd.md §19.8): the fleet gate holds a finished step, a
 * canary named by namespace, new instances following the target with `newInstances: Latest`, and a timed
 * pause that moves on by itself.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RgdController } from '../../../src/controller/rgd/controller.ts';
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
const names = ['g0', 'g1', 'g2', 'g3', 'g4', 'g5'];

describe('GraphRollout: gate, namespaces, new instances, timed pause', () => {
  let f: RgdFixture;
  let client: RestClient;
  let controller: RgdController;

  before(async () => {
    f = await rgdFixture('rgd-rogate');
    ({ client, controller } = f);
  });
  after(() => stopRgdController(controller));

  const app = (v: string) =>
    rgd(f, `${f.suite}-app`, { kind: 'Gated', spec: { n: 'string' } }, [
      { id: 'a', template: cm('${schema.metadata.name}-a', { v }) },
    ]);
  const status = async () =>
    (await client.getOrUndefined({ ...RO, name: `${f.suite}-app` }))?.status as
      | { phase?: string; step?: number; stableRevision?: number; message?: string }
      | undefined;
  const label = async (n: string) =>
    (await getInstance(client, f, 'Gated', n))?.metadata.labels?.['kgraph.dev/revision'];

  it('holds a step for its gate, moves new instances to the target, waits out a timed pause', async () => {
    await applyRgd(client, app('one'));
    await waitRgd(client, `${f.suite}-app`, 'Ready', 'True');
    await client.apply(
      {
        ...RO,
        metadata: { name: `${f.suite}-app` },
        spec: {
          // The canary is the fixture's namespace: every instance here, so the canary step moves them all.
          steps: [{ canary: { namespaces: [f.ns] } }, { pause: { duration: '1s' } }],
          gate: '${fleet.pinned == 0}',
          newInstances: 'Latest',
        },
      } as KubeObject,
      { fieldManager: 'test', force: true },
    );
    for (const n of names) await applyInstance(client, instance(f, 'Gated', n, { n }));
    // One pinned instance: the gate does not hold while it is.
    await applyInstance(
      client,
      instance(f, 'Gated', 'held', { n: 'h' }, { annotations: { 'kgraph.dev/revision-policy': 'Manual' } }),
    );
    for (const n of [...names, 'held'])
      await waitState(
        client,
        f,
        'Gated',
        n,
        'ACTIVE',
        (o) => o.metadata.labels?.['kgraph.dev/revision'] === '1',
      );
    await eventually('stable at 1', async () => ((await status())?.stableRevision === 1 ? true : undefined));

    await applyRgd(client, app('two'));
    const held = await eventually('canary done, held by the gate', async () => {
      const s = await status();
      return s?.step === 0 && /gate/.test(s.message ?? '') ? s : undefined;
    });
    assert.equal(held.phase, 'Progressing');
    for (const n of names) assert.equal(await label(n), '2', n);

    // Created during the rollout: follows the target (newInstances: Latest).
    await applyInstance(client, instance(f, 'Gated', 'late', { n: 'l' }));
    await waitState(
      client,
      f,
      'Gated',
      'late',
      'ACTIVE',
      (o) => o.metadata.labels?.['kgraph.dev/revision'] === '2',
    );
    assert.equal((await cmData(client, f.ns, 'late-a'))?.v, 'two');
    await new Promise((r) => setTimeout(r, 2_500));
    assert.equal((await status())?.step, 0, 'still held by the gate');

    // Unpinned: the gate holds, the timed pause passes by itself, the rollout completes.
    await client.patch(
      { apiVersion: `${f.group}/v1alpha1`, kind: 'Gated', namespace: f.ns, name: 'held' },
      { metadata: { annotations: { 'kgraph.dev/revision-policy': null } } },
    );
    await eventually('completed', async () => {
      const s = await status();
      return s?.phase === 'Completed' && s.stableRevision === 2 ? true : undefined;
    });
    for (const n of [...names, 'late', 'held'])
      await eventually(`${n} at 2`, async () =>
        (await label(n)) === '2' && (await cmData(client, f.ns, `${n}-a`))?.v === 'two' ? true : undefined,
      );
  });
});
