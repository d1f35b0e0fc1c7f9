// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * A Graph without `spec.serviceAccountName` acts as its namespace's `default` ServiceAccount; when that
 * one may not read or write what the Graph needs, the condition message says which Role and
 * RoleBinding would fix it — and granting exactly what it says makes the Graph
 * converge, for a refused read (ReadForbidden) and for a refused write (ApplyFailed, a 403).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { GraphController } from '../../../src/controller/graph/controller.ts';
import type { RestClient } from '../../../src/kube/index.ts';
import { adminClient, testNamespace } from '../../support/kube.ts';
import {
  applyGraph,
  cm,
  conditionOf,
  getCm,
  graph,
  startController,
  stopController,
  waitCondition,
} from '../graph/support.ts';

/** Does what the hint's `kubectl create role … && kubectl create rolebinding …` says, with the API. */
async function grantAsHinted(client: RestClient, message: string): Promise<void> {
  const m =
    /kubectl create role (\S+) -n (\S+) --verb=(\S+) --resource=(\S+) && kubectl create rolebinding (\S+) -n (\S+) --role=(\S+) --serviceaccount=([^:\s]+):(\S+)/.exec(
      message,
    );
  assert.ok(m, `a RoleBinding hint in: ${message}`);
  const [, role, ns, verbs, resources, binding, bindingNs, roleRef, saNs, sa] = m as unknown as string[];
  assert.equal(bindingNs, ns);
  assert.equal(roleRef, role);
  const rules = resources!.split(',').map((r) => {
    const [resource, ...group] = r.split('.');
    return { apiGroups: [group.join('.')], resources: [resource!], verbs: verbs!.split(',') };
  });
  await client.create({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name: role!, namespace: ns! },
    rules,
  });
  await client.create({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: binding!, namespace: ns! },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: role! },
    subjects: [{ kind: 'ServiceAccount', name: sa!, namespace: saNs! }],
  });
}

describe('403 hint: which RoleBinding would fix it', () => {
  let client: RestClient;
  let controller: GraphController | undefined;
  let ns: string;

  before(async () => {
    client = await adminClient();
    // No grants at all: the Graphs' `default` ServiceAccount may do nothing here.
    ns = await testNamespace('sa-hint');
    controller = await startController([ns]);
  });
  after(() => stopController(controller));

  it('a refused read (ReadForbidden) names the Role and RoleBinding; granting them converges', async () => {
    await applyGraph(client, graph(ns, 'nosa', [{ id: 'cm', template: cm('nosa-cm', { k: 'v' }) }]));
    const g = await waitCondition(client, ns, 'nosa', 'ResourcesConverged', 'False', 'ReadForbidden');
    const msg = conditionOf(g, 'ResourcesConverged')?.message ?? '';
    assert.match(msg, new RegExp(`spec\\.serviceAccountName, so it acts as ServiceAccount ${ns}/default`));
    assert.match(msg, new RegExp(`kubectl create rolebinding kgraph-default-configmaps -n ${ns} `));
    await grantAsHinted(client, msg);
    await waitCondition(client, ns, 'nosa', 'ResourcesConverged', 'True', undefined, 60_000);
    assert.equal(((await getCm(client, ns, 'nosa-cm'))?.data as { k?: string } | undefined)?.k, 'v');
  });

  it('a refused write (403, ApplyFailed) names them too; granting them converges', async () => {
    // `reader` may read ConfigMaps (the read check passes) but not write them.
    await client.create({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'cm-reader', namespace: ns },
      rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] }],
    });
    await client.create({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'cm-reader', namespace: ns },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'cm-reader' },
      subjects: [{ kind: 'ServiceAccount', name: 'reader', namespace: ns }],
    });
    await applyGraph(
      client,
      graph(ns, 'ro', [{ id: 'cm', template: cm('ro-cm', { k: 'w' }) }], { serviceAccountName: 'reader' }),
    );
    const g = await waitCondition(client, ns, 'ro', 'ResourcesConverged', 'False', 'ApplyFailed');
    const msg = conditionOf(g, 'ResourcesConverged')?.message ?? '';
    assert.match(msg, /403/);
    assert.match(msg, new RegExp(`the Graph acts as ServiceAccount ${ns}/reader`));
    assert.match(msg, new RegExp(`kubectl create rolebinding kgraph-reader-configmaps -n ${ns} `));
    await grantAsHinted(client, msg);
    await waitCondition(client, ns, 'ro', 'ResourcesConverged', 'True', undefined, 60_000);
    assert.equal(((await getCm(client, ns, 'ro-cm'))?.data as { k?: string } | undefined)?.k, 'w');
  });
});
