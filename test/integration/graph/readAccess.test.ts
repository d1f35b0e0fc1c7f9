// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * No confused deputy (design/graph.md §24): the controller runs with deploy/'s
 * least-privilege identity, which may read every Secret; a Graph whose ServiceAccount may not read
 * Secrets refers to one — in another namespace and in its own, by name and by label selector — and
 * templates a ConfigMap carrying its password. Every such read is refused (ReadForbidden naming node,
 * verb and resource) and nothing is written; granting the ServiceAccount `get`/`list` makes the Graph
 * converge, revoking it stops further reads.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { GraphController } from '../../../src/controller/graph/controller.ts';
import type { KubeObject, RestClient } from '../../../src/kube/index.ts';
import { adminClient, grantServiceAccount, testNamespace } from '../../support/kube.ts';
import {
  applyGraph,
  cm,
  conditionOf,
  ensureCrd,
  eventually,
  getCm,
  graph,
  leastPrivilegeClient,
  waitCondition,
} from './support.ts';

const SA = 'app';
const PASSWORD = 'hunter2';

function secret(ns: string, name: string, password: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace: ns, labels: { leak: 'me' } },
    data: { password: Buffer.from(password).toString('base64') },
  };
}

/** A Role granting `verbs` on `resources` (core group) in `ns`, bound to `sa` of `saNs`. */
/** `data` of a ConfigMap (undefined when it does not exist). */
async function cmData(
  client: RestClient,
  ns: string,
  name: string,
): Promise<Record<string, string> | undefined> {
  return (await getCm(client, ns, name))?.data as Record<string, string> | undefined;
}

const grant = (c: RestClient, ns: string, name: string, resources: string[], verbs: string[], saNs: string) =>
  grantServiceAccount(c, ns, name, resources, verbs, { name: SA, namespace: saNs });

/** The leaking template: a ConfigMap holding the password the ref read. */
function leak(name: string, expr: string) {
  return { id: 'out', template: cm(name, { password: expr }) };
}

describe('a Graph reads only what its ServiceAccount may read', () => {
  let client: RestClient;
  let teamA: string;
  let teamB: string;
  let controller: GraphController | undefined;

  before(async () => {
    client = await adminClient();
    await ensureCrd();
    teamA = await testNamespace('team-a');
    teamB = await testNamespace('team-b');
    await client.create({
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: SA, namespace: teamA },
    });
    // The Graph's ServiceAccount writes ConfigMaps in its namespace and reads nothing else.
    await grant(
      client,
      teamA,
      'cm-writer',
      ['configmaps'],
      ['get', 'list', 'watch', 'create', 'patch', 'update', 'delete'],
      teamA,
    );
    await client.create(secret(teamB, 'db', PASSWORD));
    await client.create(secret(teamA, 'own', PASSWORD));
    await client.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'target', namespace: teamB },
      data: { k: 'v' },
    });
    controller = new GraphController({
      client: await leastPrivilegeClient(),
      namespaces: [teamA],
      installCrd: false,
      concurrency: 2,
      log: pino({ level: process.env.KGRAPH_TEST_LOG_LEVEL ?? 'silent' }),
    });
    await controller.start();
  });
  after(async () => {
    await controller?.stop();
    controller?.client.close();
  });

  const cases: { name: string; nodes: unknown[]; node: string; refused: RegExp }[] = [];
  before(() => {
    cases.push(
      {
        name: 'by-name-other-ns',
        node: 's',
        refused: new RegExp(
          `node s: system:serviceaccount:${teamA}:${SA} may not get secrets "db" in namespace ${teamB}`,
        ),
        nodes: [
          { id: 's', ref: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'db', namespace: teamB } } },
          leak('by-name-other-ns', '${string(s.data.password)}'),
        ],
      },
      {
        name: 'selector-other-ns',
        node: 's',
        refused: new RegExp(`node s: .* may not list secrets in namespace ${teamB}`),
        nodes: [
          {
            id: 's',
            ref: {
              apiVersion: 'v1',
              kind: 'Secret',
              metadata: { namespace: teamB, selector: { matchLabels: { leak: 'me' } } },
            },
          },
          leak('selector-other-ns', '${string(s[0].data.password)}'),
        ],
      },
      {
        name: 'selector-all-ns',
        node: 's',
        refused: /node s: .* may not list secrets cluster-wide/,
        nodes: [
          {
            id: 's',
            ref: {
              apiVersion: 'v1',
              kind: 'Secret',
              metadata: { selector: { matchLabels: { leak: 'me' } } },
            },
          },
          leak('selector-all-ns', '${string(s[0].data.password)}'),
        ],
      },
      {
        name: 'by-name-own-ns',
        node: 's',
        refused: new RegExp(`node s: .* may not get secrets "own" in namespace ${teamA}`),
        nodes: [
          { id: 's', ref: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'own' } } },
          leak('by-name-own-ns', '${string(s.data.password)}'),
        ],
      },
      {
        name: 'selector-own-ns',
        node: 's',
        refused: new RegExp(`node s: .* may not list secrets in namespace ${teamA}`),
        nodes: [
          {
            id: 's',
            ref: {
              apiVersion: 'v1',
              kind: 'Secret',
              metadata: { namespace: teamA, selector: { matchLabels: { leak: 'me' } } },
            },
          },
          leak('selector-own-ns', '${string(s[0].data.password)}'),
        ],
      },
      {
        // A patch target is observed state too: the ServiceAccount may not even get it.
        name: 'patch-target-other-ns',
        node: 'p',
        refused: new RegExp(`node p: .* may not get configmaps "target" in namespace ${teamB}`),
        nodes: [
          {
            id: 'p',
            patch: {
              apiVersion: 'v1',
              kind: 'ConfigMap',
              metadata: { name: 'target', namespace: teamB },
              data: { k: 'patched' },
            },
          },
        ],
      },
    );
  });

  it('refuses every read of a Secret the ServiceAccount may not read, and writes nothing', async () => {
    for (const c of cases) {
      await applyGraph(client, graph(teamA, c.name, c.nodes, { serviceAccountName: SA }));
    }
    for (const c of cases) {
      const g = await waitCondition(client, teamA, c.name, 'ResourcesConverged', 'False', 'ReadForbidden');
      const cond = conditionOf(g, 'ResourcesConverged');
      assert.match(cond?.message ?? '', c.refused, c.name);
      assert.equal(conditionOf(g, 'Ready')?.reason, 'ReadForbidden');
      assert.deepEqual((g.status as { managedResources?: unknown[] }).managedResources ?? [], []);
    }
    for (const c of cases)
      assert.equal(await getCm(client, teamA, c.name), undefined, `${c.name} not written`);
    assert.equal((await cmData(client, teamB, 'target'))?.k, 'v', 'the patch target is untouched');
  });

  it('granting get and list in team-b makes the reads work; revoking them stops further reads', async () => {
    await grant(client, teamB, 'secret-reader', ['secrets'], ['get', 'list'], teamA);
    for (const name of ['by-name-other-ns', 'selector-other-ns']) {
      await waitCondition(client, teamA, name, 'Ready', 'True');
      // string() of a Secret's data decodes it: the schema says format: byte (as kro converts it).
      assert.equal((await cmData(client, teamA, name))?.password, PASSWORD);
    }
    // Still refused: the grant is in team-b only.
    for (const name of ['selector-all-ns', 'by-name-own-ns', 'selector-own-ns']) {
      assert.equal(
        conditionOf(
          await waitCondition(client, teamA, name, 'ResourcesConverged', 'False'),
          'ResourcesConverged',
        )?.reason,
        'ReadForbidden',
      );
    }

    // With the grant, a new password reaches the ConfigMap: the propagation the revocation must stop.
    await client.apply(secret(teamB, 'db', 'second'), { fieldManager: 'test', force: true });
    for (const name of ['by-name-other-ns', 'selector-other-ns']) {
      await eventually(`${name} carries the second password`, async () =>
        (await cmData(client, teamA, name))?.password === 'second' ? true : undefined,
      );
    }

    await client.delete({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      namespace: teamB,
      name: 'secret-reader',
    });
    for (const name of ['by-name-other-ns', 'selector-other-ns']) {
      await waitCondition(client, teamA, name, 'ResourcesConverged', 'False', 'ReadForbidden');
    }
    const c = controller as GraphController;
    const before = c.metrics.reconcileCount();
    await client.apply(secret(teamB, 'db', 'third'), { fieldManager: 'test', force: true });
    await eventually('the Secret change reconciled', async () =>
      c.metrics.reconcileCount() >= before + 2 ? true : undefined,
    );
    await c.idle(30_000);
    for (const name of ['by-name-other-ns', 'selector-other-ns']) {
      assert.equal((await cmData(client, teamA, name))?.password, 'second', `${name} read nothing new`);
      await waitCondition(client, teamA, name, 'ResourcesConverged', 'False', 'ReadForbidden');
    }
  });
});
