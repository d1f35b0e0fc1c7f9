// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * GraphRevisions (design/rgd.md §19.5), the behaviour of kro's graphrevision*_test.go on the real API server:
 * a revision per accepted spec change and none for a cosmetic or an invalid one, kro's names, labels and
 * owner, `status.lastIssuedRevision`, retention of the newest five, collection with the RGD, adoption and
 * continued numbering by a re-created RGD, no duplicate across controller restarts (instances still served),
 * an immutable spec.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RgdController } from '../../../src/controller/rgd/controller.ts';
import { isApiError, type KubeObject, type RestClient } from '../../../src/kube/index.ts';
import {
  applyInstance,
  applyRgd,
  cm,
  cmData,
  conditionOf,
  eventually,
  getRgd,
  instance,
  type RgdFixture,
  rgd,
  rgdFixture,
  startRgdController,
  stopRgdController,
  waitRgd,
  waitState,
} from './support.ts';

const GR = { apiVersion: 'internal.kro.run/v1alpha1', kind: 'GraphRevision' };

async function revisions(client: RestClient, rgdName: string): Promise<KubeObject[]> {
  const list = await client.list(GR, { fieldSelector: `spec.snapshot.name=${rgdName}` });
  return list.items
    .filter((r) => !r.metadata.deletionTimestamp)
    .sort((a, b) => revisionOf(a) - revisionOf(b));
}

const revisionOf = (r: KubeObject): number => (r.spec as { revision: number }).revision;
const numbers = async (client: RestClient, rgdName: string): Promise<number[]> =>
  (await revisions(client, rgdName)).map(revisionOf);
const resolved = (r: KubeObject | undefined): unknown[] => {
  const c = conditionOf(r, 'GraphRevisionsResolved');
  return [c?.status, c?.reason, c?.message];
};
const lastIssued = (r: KubeObject | undefined): unknown =>
  (r?.status as { lastIssuedRevision?: number } | undefined)?.lastIssuedRevision;

describe('RGD GraphRevisions', () => {
  let f: RgdFixture;
  let client: RestClient;
  let controller: RgdController;

  before(async () => {
    f = await rgdFixture('rgd-rev');
    ({ client, controller } = f);
    client.discovery.invalidate(GR.apiVersion);
  });
  after(() => stopRgdController(controller));

  /** A counter of the controller's registry (0 before its first increment). */
  const metric = async (name: string, labels: Record<string, string> = {}): Promise<number> => {
    const values = (await controller.revisionSeries.getSingleMetric(name)?.get())?.values ?? [];
    const hit = values.find((v) => Object.entries(labels).every(([k, x]) => v.labels[k] === x));
    return hit?.value ?? 0;
  };

  /** An RGD of two ConfigMaps, `b` after `a`; `value` is a's data, the knob of a real change. */
  const twoMaps = (
    name: string,
    value: string,
    opts: { reversed?: boolean; annotations?: Record<string, string> } = {},
  ) => {
    const resources = [
      {
        id: 'a',
        template: cm('${schema.metadata.name}-a', { v: value }),
        readyWhen: ['${a.data.v != ""}', '${true}'],
      },
      { id: 'b', template: cm('${schema.metadata.name}-b', { from: '${a.metadata.name}' }) },
    ];
    if (opts.reversed) {
      resources.reverse();
      resources[1]!.readyWhen = ['${true}', '${a.data.v != ""}'];
    }
    return rgd(
      f,
      name,
      { kind: `K${name.replace(/[^a-z0-9]/g, '')}`, spec: { n: 'string' } },
      resources,
      opts.annotations,
    );
  };

  it('issues r00001 on create, nothing on a cosmetic edit, r00002 on a change, nothing on an invalid one', async () => {
    const name = `${f.suite}-life`;
    const created = await applyRgd(client, twoMaps(name, 'one'));
    await waitRgd(client, name, 'Ready', 'True');
    const [first, ...rest] = await revisions(client, name);
    assert.equal(rest.length, 0);
    assert.ok(first);
    assert.equal(first.metadata.name, `${name}-r00001`);
    assert.deepEqual(first.spec, {
      revision: 1,
      snapshot: { name, generation: created.metadata.generation, spec: created.spec },
    });
    assert.equal(first.metadata.labels?.['kro.run/resource-graph-definition-name'], name);
    assert.match(first.metadata.labels?.['kro.run/graph-revision-hash'] ?? '', /^[0-9a-f]{16}$/);
    assert.equal(first.metadata.labels?.['kro.run/owned'], 'true');
    const owner = first.metadata.ownerReferences?.[0];
    assert.deepEqual(
      { kind: owner?.kind, name: owner?.name, uid: owner?.uid, controller: owner?.controller },
      { kind: 'ResourceGraphDefinition', name, uid: created.metadata.uid, controller: true },
    );
    const status = first.status as {
      topologicalOrder: string[];
      resources: unknown[];
      conditions: { type: string; status: string; reason: string }[];
    };
    assert.deepEqual(status.topologicalOrder, ['a', 'b']);
    assert.deepEqual(status.resources, [{ id: 'b', dependencies: [{ id: 'a' }] }]);
    assert.deepEqual(
      status.conditions.map((c) => [c.type, c.status, c.reason]),
      [
        ['GraphVerified', 'True', 'Verified'],
        ['Ready', 'True', 'Ready'],
      ],
    );
    const issued = await getRgd(client, name);
    assert.equal(lastIssued(issued), 1);
    assert.deepEqual(resolved(issued), ['True', 'Resolved', 'revision 1 compiled and active']);

    // Cosmetic: resources and readyWhen reordered, the breaking-change opt-in annotated. A new generation, no revision.
    const cosmetic = await applyRgd(
      client,
      twoMaps(name, 'one', { reversed: true, annotations: { 'kro.run/allow-breaking-changes': 'true' } }),
    );
    assert.ok((cosmetic.metadata.generation ?? 0) > (created.metadata.generation ?? 0));
    await waitRgd(client, name, 'Ready', 'True');
    assert.deepEqual(await numbers(client, name), [1]);

    // A change of meaning: r00002, snapshotting the generation it was issued for.
    const changed = await applyRgd(client, twoMaps(name, 'two'));
    const ready = await waitRgd(client, name, 'Ready', 'True');
    assert.deepEqual(await numbers(client, name), [1, 2]);
    const second = (await revisions(client, name))[1];
    assert.equal(second?.metadata.name, `${name}-r00002`);
    assert.equal(
      (second?.spec as { snapshot?: { generation?: number } } | undefined)?.snapshot?.generation,
      changed.metadata.generation,
    );
    assert.equal(lastIssued(ready), 2);

    // Invalid: not accepted, no revision, the count kept.
    const invalid = twoMaps(name, '${schema.spec.missing}');
    await applyRgd(client, invalid);
    const rejected = await waitRgd(client, name, 'GraphAccepted', 'False', 'InvalidResourceGraph');
    assert.deepEqual(await numbers(client, name), [1, 2]);
    assert.equal(lastIssued(rejected), 2);
    // As kro: the revisions are resolved (the last good one stands); the new spec is what was not accepted.
    assert.deepEqual(resolved(rejected), ['True', 'Resolved', 'revision 2 compiled and active']);

    // Fixed again: the next number, never a reuse.
    await applyRgd(client, twoMaps(name, 'three'));
    assert.equal(lastIssued(await waitRgd(client, name, 'Ready', 'True')), 3);
    assert.deepEqual(await numbers(client, name), [1, 2, 3]);
  });

  it('a revision spec is immutable', async () => {
    const name = `${f.suite}-immut`;
    await applyRgd(client, twoMaps(name, 'one'));
    await waitRgd(client, name, 'Ready', 'True');
    const [r] = await revisions(client, name);
    assert.ok(r);
    await assert.rejects(
      client.update({ ...r, spec: { ...(r.spec as object), revision: 9 } }),
      (e: unknown) => isApiError(e) && e.code === 422 && /spec is immutable/.test(e.message),
    );
  });

  it('keeps the newest five revisions and keeps counting', async () => {
    const name = `${f.suite}-keep`;
    const before = {
      first: await metric('rgd_graph_revision_issue_total', { reason: 'no_revision' }),
      changed: await metric('rgd_graph_revision_issue_total', { reason: 'spec_changed' }),
      deleted: await metric('rgd_graph_revision_gc_deleted_total'),
    };
    for (let i = 1; i <= 7; i++) {
      await applyRgd(client, twoMaps(name, `v${i}`));
      await waitRgd(client, name, 'Ready', 'True');
      // Each issuance past five deletes the oldest at once.
      const expected = Array.from({ length: Math.min(i, 5) }, (_, j) => Math.max(1, i - 4) + j);
      assert.deepEqual(await numbers(client, name), expected, `after update ${i}`);
    }
    assert.deepEqual(await numbers(client, name), [3, 4, 5, 6, 7]);
    assert.equal(lastIssued(await getRgd(client, name)), 7);
    // kro's metric names.
    assert.equal(
      (await metric('rgd_graph_revision_issue_total', { reason: 'no_revision' })) - before.first,
      1,
    );
    assert.equal(
      (await metric('rgd_graph_revision_issue_total', { reason: 'spec_changed' })) - before.changed,
      6,
    );
    assert.equal((await metric('rgd_graph_revision_gc_deleted_total')) - before.deleted, 2);
  });

  it('rapid edits issue increasing numbers, the last one snapshotting the final spec', async () => {
    const name = `${f.suite}-churn`;
    await applyRgd(client, twoMaps(name, 'v0'));
    await waitRgd(client, name, 'Ready', 'True');
    for (let i = 1; i <= 5; i++) await applyRgd(client, twoMaps(name, `v${i}`));
    const ready = await waitRgd(client, name, 'Ready', 'True');
    const got = await revisions(client, name);
    const ns = got.map(revisionOf);
    assert.ok(
      ns.every((n, i) => i === 0 || n > (ns[i - 1] ?? 0)),
      `increasing: ${ns}`,
    );
    const latest = got.at(-1);
    assert.equal(lastIssued(ready), latest && revisionOf(latest));
    assert.deepEqual(
      (latest?.spec as { snapshot?: { spec?: unknown } } | undefined)?.snapshot?.spec,
      ready.spec,
    );
  });

  it('revisions are garbage-collected with their RGD', async () => {
    const name = `${f.suite}-gc`;
    await applyRgd(client, twoMaps(name, 'one'));
    await waitRgd(client, name, 'Ready', 'True');
    await applyRgd(client, twoMaps(name, 'two'));
    await waitRgd(client, name, 'Ready', 'True');
    assert.deepEqual(await numbers(client, name), [1, 2]);
    await client.delete({ apiVersion: 'kro.run/v1alpha1', kind: 'ResourceGraphDefinition', name });
    await eventually('revisions collected', async () =>
      (await client.list(GR, { fieldSelector: `spec.snapshot.name=${name}` })).items.length === 0
        ? true
        : undefined,
    );
  });

  it('a re-created RGD adopts the revisions its predecessor left and continues their numbers', async () => {
    const name = `${f.suite}-again`;
    await applyRgd(client, twoMaps(name, 'one'));
    await waitRgd(client, name, 'Ready', 'True');
    await applyRgd(client, twoMaps(name, 'two'));
    await waitRgd(client, name, 'Ready', 'True');
    const old = await getRgd(client, name);
    // Deleted without its dependents (kubectl delete --cascade=orphan): the revisions stay, unowned.
    await client.delete(
      { apiVersion: 'kro.run/v1alpha1', kind: 'ResourceGraphDefinition', name },
      { propagationPolicy: 'Orphan' },
    );
    await eventually('RGD gone', async () => ((await getRgd(client, name)) ? undefined : true));
    assert.deepEqual(await numbers(client, name), [1, 2]);

    // Re-created with the latest spec: adopted, nothing issued, the count restored from the revisions.
    const again = await applyRgd(client, twoMaps(name, 'two'));
    assert.notEqual(again.metadata.uid, old?.metadata.uid);
    assert.equal(lastIssued(await waitRgd(client, name, 'Ready', 'True')), 2);
    await eventually('adopted', async () =>
      (await revisions(client, name)).every((r) =>
        r.metadata.ownerReferences?.some((o) => o.uid === again.metadata.uid),
      )
        ? true
        : undefined,
    );
    assert.deepEqual(await numbers(client, name), [1, 2]);

    await applyRgd(client, twoMaps(name, 'three'));
    assert.equal(lastIssued(await waitRgd(client, name, 'Ready', 'True')), 3);
    assert.deepEqual(await numbers(client, name), [1, 2, 3]);
  });

  it('restarted controllers issue no duplicate, continue the numbers and keep serving instances', async () => {
    const name = `${f.suite}-restart`;
    const kind = 'Restarted';
    const spec = (value: string) =>
      rgd(f, name, { kind, spec: { n: 'string' } }, [
        { id: 'a', template: cm('${schema.metadata.name}-a', { n: '${schema.spec.n}', v: value }) },
      ]);
    await applyRgd(client, spec('v1'));
    await waitRgd(client, name, 'Ready', 'True');
    await applyInstance(client, instance(f, kind, 'inst', { n: 'before' }));
    await waitState(client, f, kind, 'inst', 'ACTIVE');
    // Three cycles of restart then update: no revision from a restart alone, one per update.
    for (let cycle = 1; cycle <= 3; cycle++) {
      await stopRgdController(controller);
      controller = await startRgdController(f.suite, f.ns);
      await waitRgd(client, name, 'Ready', 'True');
      await controller.idle();
      await new Promise((r) => setTimeout(r, 500));
      assert.deepEqual(
        await numbers(client, name),
        Array.from({ length: cycle }, (_, k) => k + 1),
        `cycle ${cycle}`,
      );
      await applyInstance(client, instance(f, kind, 'inst', { n: `after-${cycle}` }));
      await eventually(`instance child after restart ${cycle}`, async () =>
        (await cmData(client, f.ns, 'inst-a'))?.n === `after-${cycle}` ? true : undefined,
      );
      await applyRgd(client, spec(`v${cycle + 1}`));
      assert.equal(lastIssued(await waitRgd(client, name, 'Ready', 'True')), cycle + 1);
      await eventually(`instance on revision ${cycle + 1}`, async () =>
        (await cmData(client, f.ns, 'inst-a'))?.v === `v${cycle + 1}` ? true : undefined,
      );
    }
    assert.deepEqual(await numbers(client, name), [1, 2, 3, 4]);
  });
});
