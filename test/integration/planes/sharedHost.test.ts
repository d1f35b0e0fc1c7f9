// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * One cluster serving both the provider and the host plane (`--host-kubeconfig` pointing at the
 * management cluster, design/planes.md §12.1): ten instances whose provider and host children are ConfigMaps of one
 * namespace of that cluster converge, and over fifteen heartbeats not one live child is deleted — each
 * plane's prune sees the other plane's children through its label selector and leaves them. Then the
 * prune-storm guard (design/planes.md §12.3): an object carrying an instance's labels that another writer re-creates
 * every time it is pruned holds the instance at `Ready=False`/`PruneStorm` naming the object, pruning
 * stops, and a new generation of the instance releases the hold.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { qualifiedName } from '../../../src/controller/planes/naming.ts';
import { Informer, type KubeObject } from '../../../src/kube/index.ts';
import {
  AV,
  apply,
  blueprint,
  cmT,
  cond,
  getObj,
  instanceOf,
  planesFixture,
  sleep,
  waitFor,
} from './support.ts';

const NS = 'ns-a';
const COUNT = 10;
const OBSERVE_MS = 15_000;
const names = Array.from({ length: COUNT }, (_, i) => `s${i}`);

const SHARED = blueprint(
  'sharedhost',
  'SharedHost',
  [
    {
      id: 'prov',
      target: 'provider',
      template: cmT('${schema.spec.name}-p', { plane: 'provider' }, 'default'),
    },
    { id: 'onHost', target: 'host', template: cmT('${schema.spec.name}-h', { plane: 'host' }, 'default') },
    { id: 'mine', template: cmT('${schema.spec.name}-c', { plane: 'consumer' }) },
  ],
  { spec: { name: 'string', rev: 'string | default=""' } },
);

describe('planes: the host plane is the management cluster', () => {
  const p = planesFixture({
    hostIsManagement: true,
    namespaces: [NS],
    blueprints: [SHARED],
    grants: ['sharedhost'],
    finish: async () => {
      for (const n of names) await apply(p.consumer.admin, instanceOf('SharedHost', n, NS, { name: n }));
    },
  });
  const instance = (n: string) => getObj(p.consumer.admin, AV, 'SharedHost', n, NS);
  const provName = (n: string) => qualifiedName(p.clusterId, NS, n, `${n}-p`, 'ConfigMap');
  const provChild = (n: string) => getObj(p.management.admin, 'v1', 'ConfigMap', provName(n), 'default');
  const hostChild = (n: string) => getObj(p.management.admin, 'v1', 'ConfigMap', `${n}-h`, 'default');

  it('converges, and prunes none of the live children of either plane', async () => {
    for (const n of names)
      await waitFor(
        `${n} Ready`,
        () => instance(n),
        (o) => cond(o, 'Ready')?.status === 'True',
        90_000,
      );
    // Deletions of labelled children in the shared cluster, seen by a watch while the heartbeat (1 s)
    // reconciles every instance again and again.
    const deleted: string[] = [];
    const watch = new Informer(p.management.admin, {
      target: { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default' },
      labelSelector: 'krop.opendefense.cloud/instance-uid,!krop.opendefense.cloud/liveness',
    });
    watch.addHandlers({ delete: (o: KubeObject) => deleted.push(o.metadata.name ?? '') });
    watch.start();
    try {
      await watch.waitForSync();
      await sleep(OBSERVE_MS);
    } finally {
      await watch.stop();
    }
    const missing: string[] = [];
    for (const n of names) {
      if (!(await provChild(n))) missing.push(provName(n));
      if (!(await hostChild(n))) missing.push(`${n}-h`);
    }
    console.log(
      `shared host: ${COUNT} instances, ${OBSERVE_MS / 1000} s observed: ${deleted.length} prunes of live children, ${missing.length} of ${2 * COUNT} provider and host children missing at the end`,
    );
    assert.deepEqual(deleted, [], 'no live child is deleted');
    assert.deepEqual(missing, [], 'every provider and host child exists');
    for (const n of names) {
      const o = await instance(n);
      assert.equal(cond(o, 'Ready')?.status, 'True', `${n} stays Ready`);
      assert.equal((o?.status as { state?: string } | undefined)?.state, 'ACTIVE');
    }
  });

  it('holds an instance whose pruned object keeps coming back, names it, and stops pruning', async () => {
    const n = names[0] as string;
    const labels = (await provChild(n))?.metadata.labels ?? {};
    const intruder: KubeObject = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'intruder', namespace: 'default', labels },
      data: { from: 'another writer' },
    };
    // Another writer: whenever the object is gone, it is back within 100 ms.
    let recreations = 0;
    let stop = false;
    const writer = (async () => {
      while (!stop) {
        if (!(await getObj(p.management.admin, 'v1', 'ConfigMap', 'intruder', 'default'))) {
          await apply(p.management.admin, intruder);
          recreations += 1;
        }
        await sleep(100);
      }
    })();
    let held: KubeObject;
    try {
      held = await waitFor(
        `${n} held for a prune storm`,
        () => instance(n),
        (o) => cond(o, 'Ready')?.reason === 'PruneStorm',
        60_000,
      );
    } finally {
      stop = true;
      await writer;
    }
    const ready = cond(held, 'Ready');
    assert.equal(ready?.status, 'False');
    assert.match(
      ready?.message ?? '',
      /configmap\/intruder -n default on the (provider|host) plane was pruned 3 times/,
    );
    assert.equal((held.status as { state?: string }).state, 'ERROR');
    assert.ok(recreations >= 3, `re-created ${recreations} times`);
    // Pruning is stopped: the object, now left alone by its writer, survives several heartbeats.
    await apply(p.management.admin, intruder);
    await sleep(4_000);
    assert.ok(
      await getObj(p.management.admin, 'v1', 'ConfigMap', 'intruder', 'default'),
      'not pruned while held',
    );
    assert.equal(cond(await instance(n), 'Ready')?.reason, 'PruneStorm');
    // A new generation releases the hold: the object is pruned once and the instance is Ready again.
    await apply(p.consumer.admin, instanceOf('SharedHost', n, NS, { name: n, rev: '2' }));
    await waitFor(
      `${n} Ready again`,
      () => instance(n),
      (o) => cond(o, 'Ready')?.status === 'True',
      30_000,
    );
    assert.equal(await getObj(p.management.admin, 'v1', 'ConfigMap', 'intruder', 'default'), undefined);
  });
});
