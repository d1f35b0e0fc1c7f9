/**
 * `kgraph rbac <blueprint> --cluster NAME` (design/planes.md §10.2) against a real management cluster: the
 * subject of the bindings is read from the live ConsumerCluster's `status.identity` (written here as
 * admin through the status subresource, as the planes controller writes it); a registration that does
 * not exist, or has no identity yet, is refused with a message that says what to do. The CLI itself
 * (bin/kgraph.js) is run once with --kubeconfig, the rest in-process.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { rbacCommand } from '../../../src/cli/commands/rbac.ts';
import { installPlaneCrds } from '../../../src/controller/planes/crds.ts';
import type { KubeObject } from '../../../src/kube/index.ts';
import { RestClient } from '../../../src/kube/rest.ts';
import { repoRoot } from '../../../src/localplane/localControlPlane.ts';
import { dedicatedControlPlane } from '../../support/controlPlane.ts';
import { AV } from './support.ts';

const BP = 'examples/planes/10-hosteddatabase.yaml';
const VPC = 'examples/planes/00-vpc-crd.yaml';
const cli = join(repoRoot, 'bin', 'kgraph.js');

const docs = (text: string) => parseAllDocuments(text).map((d) => d.toJS() as Record<string, unknown>);
const bindingSubjects = (text: string) =>
  docs(text)
    .filter((o) => String(o.kind).endsWith('Binding'))
    .map((o) => o.subjects);

describe('kgraph rbac --cluster: the subject from the live ConsumerCluster', () => {
  let kubeconfig = '';
  let admin: RestClient;

  const register = (name: string) =>
    admin.apply(
      {
        apiVersion: AV,
        kind: 'ConsumerCluster',
        metadata: { name },
        spec: { kubeconfigSecretRef: { name: `${name}-kubeconfig`, key: 'kubeconfig' } },
      },
      { fieldManager: 'test', force: true },
    );
  const setStatus = (name: string, status: Record<string, unknown>) =>
    admin.applyStatus({ apiVersion: AV, kind: 'ConsumerCluster', metadata: { name }, status } as KubeObject, {
      fieldManager: 'test',
      force: true,
    });

  before(async () => {
    const cp = await dedicatedControlPlane({ workloads: false });
    kubeconfig = cp.kubeconfigPath;
    admin = new RestClient(cp.kc);
    await installPlaneCrds(admin);
  });

  it('binds both roles to the ServiceAccount of status.identity (the CLI, with --kubeconfig)', async () => {
    await register('acme');
    await setStatus('acme', {
      identity: { username: 'system:serviceaccount:acme-ops:kgraph-agent', groups: ['system:authenticated'] },
    });
    const r = spawnSync(
      process.execPath,
      [cli, 'rbac', BP, '--crd', VPC, '--cluster', 'acme', '--kubeconfig', kubeconfig],
      { encoding: 'utf8', timeout: 120_000, env: { ...process.env, KGRAPH_SOURCES: '1' } },
    );
    assert.equal(r.status, 0, r.stderr);
    const subjects = bindingSubjects(r.stdout);
    assert.equal(subjects.length, 2, r.stdout);
    for (const s of subjects)
      assert.deepEqual(s, [{ kind: 'ServiceAccount', name: 'kgraph-agent', namespace: 'acme-ops' }]);
  });

  it('a user identity becomes a User subject; --namespace still gives RoleBindings', async () => {
    await register('globex');
    await setStatus('globex', { identity: { username: 'oidc:kgraph@globex.example', groups: [] } });
    const out = await rbacCommand([BP], {
      crd: [VPC],
      namespace: ['team-a'],
      cluster: 'globex',
      kubeconfig,
    });
    assert.equal(out.exitCode, 0, out.stderr);
    const objs = docs(out.stdout);
    assert.deepEqual(
      objs.map((o) => o.kind),
      ['ClusterRole', 'ClusterRole', 'ClusterRoleBinding', 'RoleBinding'],
    );
    for (const s of bindingSubjects(out.stdout))
      assert.deepEqual(s, [
        { kind: 'User', name: 'oidc:kgraph@globex.example', apiGroup: 'rbac.authorization.k8s.io' },
      ]);
  });

  it('refuses a registration without an identity yet, and one that does not exist, saying what to do', async () => {
    await register('initech');
    await setStatus('initech', {
      conditions: [
        {
          type: 'Connected',
          status: 'False',
          reason: 'KubeconfigSecretMissing',
          message: 'Secret kgraph-system/initech-kubeconfig not found',
          lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
        },
      ],
    });
    const pending = await rbacCommand([BP], { crd: [VPC], namespace: [], cluster: 'initech', kubeconfig });
    assert.equal(pending.exitCode, 1);
    assert.equal(pending.stdout, '');
    assert.match(pending.stderr, /ConsumerCluster initech \(kubeconfig .*\) has no status\.identity yet/);
    assert.match(
      pending.stderr,
      /Connected=False KubeconfigSecretMissing: Secret kgraph-system\/initech-kubeconfig/,
    );
    assert.match(pending.stderr, /wait for Connected=True .* or give the identity with --subject/);

    const missing = await rbacCommand([BP], { crd: [VPC], namespace: [], cluster: 'nobody', kubeconfig });
    assert.equal(missing.exitCode, 1);
    assert.equal(missing.stdout, '');
    assert.match(missing.stderr, /--cluster nobody: no ConsumerCluster nobody in the management cluster/);
    assert.match(missing.stderr, /register the consumer cluster first/);
  });
});
