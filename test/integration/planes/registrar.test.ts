// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * Schema evolution and withdrawal on real control planes (design/planes.md §14): a spec
 * edit restarts serving exactly once and existing children follow without a process restart, an
 * unchanged resync restarts nothing; starting is idempotent, a loop whose instance API vanished ends
 * and the next resync serves again, an old generation never removes a newer one; deleting a blueprint
 * stops serving, releases its instances and leaves the consumers' CRDs and data, and the sweeper
 * reclaims the provider and host children afterwards.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { livenessRecordName, qualifiedName } from '../../../src/controller/planes/naming.ts';
import {
  AV,
  apply,
  BP,
  blueprint,
  CONTROLLER_NS,
  cmT,
  eventually,
  getObj,
  instanceOf,
  planesFixture,
  readyReason,
  registration,
  sleep,
  waitFor,
  waitGone,
} from './support.ts';

const NS = 'ns-a';
const CRD = 'apiextensions.k8s.io/v1';

const evolve = (data: Record<string, string>) =>
  blueprint(
    'evolve',
    'Evolve',
    [
      { id: 'prov', target: 'provider', template: cmT('${schema.spec.name}-prov', { a: 'b' }, 'default') },
      { id: 'onHost', target: 'host', template: cmT('${schema.spec.name}-host', { a: 'b' }, 'default') },
      { id: 'data', template: cmT('${schema.spec.name}-data', data) },
    ],
    { spec: { name: 'string' } },
  );

/** Served in the consumer cluster with no instances (its CRD can be deleted outright). */
const CRASHY = blueprint('crashy', 'Crashy', [{ id: 'x', template: cmT('${schema.spec.name}-x') }], {
  spec: { name: 'string' },
});

describe('planes: schema evolution and withdrawal', () => {
  const child = () => getObj(p.consumer.admin, 'v1', 'ConfigMap', 'e-data', NS);
  const prov = () =>
    getObj(
      p.management.admin,
      'v1',
      'ConfigMap',
      qualifiedName(p.clusterId, NS, 'e', 'e-prov', 'ConfigMap'),
      'default',
    );
  const onHost = () => getObj(p.host.admin, 'v1', 'ConfigMap', 'e-host', 'default');
  const crdOf = (name: string) => getObj(p.consumer.admin, CRD, 'CustomResourceDefinition', name);

  const p = planesFixture({
    namespaces: [NS],
    blueprints: [evolve({ a: 'b' }), CRASHY],
    grants: ['evolve', 'crashy'],
    finish: async () => {
      await apply(p.consumer.admin, instanceOf('Evolve', 'e', NS, { name: 'e' }));
      await waitFor('e Ready', () => getObj(p.consumer.admin, AV, 'Evolve', 'e', NS), readyReason('Ready'));
    },
  });

  it('change-detected restart: one restart per edit (1 → 2), the child follows, an unchanged resync keeps 2', async () => {
    assert.equal(p.controller.serveStarts.get('evolve'), 1);
    const before = await p.management.admin.get(BP('evolve'));
    const oldHash = (before.status as { observedSpecHash: string }).observedSpecHash;
    await apply(p.management.admin, evolve({ a: 'b', extra: 'yes' }));
    const updated = await waitFor(
      'the child gains extra',
      child,
      (o) => (o.data as { extra?: string }).extra === 'yes',
    );
    assert.deepEqual(updated.data, { a: 'b', extra: 'yes' });
    assert.equal(p.controller.serveStarts.get('evolve'), 2);
    const newHash = (
      (
        await waitFor(
          'new hash observed',
          () => p.management.admin.getOrUndefined(BP('evolve')),
          (o) => Boolean((o.status as { observedSpecHash?: string }).observedSpecHash !== oldHash),
        )
      ).status as { observedSpecHash: string }
    ).observedSpecHash;
    assert.match(newHash, /^[0-9a-f]{12}$/);
    // The consumer's instance CRD carries the hash it is served at.
    const crd = await crdOf('evolves.krop.opendefense.cloud');
    assert.equal(crd?.metadata.annotations?.['krop.opendefense.cloud/spec-hash'], newHash);
    const loop = p.controller.loops.get(`evolve|${p.consumer.name}`);
    // Unchanged resyncs (every 3 s here): nothing restarts.
    await sleep(7_000);
    assert.equal(p.controller.serveStarts.get('evolve'), 2);
    assert.equal(p.controller.loops.get(`evolve|${p.consumer.name}`), loop);
    assert.equal(p.controller.registrar.publishCount.get('evolve'), 2);
  });

  it('idempotent start and self-heal: a second start is a no-op, a crashed loop is restarted, an old generation never removes a newer one', async () => {
    const key = `crashy|${p.consumer.name}`;
    const first = p.controller.loops.get(key);
    assert.ok(first);
    const starts = p.controller.serveStarts.get('crashy');
    assert.equal(starts, 1);
    // Starting twice (two cluster reconciles back to back) starts once.
    p.controller.clusterQueue.add(p.consumer.name);
    await p.controller.idle();
    p.controller.clusterQueue.add(p.consumer.name);
    await p.controller.idle();
    assert.equal(p.controller.loops.get(key), first);
    assert.equal(p.controller.serveStarts.get('crashy'), 1);

    // The consumer deletes the instance CRD under the running loop: the loop ends and clears its entry,
    // and the next resync serves again (the CRD comes back).
    await p.consumer.admin.delete({
      apiVersion: CRD,
      kind: 'CustomResourceDefinition',
      name: 'crashies.krop.opendefense.cloud',
    });
    await eventually('the crashed loop ended', async () => (first.exited ? true : undefined), 30_000);
    const second = await eventually(
      'serving restarted',
      async () => {
        const l = p.controller.loops.get(key);
        return l && l !== first ? l : undefined;
      },
      30_000,
    );
    assert.equal(p.controller.serveStarts.get('crashy'), 2);
    assert.ok(await crdOf('crashies.krop.opendefense.cloud'));
    // The restarted loop serves: a new instance converges.
    await apply(p.consumer.admin, instanceOf('Crashy', 'x', NS, { name: 'x' }));
    await waitFor('x Ready', () => getObj(p.consumer.admin, AV, 'Crashy', 'x', NS), readyReason('Ready'));
    assert.ok(await getObj(p.consumer.admin, 'v1', 'ConfigMap', 'x-x', NS));

    // The old generation exits late: the newer loop stays.
    assert.equal(p.controller.loopExited(key, first), false);
    assert.equal(p.controller.loops.get(key), second);
    assert.equal(p.controller.serveStarts.get('crashy'), 2);
  });

  it('withdrawal: deleting the blueprint stops serving, releases instances, leaves CRDs and data; the sweeper reclaims provider and host children', async () => {
    const inst = await getObj(p.consumer.admin, AV, 'Evolve', 'e', NS);
    assert.ok(inst?.metadata.finalizers?.includes('krop.opendefense.cloud/gc'));
    assert.ok(inst);
    assert.ok(await prov());
    assert.ok(await onHost());
    await p.management.admin.delete(BP('evolve'));
    await waitGone('blueprint gone (its finalizer released)', () =>
      p.management.admin.getOrUndefined(BP('evolve')),
    );
    assert.equal(p.controller.loops.has(`evolve|${p.consumer.name}`), false);
    await waitFor(
      'the registration no longer lists evolve',
      () => registration(p, p.consumer),
      (o) =>
        ((o.status as { blueprints?: { name: string }[] }).blueprints ?? []).every(
          (b) => b.name !== 'evolve',
        ),
    );
    // The consumer keeps its CRD, instance (without kgraph's finalizer) and consumer child.
    assert.ok(await crdOf('evolves.krop.opendefense.cloud'));
    const released = await getObj(p.consumer.admin, AV, 'Evolve', 'e', NS);
    assert.ok(released);
    assert.equal(released.metadata.deletionTimestamp, undefined);
    assert.deepEqual(released.metadata.finalizers ?? [], []);
    assert.ok(await child());
    // Until the sweeper runs, the provider and host children are still there.
    assert.ok(await prov());
    assert.ok(await onHost());
    const rec = livenessRecordName(p.clusterId, inst.metadata.uid ?? '');
    assert.ok(await getObj(p.management.admin, 'v1', 'ConfigMap', rec, CONTROLLER_NS));
    const later = () => new Date(Date.now() + 2 * 3_600_000);
    const report = await p.controller.sweeper.withClock(later, new Date(0)).sweep();
    assert.equal(report.decisions.get(rec), 'swept');
    assert.equal(await prov(), undefined);
    assert.equal(await onHost(), undefined);
    assert.equal(await getObj(p.management.admin, 'v1', 'ConfigMap', rec, CONTROLLER_NS), undefined);
    // The sweeper never touches the consumer plane.
    assert.ok(await child());
    // The other blueprint is untouched.
    assert.ok(p.controller.loops.has(`crashy|${p.consumer.name}`));
  });
});
