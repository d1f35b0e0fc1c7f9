/**
 * The 403 hint's kubectl commands run as printed (src/controller/core/rbacHint.ts):
 * the text a ReadForbidden condition carries is handed to a shell with the real kubectl against the
 * test control plane, `kubectl auth can-i` says no before and yes after for every verb it grants, and
 * the Graph converges. The cluster-scope form (clusterrole + clusterrolebinding) and a resource of a
 * named group (`deployments.apps`) are run the same way.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { grantHint } from '../../../src/controller/core/rbacHint.ts';
import type { GraphController } from '../../../src/controller/graph/controller.ts';
import type { RestClient } from '../../../src/kube/index.ts';
import { sharedControlPlane, uniqueName } from '../../support/controlPlane.ts';
import { adminClient, testNamespace } from '../../support/kube.ts';
import {
  applyGraph,
  cm,
  conditionOf,
  graph,
  startController,
  stopController,
  waitCondition,
} from '../graph/support.ts';

let kubeconfig = '';

/** Runs `command` in a shell, as a user pastes it, with the test plane's admin kubeconfig. */
function shell(command: string): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync('bash', ['-c', command], {
    encoding: 'utf8',
    env: { ...process.env, KUBECONFIG: kubeconfig },
    timeout: 60_000,
  });
  return { status: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
}

/** `kubectl auth can-i VERB RESOURCE [-n NS] --as SA`: true for "yes". */
function canI(verb: string, resource: string, as: string, namespace?: string): boolean {
  const r = shell(`kubectl auth can-i ${verb} ${resource}${namespace ? ` -n ${namespace}` : ''} --as=${as}`);
  assert.match(r.stdout.trim(), /^(yes|no)$/, `${r.stdout}${r.stderr}`);
  return r.stdout.trim() === 'yes';
}

/** The kubectl commands of a hint: from the first `kubectl` to the last `--serviceaccount=…`. */
function commandsOf(hint: string): string {
  const m = /kubectl create .*--serviceaccount=\S+/.exec(hint);
  assert.ok(m, `kubectl commands in: ${hint}`);
  return m[0];
}

const WRITE = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'];

describe('403 hint: its kubectl commands, run by kubectl', () => {
  let client: RestClient;
  let controller: GraphController | undefined;
  let ns: string;

  before(async () => {
    kubeconfig = (await sharedControlPlane()).kubeconfigPath;
    assert.equal(shell('kubectl version --client').status, 0, 'kubectl is on the PATH');
    client = await adminClient();
    ns = await testNamespace('sa-kubectl');
    controller = await startController([ns]);
  });
  after(() => stopController(controller));

  it('the ReadForbidden hint, pasted into a shell, grants what the Graph needs', async () => {
    await applyGraph(client, graph(ns, 'nosa', [{ id: 'cm', template: cm('nosa-cm', { k: 'v' }) }]));
    const g = await waitCondition(client, ns, 'nosa', 'ResourcesConverged', 'False', 'ReadForbidden');
    const commands = commandsOf(conditionOf(g, 'ResourcesConverged')?.message ?? '');
    const sa = `system:serviceaccount:${ns}:default`;
    assert.equal(canI('get', 'configmaps', sa, ns), false);

    const r = shell(commands);
    assert.equal(r.status, 0, `${commands}\n${r.stdout}${r.stderr}`);
    assert.match(r.stdout, /role\.rbac\.authorization\.k8s\.io\/kgraph-default-configmaps created/);
    assert.match(r.stdout, /rolebinding\.rbac\.authorization\.k8s\.io\/kgraph-default-configmaps created/);
    for (const verb of WRITE) assert.equal(canI(verb, 'configmaps', sa, ns), true, verb);
    assert.equal(canI('get', 'secrets', sa, ns), false, 'nothing more than the hint says');
    await waitCondition(client, ns, 'nosa', 'ResourcesConverged', 'True', undefined, 60_000);
  });

  it('the cluster-scope form and a resource of a named group run too', () => {
    const name = uniqueName('hint-sa');
    const sa = `system:serviceaccount:${ns}:${name}`;
    const clusterHint = grantHint({ saNamespace: ns, sa: name, resources: ['namespaces'], readOnly: true });
    assert.match(clusterHint, /kubectl create clusterrole .* && kubectl create clusterrolebinding /);
    assert.equal(canI('list', 'namespaces', sa), false);
    const c = shell(commandsOf(clusterHint));
    assert.equal(c.status, 0, `${clusterHint}\n${c.stdout}${c.stderr}`);
    try {
      assert.equal(canI('list', 'namespaces', sa), true);
      assert.equal(canI('delete', 'namespaces', sa), false, 'read-only hint');

      const grouped = grantHint({
        saNamespace: ns,
        sa: name,
        resources: ['deployments.apps'],
        namespace: ns,
      });
      assert.equal(canI('patch', 'deployments.apps', sa, ns), false);
      const d = shell(commandsOf(grouped));
      assert.equal(d.status, 0, `${grouped}\n${d.stdout}${d.stderr}`);
      for (const verb of WRITE) assert.equal(canI(verb, 'deployments.apps', sa, ns), true, verb);
    } finally {
      const role = `kgraph-${name}-namespaces`;
      shell(`kubectl delete clusterrolebinding ${role} && kubectl delete clusterrole ${role}`);
    }
  });
});
