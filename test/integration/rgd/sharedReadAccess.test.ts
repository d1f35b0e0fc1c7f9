// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * `kgraph controller` runs the Graph and the RGD controllers in one process; both check reads as
 * ServiceAccounts (docs/security.md). With one access cache and one RBAC watch shared between them
 * (`sharedReadAccess`, injected by the command), an answer about a (ServiceAccount, verb, resource) is
 * asked once whichever side needs it, and RBAC objects are watched once; an RBAC change still requeues
 * the waiting Graphs and the waiting RGD instances.
 *
 * The workload: 20 Graphs and 20 instances of an RGD (spec.defaultServiceAccounts) running as the same
 * ServiceAccount in the same namespace, each reading the same ConfigMap in another namespace and writing
 * a ConfigMap of its own. Counted on the client's request counters, first with a cache and a watch per
 * controller (as before), then shared.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { type SharedReadAccess, sharedReadAccess } from '../../../src/controller/core/rbacChanges.ts';
import { GraphController } from '../../../src/controller/graph/controller.ts';
import { RgdController } from '../../../src/controller/rgd/controller.ts';
import type { KubeObject, RestClient } from '../../../src/kube/index.ts';
import { RestClient as Client } from '../../../src/kube/rest.ts';
import { sharedControlPlane, uniqueName } from '../../support/controlPlane.ts';
import { adminClient, grantServiceAccount, testNamespace } from '../../support/kube.ts';
import { ensureCrd, graph, waitCondition } from '../graph/support.ts';
import {
  applyInstance,
  applyRgd,
  cm,
  cmData,
  conditionOf,
  ensureRgdCrd,
  instance,
  rgd,
  waitRgd,
  waitState,
} from './support.ts';

const SA = 'app';
const N = 20;
const KIND = 'SharedCopy';

const grant = (c: RestClient, ns: string, name: string, resources: string[], verbs: string[], saNs: string) =>
  grantServiceAccount(c, ns, name, resources, verbs, { name: SA, namespace: saNs });

/** What one configuration of the two controllers cost. */
interface Cost {
  reviews: number;
  /** RBAC watch requests (4 per RbacWatch: Roles, RoleBindings, ClusterRoles, ClusterRoleBindings). */
  rbacWatchRequests: number;
}

describe('one access cache and one RBAC watch for the Graph and RGD controllers of a process', () => {
  let admin: RestClient;
  let ns: string;
  let other: string;
  let suite: string;
  const f = { ns: '', group: '', suite: '' };
  let running: { graphs: GraphController; rgds: RgdController; shared?: SharedReadAccess } | undefined;
  const costs: { separate?: Cost; shared?: Cost } = {};

  /** Starts both controllers on one client (as the command does), sharing the cache when `share`. */
  async function start(share: boolean): Promise<{ client: RestClient; cost: () => Cost }> {
    const cp = await sharedControlPlane();
    const client = new Client(cp.kc);
    let rbacWatchRequests = 0;
    client.counters.listen((verb, _method, path) => {
      if (verb === 'watch' && path.includes('/rbac.authorization.k8s.io/')) rbacWatchRequests += 1;
    });
    const log = pino({ level: process.env.KGRAPH_TEST_LOG_LEVEL ?? 'silent' });
    const shared = share ? sharedReadAccess(client, { log }) : undefined;
    const graphs = new GraphController({
      client,
      namespaces: [ns],
      installCrd: false,
      concurrency: 4,
      log,
      ...(shared ? { sharedReads: shared } : {}),
    });
    const rgds = new RgdController({
      client,
      rgdSelector: `kgraph.test/suite=${suite}`,
      namespaces: [ns],
      installCrd: false,
      concurrency: 4,
      log,
      ...(shared ? { sharedReads: shared } : {}),
    });
    running = { graphs, rgds, ...(shared ? { shared } : {}) };
    await graphs.start();
    await rgds.start();
    return { client, cost: () => ({ reviews: client.counters.get('review'), rbacWatchRequests }) };
  }

  async function stop(): Promise<void> {
    if (!running) return;
    const { graphs, rgds, shared } = running;
    running = undefined;
    await graphs.stop();
    await rgds.stop();
    await shared?.watch.stop();
    graphs.client.close();
  }

  function graphOf(i: number, value: string): KubeObject {
    return graph(
      ns,
      `g${i}`,
      [
        {
          id: 'settings',
          ref: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: other } },
        },
        { id: 'out', template: cm(`g${i}-out`, { k: value, s: '${settings.data.s}' }) },
      ],
      { serviceAccountName: SA },
    );
  }

  /** Applies the workload with `value` and waits until every Graph and instance converged on it. */
  async function workload(value: string): Promise<void> {
    for (let i = 0; i < N; i++) {
      await admin.apply(graphOf(i, value), { fieldManager: 'test', force: true });
      await applyInstance(admin, instance(f, KIND, `i${i}`, { name: `i${i}-out`, value }));
    }
    for (let i = 0; i < N; i++) {
      await waitCondition(admin, ns, `g${i}`, 'Ready', 'True', undefined, 60_000);
      await waitState(admin, f, KIND, `i${i}`, 'ACTIVE');
      assert.deepEqual(await cmData(admin, ns, `g${i}-out`), { k: value, s: 'shared' });
      assert.deepEqual(await cmData(admin, ns, `i${i}-out`), { k: value, s: 'shared' });
    }
    await running?.graphs.idle();
    await running?.rgds.idle();
  }

  before(async () => {
    admin = await adminClient();
    await ensureCrd();
    await ensureRgdCrd();
    ns = await testNamespace('shared');
    other = await testNamespace('shared-src');
    suite = uniqueName('shared');
    Object.assign(f, { ns, suite, group: `${suite}.kgraph.test` });
    await admin.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: SA, namespace: ns } });
    await grant(
      admin,
      ns,
      'cm-writer',
      ['configmaps'],
      ['get', 'list', 'watch', 'create', 'patch', 'update', 'delete'],
      ns,
    );
    await grant(admin, other, 'settings-reader', ['configmaps'], ['get'], ns);
    await admin.create({
      ...cm('settings', { s: 'shared' }),
      metadata: { name: 'settings', namespace: other },
    });
    await admin.create({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'db', namespace: ns },
      data: { password: Buffer.from('hunter2').toString('base64') },
    });
    const r = rgd(f, 'copy', { kind: KIND, spec: { name: 'string', value: 'string' } }, [
      {
        id: 'settings',
        externalRef: {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'settings', namespace: other },
        },
      },
      {
        id: 'out',
        template: cm('${schema.spec.name}', { k: '${schema.spec.value}', s: '${settings.data.s}' }),
      },
    ]);
    (r.spec as Record<string, unknown>).defaultServiceAccounts = { [ns]: SA };
    await applyRgd(admin, r);
    // The authorizer follows RBAC objects through its own cache: let it see the grants before counting.
    await new Promise((res) => setTimeout(res, 1_000));
  });
  after(async () => {
    await stop();
    console.log(`# read access, ${N} Graphs + ${N} RGD instances: ${JSON.stringify(costs)}`);
  });

  it('separate caches (as before): each answer is asked by both sides, RBAC is watched twice', async () => {
    const { cost } = await start(false);
    await waitRgd(admin, 'copy', 'Ready', 'True');
    await workload('v1');
    const c = cost();
    costs.separate = c;
    const { graphs, rgds } = running as { graphs: GraphController; rgds: RgdController };
    assert.notEqual(graphs.reads, rgds.reads);
    // The two sides asked the same answers, each for itself.
    assert.ok(graphs.reads.size > 0);
    assert.equal(rgds.reads.size, graphs.reads.size);
    assert.equal(c.reviews, graphs.reads.size + rgds.reads.size);
    assert.equal(c.rbacWatchRequests, 8, 'two RBAC watches (4 kinds each)');
    await stop();
  });

  it('shared: each answer is asked once for both sides, RBAC is watched once', async () => {
    const { cost } = await start(true);
    await waitRgd(admin, 'copy', 'Ready', 'True');
    await workload('v2');
    const c = cost();
    costs.shared = c;
    const { graphs, rgds, shared } = running as Required<NonNullable<typeof running>>;
    assert.equal(graphs.reads.size, shared.access.size, 'one cache');
    assert.equal(rgds.reads.size, shared.access.size, 'one cache');
    assert.equal(c.reviews, shared.access.size, 'each answer asked once');
    assert.equal(c.reviews * 2, costs.separate?.reviews, 'half the reviews of separate caches');
    assert.equal(c.rbacWatchRequests, 4, 'one RBAC watch (4 kinds)');
    assert.ok(shared.watch.started);
  });

  it('shared: a grant requeues both a waiting Graph and a waiting RGD instance within seconds', async () => {
    const { shared } = running as Required<NonNullable<typeof running>>;
    // Both read the Secret `db` of their namespace, which the ServiceAccount may not get.
    await admin.apply(
      graph(
        ns,
        'waiting',
        [
          { id: 's', ref: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'db' } } },
          { id: 'out', template: cm('waiting-out', { p: '${string(s.data.password)}' }) },
        ],
        { serviceAccountName: SA },
      ),
      { fieldManager: 'test', force: true },
    );
    const secretRgd = rgd(f, 'secret-copy', { kind: 'SecretCopy', spec: { name: 'string' } }, [
      { id: 's', externalRef: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'db', namespace: ns } } },
      { id: 'out', template: cm('${schema.spec.name}', { p: '${string(s.data.password)}' }) },
    ]);
    (secretRgd.spec as Record<string, unknown>).defaultServiceAccounts = { [ns]: SA };
    await applyRgd(admin, secretRgd);
    await waitRgd(admin, 'secret-copy', 'Ready', 'True');
    await applyInstance(admin, instance(f, 'SecretCopy', 'waiting', { name: 'waiting-instance-out' }));
    await waitCondition(admin, ns, 'waiting', 'Ready', 'False', 'ReadForbidden');
    await waitState(
      admin,
      f,
      'SecretCopy',
      'waiting',
      'ERROR',
      (o) => conditionOf(o, 'ResourcesReady')?.reason === 'ReadForbidden',
    );
    const refusedAt = Date.now();
    const heard: string[] = [];
    shared.access.onChange((users) => heard.push(...users));
    // Refused for 34 s, the Graph's next retry is some 25 s away (1 s doubling: 31 s, then 63 s) and the
    // instance's some 10 s (3 s doubling: 21 s, then 45 s): only the RBAC watch brings the grant within
    // a few seconds (a listener of one side missing, that side waits for its retry).
    await new Promise((res) => setTimeout(res, Math.max(0, refusedAt + 34_000 - Date.now())));
    const granted = Date.now();
    await grant(admin, ns, 'secret-reader', ['secrets'], ['get'], ns);
    const took: Record<string, number> = {};
    await Promise.all([
      waitCondition(admin, ns, 'waiting', 'Ready', 'True').then(() => {
        took.graph = Date.now() - granted;
      }),
      waitState(admin, f, 'SecretCopy', 'waiting', 'ACTIVE').then(() => {
        took.instance = Date.now() - granted;
      }),
    ]);
    console.log(`# grant → converged: ${JSON.stringify(took)} ms`);
    assert.ok((took.graph ?? Infinity) < 5_000, `the Graph converged ${took.graph} ms after the grant`);
    assert.ok(
      (took.instance ?? Infinity) < 5_000,
      `the instance converged ${took.instance} ms after the grant`,
    );
    assert.ok(heard.includes(`system:serviceaccount:${ns}:${SA}`), 'the recheck named the ServiceAccount');
    // string() of a Secret's data decodes it: the schema says format: byte (as kro converts it).
    assert.equal((await cmData(admin, ns, 'waiting-out'))?.p, 'hunter2');
    assert.equal((await cmData(admin, ns, 'waiting-instance-out'))?.p, 'hunter2');
  });
});
