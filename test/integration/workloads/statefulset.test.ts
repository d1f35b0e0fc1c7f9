/**
 * A StatefulSet on the real statefulset controller: with the default OrderedReady policy, pod N is
 * created only after pod N-1 is Running and Ready (KWOK reports readiness as a kubelet would), and
 * the set reports all replicas ready on one revision. Scaling down removes the highest ordinal first.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { eventually } from '../../support/kube.ts';
import {
  field,
  num,
  podReady,
  podTemplate,
  type WatchEvent,
  type WorkloadEnv,
  watch,
  workloadEnv,
} from './support.ts';

describe('StatefulSets on the workload plane', () => {
  let w: WorkloadEnv;
  before(async () => {
    w = await workloadEnv();
  });

  it('rolls out in ordinal order, each pod only once its predecessor is Ready, and scales down from the top', async () => {
    const ns = await w.namespace('wl-sts');
    await w.client.create({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'db', namespace: ns },
      spec: { clusterIP: 'None', selector: { app: 'db' }, ports: [{ port: 5432 }] },
    });
    const events: WatchEvent[] = [];
    const watcher = await watch(w.client, `/api/v1/namespaces/${ns}/pods`, (e) => events.push(e));
    try {
      await w.client.create({
        apiVersion: 'apps/v1',
        kind: 'StatefulSet',
        metadata: { name: 'db', namespace: ns },
        spec: {
          serviceName: 'db',
          replicas: 3,
          selector: { matchLabels: { app: 'db' } },
          template: podTemplate({ app: 'db' }),
        },
      });
      const target = { apiVersion: 'apps/v1', kind: 'StatefulSet', namespace: ns, name: 'db' };
      const sts = await eventually(
        'the StatefulSet to report 3 ready replicas',
        async () => {
          const s = await w.client.get(target);
          return num(field(s, 'status', 'readyReplicas')) === 3 &&
            num(field(s, 'status', 'availableReplicas')) === 3
            ? s
            : undefined;
        },
        60_000,
      );
      assert.equal(field(sts, 'status', 'currentRevision'), field(sts, 'status', 'updateRevision'));

      // Replay the watch: when pod db-N was ADDED, pod db-(N-1) had already been seen Ready.
      const readySeen = new Set<string>();
      const added: string[] = [];
      for (const e of events) {
        const name = e.object.metadata.name ?? '';
        if (e.type === 'ADDED') {
          const ordinal = Number(name.slice('db-'.length));
          if (ordinal > 0)
            assert.ok(
              readySeen.has(`db-${ordinal - 1}`),
              `${name} was created before db-${ordinal - 1} was Ready`,
            );
          added.push(name);
        }
        if (podReady(e.object)) readySeen.add(name);
      }
      assert.deepEqual(added, ['db-0', 'db-1', 'db-2']);

      await w.client.patch(target, { spec: { replicas: 1 } });
      await eventually('scaled down to db-0', async () => {
        const pods = await w.client.list(
          { apiVersion: 'v1', kind: 'Pod', namespace: ns },
          { labelSelector: 'app=db' },
        );
        const names = pods.items.map((p) => p.metadata.name);
        return names.length === 1 && names[0] === 'db-0' ? true : undefined;
      });
      const deletedOrder = events.filter((e) => e.type === 'DELETED').map((e) => e.object.metadata.name);
      assert.deepEqual(deletedOrder, ['db-2', 'db-1'], 'the highest ordinal goes first');
    } finally {
      watcher.stop();
    }
  });
});
