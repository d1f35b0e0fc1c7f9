// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * Child watches (design/planes.md §11.1) on real control planes (management, host, one consumer), with the
 * heartbeat and the resync set to 10 minutes so that nothing but a watch event can requeue the
 * instance: a provider child's status reaching the consumer child (through a watch), a host
 * child drifted and deleted out of band, a consumer child deleted, and an externalRef edited, each
 * repaired or propagated within seconds. The latencies are printed (`watch latency …`).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { qualifiedName } from '../../../src/controller/planes/naming.ts';
import type { KubeObject } from '../../../src/kube/index.ts';
import { AV, apply, blueprint, cmT, cond, eventually, getObj, planesFixture } from './support.ts';

const LONG = 600_000;
/** What "within a couple of seconds" allows on a loaded CI machine. */
const WITHIN_MS = 5_000;

const WATCHED = blueprint(
  'watched',
  'Watched',
  [
    {
      id: 'agent',
      target: 'provider',
      template: cmT('${schema.spec.name}-agent', { request: '${schema.spec.name}' }, 'default'),
    },
    {
      id: 'token',
      template: cmT('${schema.spec.name}-token', { token: '${agent.data.token}' }),
    },
    {
      id: 'hosted',
      target: 'host',
      template: cmT('${schema.spec.name}-hosted', { want: 'this' }, 'default'),
    },
    {
      id: 'shared',
      externalRef: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'shared', namespace: 'ns-w' } },
    },
    { id: 'copy', template: cmT('${schema.spec.name}-copy', { value: '${shared.data.value}' }) },
  ],
  { spec: { name: 'string' }, status: { token: '${token.data.token}' } },
);

/** Time from `act` until `probe` answers, polling every 50 ms. */
async function latency(what: string, act: () => Promise<unknown>, probe: () => Promise<boolean>) {
  const t0 = Date.now();
  await act();
  await eventually(what, async () => ((await probe()) ? true : undefined), WITHIN_MS, 50);
  const ms = Date.now() - t0;
  console.log(`watch latency ${what}: ${ms} ms`);
  return ms;
}

describe('planes: child watches requeue instances without the heartbeat (design/planes.md §11.1)', () => {
  let agentName = '';
  const cget = (name: string) => getObj(p.consumer.admin, 'v1', 'ConfigMap', name, 'ns-w');
  const hget = (name: string) => getObj(p.host.admin, 'v1', 'ConfigMap', name, 'default');
  const data = (o: KubeObject | undefined) => (o?.data ?? {}) as Record<string, string>;

  const p = planesFixture({
    namespaces: ['ns-w'],
    prepare: () =>
      apply(p.consumer.admin, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'shared', namespace: 'ns-w' },
        data: { value: 'v1' },
      }),
    controller: { timings: { heartbeatMs: LONG, resyncMs: LONG } },
    blueprints: [WATCHED],
    grants: ['watched'],
    finish: async () => {
      agentName = qualifiedName(p.clusterId, 'ns-w', 'demo', 'demo-agent', 'ConfigMap');
      await apply(p.consumer.admin, {
        apiVersion: AV,
        kind: 'Watched',
        metadata: { name: 'demo', namespace: 'ns-w' },
        spec: { name: 'demo' },
      });
      await eventually('the provider child and the pending consumer child', async () => {
        const o = await getObj(p.consumer.admin, AV, 'Watched', 'demo', 'ns-w');
        return (await getObj(p.management.admin, 'v1', 'ConfigMap', agentName, 'default')) &&
          (await hget('demo-hosted')) &&
          (await cget('demo-copy')) &&
          cond(o, 'Ready')?.reason === 'Progressing'
          ? true
          : undefined;
      });
      // Let the watches' first lists and their replays settle.
      await p.controller.idle();
    },
  });

  it('a provider child status reaches the consumer child from a watch event', async () => {
    assert.equal(await cget('demo-token'), undefined);
    const before = p.controller.childWatches.events;
    await latency(
      'provider token → consumer child',
      () =>
        p.management.admin.apply(
          {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: agentName, namespace: 'default' },
            data: { token: 'tok-7' },
          },
          { fieldManager: 'agent-controller' },
        ),
      async () => data(await cget('demo-token')).token === 'tok-7',
    );
    const i = await eventually('instance Ready', async () => {
      const o = await getObj(p.consumer.admin, AV, 'Watched', 'demo', 'ns-w');
      return cond(o, 'Ready')?.status === 'True' ? o : undefined;
    });
    assert.equal((i.status as { token?: string }).token, 'tok-7');
    assert.ok(p.controller.childWatches.events > before);
  });

  it('repairs a drifted and a deleted host child without the heartbeat', async () => {
    await latency(
      'host child drift repaired',
      () =>
        p.host.admin.apply(
          {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: 'demo-hosted', namespace: 'default' },
            data: { want: 'intruder' },
          },
          { fieldManager: 'intruder', force: true },
        ),
      async () => data(await hget('demo-hosted')).want === 'this',
    );
    await latency(
      'host child delete repaired',
      () =>
        p.host.admin.delete({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          name: 'demo-hosted',
          namespace: 'default',
        }),
      async () => data(await hget('demo-hosted')).want === 'this',
    );
  });

  it('recreates a deleted consumer child and follows an externalRef edit', async () => {
    await latency(
      'consumer child delete repaired',
      () =>
        p.consumer.admin.delete({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          name: 'demo-copy',
          namespace: 'ns-w',
        }),
      async () => data(await cget('demo-copy')).value === 'v1',
    );
    await latency(
      'externalRef edit → consumer child',
      () =>
        p.consumer.admin.apply(
          {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: 'shared', namespace: 'ns-w' },
            data: { value: 'v2' },
          },
          { fieldManager: 'test', force: true },
        ),
      async () => data(await cget('demo-copy')).value === 'v2',
    );
  });

  it('metrics: requests per plane and instances per blueprint, counting', async () => {
    const series = async (): Promise<Map<string, number>> =>
      new Map(
        (await p.controller.renderMetrics())
          .split('\n')
          .filter((l) => l !== '' && !l.startsWith('#'))
          .map((l) => [l.slice(0, l.lastIndexOf(' ')), Number(l.slice(l.lastIndexOf(' ') + 1))]),
      );
    const req = (plane: string, verb: string, cluster?: string) =>
      `kgraph_planes_api_requests_total{plane="${plane}"${cluster ? `,cluster="${cluster}"` : ''},verb="${verb}"}`;
    const m1 = await series();
    for (const k of [
      req('consumer', 'apply', p.consumer.name),
      req('provider', 'apply'),
      req('host', 'apply'),
    ])
      assert.ok((m1.get(k) ?? 0) > 0, `${k} counts`);
    assert.equal(m1.get(`kgraph_planes_instances{blueprint="watched",cluster="${p.consumer.name}"}`), 1);
    assert.equal(
      m1.get(`kgraph_planes_instances_ready{blueprint="watched",cluster="${p.consumer.name}"}`),
      1,
    );
    assert.ok((m1.get('kgraph_planes_child_watches') ?? 0) >= 4); // consumer, provider, host children; the ref
    assert.ok((m1.get('kgraph_planes_child_watch_events_total') ?? 0) > 0);
    assert.ok((m1.get('kgraph_planes_instance_reconciles_total{outcome="ready"}') ?? 0) > 0);
    assert.equal(m1.get('kgraph_planes_sweeper_leader'), 1);
    // A repair on the host plane is counted there, not on the others.
    await p.host.admin.delete({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      name: 'demo-hosted',
      namespace: 'default',
    });
    await eventually('host child back', async () => ((await hget('demo-hosted')) ? true : undefined));
    await p.controller.idle();
    const m2 = await series();
    assert.ok((m2.get(req('host', 'apply')) ?? 0) > (m1.get(req('host', 'apply')) ?? 0));
    assert.equal(
      m2.get(req('consumer', 'create', p.consumer.name)),
      m1.get(req('consumer', 'create', p.consumer.name)),
    );
  });

  it('an unrelated ConfigMap in a watched namespace requeues nothing', async () => {
    await p.controller.idle();
    const before = p.controller.childWatches.events;
    await apply(p.consumer.admin, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'unrelated', namespace: 'ns-w' },
      data: { a: 'b' },
    });
    await apply(p.host.admin, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'unrelated', namespace: 'default' },
      data: { a: 'b' },
    });
    await new Promise((r) => setTimeout(r, 1_500));
    assert.equal(p.controller.childWatches.events, before);
  });

  // Last: it deletes the instance the other tests use.
  it('closes a watch when the last instance using it is gone, not before', async () => {
    await p.controller.idle();
    const watches = async () => {
      const line = (await p.controller.renderMetrics())
        .split('\n')
        .find((l) => l.startsWith('kgraph_planes_child_watches '));
      return Number(line?.split(' ')[1]);
    };
    const n = await watches();
    assert.ok(n >= 4, `child watches open: ${n}`);
    const inst = (name: string) => ({
      apiVersion: AV,
      kind: 'Watched',
      metadata: { name, namespace: 'ns-w' },
      spec: { name },
    });
    const gone = async (name: string) => {
      await p.consumer.admin.delete({ apiVersion: AV, kind: 'Watched', name, namespace: 'ns-w' });
      await eventually(`${name} deleted`, async () =>
        (await getObj(p.consumer.admin, AV, 'Watched', name, 'ns-w')) ? undefined : true,
      );
      await p.controller.idle();
    };
    await apply(p.consumer.admin, inst('second'));
    await eventually('the second instance passes', async () =>
      (await hget('second-hosted')) && (await cget('second-copy')) ? true : undefined,
    );
    await p.controller.idle();
    assert.equal(await watches(), n, 'the second instance uses the same watches');
    await gone('second');
    assert.equal(await watches(), n, 'demo still uses them');
    await gone('demo');
    assert.equal(await watches(), 0, 'no instance uses any watch');
    assert.equal(p.controller.childWatches.size, 0);
  });
});
