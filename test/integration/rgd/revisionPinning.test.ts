// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * Instances resolve through GraphRevisions (design/rgd.md §19.7), on the real API server: an instance
 * without kgraph's annotations follows the latest revision (kro's behaviour) and says which in its
 * `kgraph.dev/revision` label; a pinned one (`kgraph.dev/revision-policy: Manual`, `kgraph.dev/revision`)
 * stays at its revision across RGD changes; one asking for a revision that does not exist stops with a
 * coded condition; retention never deletes a revision an instance uses.
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
  conditionOf,
  eventually,
  instance,
  type RgdFixture,
  rgd,
  rgdFixture,
  stopRgdController,
  waitRgd,
  waitState,
} from './support.ts';

const GR = { apiVersion: 'internal.kro.run/v1alpha1', kind: 'GraphRevision' };
const revisionLabel = (o: KubeObject): string | undefined => o.metadata.labels?.['kgraph.dev/revision'];

describe('RGD instances resolve through GraphRevisions', () => {
  let f: RgdFixture;
  let client: RestClient;
  let controller: RgdController;

  before(async () => {
    f = await rgdFixture('rgd-pin');
    ({ client, controller } = f);
    client.discovery.invalidate(GR.apiVersion);
  });
  after(() => stopRgdController(controller));

  const oneMap = (name: string, value: string) =>
    rgd(f, name, { kind: 'Pinned', spec: { n: 'string' } }, [
      { id: 'a', template: cm('${schema.metadata.name}-a', { v: value }) },
    ]);

  it('follows the latest revision unless pinned; a missing revision stops the instance', async () => {
    const name = `${f.suite}-p`;
    await applyRgd(client, oneMap(name, 'one'));
    await waitRgd(client, name, 'Ready', 'True');
    await applyInstance(client, instance(f, 'Pinned', 'free', { n: 'x' }));
    await applyInstance(
      client,
      instance(
        f,
        'Pinned',
        'held',
        { n: 'x' },
        { annotations: { 'kgraph.dev/revision-policy': 'Manual', 'kgraph.dev/revision': '1' } },
      ),
    );
    // Manual without a number: stays where it was first reconciled.
    await applyInstance(
      client,
      instance(f, 'Pinned', 'stays', { n: 'x' }, { annotations: { 'kgraph.dev/revision-policy': 'Manual' } }),
    );
    for (const n of ['free', 'held', 'stays']) {
      const o = await waitState(client, f, 'Pinned', n, 'ACTIVE', (x) => revisionLabel(x) === '1');
      assert.equal(revisionLabel(o), '1');
      assert.equal((await cmData(client, f.ns, `${n}-a`))?.v, 'one');
    }

    await applyRgd(client, oneMap(name, 'two'));
    await waitRgd(client, name, 'Ready', 'True');
    await waitState(client, f, 'Pinned', 'free', 'ACTIVE', (x) => revisionLabel(x) === '2');
    await eventually('free on revision 2', async () =>
      (await cmData(client, f.ns, 'free-a'))?.v === 'two' ? true : undefined,
    );
    // Pinned: the children keep revision 1's value, the label says 1.
    await controller.idle();
    for (const n of ['held', 'stays']) {
      assert.equal((await cmData(client, f.ns, `${n}-a`))?.v, 'one', n);
      const o = await waitState(client, f, 'Pinned', n, 'ACTIVE');
      assert.equal(revisionLabel(o), '1', n);
    }

    // Moving the pin moves the instance.
    await applyInstance(
      client,
      instance(
        f,
        'Pinned',
        'held',
        { n: 'x' },
        { annotations: { 'kgraph.dev/revision-policy': 'Manual', 'kgraph.dev/revision': '2' } },
      ),
    );
    await waitState(client, f, 'Pinned', 'held', 'ACTIVE', (x) => revisionLabel(x) === '2');
    await eventually('held on revision 2', async () =>
      (await cmData(client, f.ns, 'held-a'))?.v === 'two' ? true : undefined,
    );

    // A revision that does not exist: stopped with a coded condition, its children untouched.
    await applyInstance(
      client,
      instance(
        f,
        'Pinned',
        'held',
        { n: 'x' },
        { annotations: { 'kgraph.dev/revision-policy': 'Manual', 'kgraph.dev/revision': '9' } },
      ),
    );
    const stopped = await waitState(client, f, 'Pinned', 'held', 'ERROR');
    const resolvedCond = conditionOf(stopped, 'GraphResolved');
    assert.equal(resolvedCond?.status, 'False');
    assert.equal(resolvedCond?.reason, 'RevisionNotFound');
    assert.match(resolvedCond?.message ?? '', /r00009/);
    assert.equal(conditionOf(stopped, 'Ready')?.status, 'False');
    assert.equal((await cmData(client, f.ns, 'held-a'))?.v, 'two');

    // An unreadable annotation is an error too, never ignored.
    await applyInstance(
      client,
      instance(f, 'Pinned', 'held', { n: 'x' }, { annotations: { 'kgraph.dev/revision': 'latest' } }),
    );
    const bad = await waitState(
      client,
      f,
      'Pinned',
      'held',
      'ERROR',
      (o) => conditionOf(o, 'GraphResolved')?.reason === 'RevisionAnnotationInvalid',
    );
    assert.ok(bad);
  });

  it('retention keeps a revision an instance is pinned to', async () => {
    const name = `${f.suite}-keep`;
    const kept = (v: string) =>
      rgd(f, name, { kind: 'Kept', spec: { n: 'string' } }, [
        { id: 'a', template: cm('${schema.metadata.name}-a', { v }) },
      ]);
    await applyRgd(client, kept('v1'));
    await waitRgd(client, name, 'Ready', 'True');
    await applyInstance(
      client,
      instance(
        f,
        'Kept',
        'old',
        { n: 'x' },
        { annotations: { 'kgraph.dev/revision-policy': 'Manual', 'kgraph.dev/revision': '1' } },
      ),
    );
    await waitState(client, f, 'Kept', 'old', 'ACTIVE', (x) => revisionLabel(x) === '1');
    for (let i = 2; i <= 7; i++) {
      await applyRgd(client, kept(`v${i}`));
      await waitRgd(client, name, 'Ready', 'True');
    }
    const list = await client.list(GR, { fieldSelector: `spec.snapshot.name=${name}` });
    const numbers = list.items
      .filter((r) => !r.metadata.deletionTimestamp)
      .map((r) => (r.spec as { revision: number }).revision)
      .sort((a, b) => a - b);
    // The newest five, and revision 1 besides: an instance is reconciled at it.
    assert.deepEqual(numbers, [1, 3, 4, 5, 6, 7]);
    assert.equal((await cmData(client, f.ns, 'old-a'))?.v, 'v1');
  });
});
