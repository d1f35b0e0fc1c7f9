// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * A `kgraph controller` process killed (SIGKILL) in the middle of a rollout batch and again while it waits at
 * a pause (design/rgd.md §19.8): the replacement continues the same step from the GraphRollout's status and
 * the instances' assignments — no instance of the batch is assigned twice, none of the next batch early.
 * Health is held back by a label the test sets (`readyWhen` reads it), so the batch is mid-way when killed.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import { rolloutAction } from '../../../src/controller/rgd/rollout/actions.ts';
import type { KubeObject, RestClient } from '../../../src/kube/index.ts';
import { freePort, spawnController, waitReadyz } from '../../support/controllerProcess.ts';
import { sharedControlPlane, uniqueName } from '../../support/controlPlane.ts';
import { adminClient, testNamespace } from '../../support/kube.ts';
import {
  applyInstance,
  applyRgd,
  cm,
  cmData,
  ensureRgdCrd,
  eventually,
  getInstance,
  instance,
  rgd,
  waitRgd,
  waitState,
} from './support.ts';

const RO = { apiVersion: 'kgraph.dev/v1alpha1', kind: 'GraphRollout' };
const names = Array.from({ length: 10 }, (_, i) => `j${i}`);

describe('GraphRollout across a controller kill', () => {
  let client: RestClient;
  let proc: ChildProcess | undefined;
  let f: { suite: string; group: string; ns: string };
  let port: number;

  before(async () => {
    client = await adminClient();
    const ns = await testNamespace('rgd-ro-kill');
    const suite = uniqueName('rgd-ro-kill');
    f = { suite, group: `${suite}.kgraph.test`, ns };
    await ensureRgdCrd();
    port = await freePort();
  });
  after(() => {
    proc?.kill('SIGKILL');
  });

  const start = async () => {
    const cp = await sharedControlPlane();
    proc = spawnController(cp.kubeconfigPath, port, [
      '--no-graphs',
      '--rgd-selector',
      `kgraph.test/suite=${f.suite}`,
      '--namespace',
      f.ns,
      '--rgd-concurrency',
      '4',
    ]);
    await waitReadyz(port, 'controller /readyz', 60_000, 50);
  };
  const kill = async () => {
    const p = proc;
    if (!p) return;
    p.kill('SIGKILL');
    await once(p, 'exit');
    proc = undefined;
  };
  const get = (n: string) => getInstance(client, f, 'Job', n);
  const assignedAt = async (n: string) =>
    (await get(n))?.metadata.annotations?.['kgraph.dev/rollout-assigned-at'];
  const assigned = async () => {
    const out: Record<string, string> = {};
    for (const n of names) {
      const at = await assignedAt(n);
      if (at) out[n] = at;
    }
    return out;
  };
  const ok = (n: string) =>
    client.patch(
      { apiVersion: `${f.group}/v1alpha1`, kind: 'Job', namespace: f.ns, name: n },
      {
        metadata: { labels: { ok: 'yes' } },
      },
    );
  const status = async () =>
    (await client.getOrUndefined({ ...RO, name: 'jobs' }))?.status as
      | { phase?: string; step?: number; stableRevision?: number; targetRevision?: number }
      | undefined;
  const jobs = (v: string) =>
    rgd(f, 'jobs', { kind: 'Job', spec: { n: 'string' } }, [
      { id: 'a', template: cm('${schema.metadata.name}-a', { v }) },
    ]);

  it('resumes the same step without skipping or repeating a batch', async () => {
    await applyRgd(client, jobs('one'));
    await client.apply(
      {
        ...RO,
        metadata: { name: 'jobs' },
        spec: {
          steps: [
            { batch: { percent: 50, maxInFlight: 2 } },
            { pause: {} },
            { batch: { percent: 100, maxInFlight: 2 } },
          ],
          health: {
            readyWhen: [
              '${schema.status.state == "ACTIVE"}',
              '${schema.metadata.?labels.?ok.orValue("") == "yes"}',
            ],
            progressDeadline: '10m',
          },
        },
      } as KubeObject,
      { fieldManager: 'test', force: true },
    );
    await start();
    await waitRgd(client, 'jobs', 'Ready', 'True', undefined, 90_000);
    for (const n of names) await applyInstance(client, instance(f, 'Job', n, { n }));
    for (const n of names)
      await waitState(
        client,
        f,
        'Job',
        n,
        'ACTIVE',
        (o) => o.metadata.labels?.['kgraph.dev/revision'] === '1',
      );
    await eventually('stable at 1', async () => ((await status())?.stableRevision === 1 ? true : undefined));

    // The change: the first batch is j0..j4, two at a time while none is ready.
    await applyRgd(client, jobs('two'));
    await eventually('j0, j1 assigned', async () => {
      const a = await assigned();
      return Object.keys(a).sort().join() === 'j0,j1' ? a : undefined;
    });
    await ok('j0');
    const before = await eventually('j2 assigned', async () => {
      const a = await assigned();
      return Object.keys(a).sort().join() === 'j0,j1,j2' ? a : undefined;
    });
    await kill();
    // While no controller runs: j1 and j2 become ready.
    await ok('j1');
    await ok('j2');

    await start();
    const after = await eventually('j3, j4 assigned', async () => {
      const a = await assigned();
      return Object.keys(a).sort().join() === 'j0,j1,j2,j3,j4' ? a : undefined;
    });
    // Not repeated: the assignments made before the kill stand as they were.
    for (const n of ['j0', 'j1', 'j2']) assert.equal(after[n], before[n], n);
    assert.equal((await status())?.step, 0);
    await ok('j3');
    await ok('j4');
    await eventually('paused at step 1', async () => {
      const s = await status();
      return s?.phase === 'Paused' && s.step === 1 ? true : undefined;
    });

    // Killed at the pause: the replacement waits there too; the second batch is not started.
    await kill();
    await start();
    await new Promise((r) => setTimeout(r, 3_000));
    const paused = await status();
    assert.equal(paused?.phase, 'Paused');
    assert.equal(paused?.step, 1);
    assert.deepEqual(Object.keys(await assigned()).sort(), ['j0', 'j1', 'j2', 'j3', 'j4']);
    for (const n of names.slice(5)) assert.equal((await cmData(client, f.ns, `${n}-a`))?.v, 'one', n);

    for (const n of names.slice(5)) await ok(n);
    await rolloutAction(client, 'jobs', 'promote');
    await eventually(
      'completed',
      async () => {
        const s = await status();
        return s?.phase === 'Completed' && s.stableRevision === 2 ? true : undefined;
      },
      60_000,
    );
    for (const n of names) assert.equal((await cmData(client, f.ns, `${n}-a`))?.v, 'two', n);
    await kill();
  });
});
