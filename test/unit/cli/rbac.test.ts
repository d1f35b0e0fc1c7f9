// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the blueprint text holds kgraph ${…} expressions
/**
 * `kgraph rbac` (design/planes.md §10.2), offline: the seed's HostedDatabase blueprint gives the serving role,
 * the claims role with one rule per claim (configmaps written, vpcs read only) and the bindings to the
 * subject; refusals for a bad subject, an unresolvable consumer type, and RoleBindings asked for a
 * cluster-scoped claim.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import {
  checkRbacOptions,
  DEFAULT_SUBJECT,
  parseSubject,
  rbacCommand,
  runRbac,
  subjectOfUsername,
} from '../../../src/cli/commands/rbac.ts';

const BP = 'examples/planes/10-hosteddatabase.yaml';
const VPC = 'examples/planes/00-vpc-crd.yaml';
const docs = (text: string) => parseAllDocuments(text).map((d) => d.toJS() as Record<string, unknown>);

describe('kgraph rbac', () => {
  it('prints both ClusterRoles and their bindings for the subject', () => {
    const out = runRbac([BP], {
      crd: [VPC],
      subject: 'system:serviceaccount:kgraph-consumer:kgraph',
      namespace: [],
    });
    assert.equal(out.exitCode, 0, out.stderr);
    const objs = docs(out.stdout);
    assert.deepEqual(
      objs.map((o) => `${o.kind} ${(o.metadata as { name: string }).name}`),
      [
        'ClusterRole kgraph:hosteddatabases.krop.opendefense.cloud:serve',
        'ClusterRole kgraph:hosteddatabases.krop.opendefense.cloud:claims',
        'ClusterRoleBinding kgraph-hosteddatabases.krop.opendefense.cloud-serve',
        'ClusterRoleBinding kgraph-hosteddatabases.krop.opendefense.cloud-claims',
      ],
    );
    assert.deepEqual(objs[1]?.rules, [
      {
        apiGroups: [''],
        resources: ['configmaps'],
        verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
      },
      { apiGroups: ['ec2.services.k8s.aws'], resources: ['vpcs'], verbs: ['get', 'list', 'watch'] },
    ]);
    assert.deepEqual(objs[3]?.subjects, [
      { kind: 'ServiceAccount', name: 'kgraph', namespace: 'kgraph-consumer' },
    ]);
  });

  it('binds the claims role per namespace with --namespace; the serving role stays cluster-wide', () => {
    const out = runRbac([BP], { crd: [VPC], subject: 'user:alice', namespace: ['team-a', 'team-b'] });
    assert.equal(out.exitCode, 0, out.stderr);
    const objs = docs(out.stdout);
    assert.deepEqual(
      objs.slice(2).map((o) => `${o.kind} ${(o.metadata as { namespace?: string }).namespace ?? ''}`),
      ['ClusterRoleBinding ', 'RoleBinding team-a', 'RoleBinding team-b'],
    );
    assert.deepEqual(objs[3]?.subjects, [
      { kind: 'User', name: 'alice', apiGroup: 'rbac.authorization.k8s.io' },
    ]);
  });

  it('refuses what it cannot derive or bind', () => {
    assert.equal(parseSubject('alice'), undefined);
    const bad = runRbac([BP], { crd: [VPC], subject: 'alice', namespace: [] });
    assert.equal(bad.exitCode, 1);
    assert.match(bad.stderr, /--subject alice: expected/);
    // Without the VPC CRD the consumer-target VPC does not resolve.
    const unresolved = runRbac([BP], { crd: [], subject: 'user:a', namespace: [] });
    assert.equal(unresolved.exitCode, 1);
    assert.match(unresolved.stderr, /vpc|VPC/);
    assert.equal(unresolved.stdout, '');
    const dir = mkdtempSync(join(tmpdir(), 'kgraph-rbac-'));
    const file = join(dir, 'cr.yaml');
    writeFileSync(
      file,
      [
        'apiVersion: krop.opendefense.cloud/v1alpha1',
        'kind: ResourceGraphDefinition',
        'metadata: {name: roles}',
        'spec:',
        '  schema: {apiVersion: v1alpha1, kind: Roles, spec: {name: string}}',
        '  resources:',
        '    - id: role',
        '      template:',
        '        apiVersion: rbac.authorization.k8s.io/v1',
        '        kind: ClusterRole',
        '        metadata: {name: "${schema.spec.name}"}',
        '        rules: []',
        '',
      ].join('\n'),
    );
    const scoped = runRbac([file], { crd: [], subject: 'user:a', namespace: ['team-a'] });
    assert.equal(scoped.exitCode, 1, scoped.stdout);
    assert.match(scoped.stderr, /cluster-scoped claims \(clusterroles\) need a ClusterRoleBinding/);
    assert.equal(runRbac([file], { crd: [], subject: 'user:a', namespace: [] }).exitCode, 0);
  });

  it('--subject and --cluster exclude each other; --kubeconfig/--context only go with --cluster', async () => {
    const base = { crd: [VPC], namespace: [] };
    assert.equal(checkRbacOptions({ ...base }), undefined);
    assert.equal(checkRbacOptions({ ...base, subject: 'user:a' }), undefined);
    assert.equal(checkRbacOptions({ ...base, cluster: 'acme', kubeconfig: '/k', context: 'c' }), undefined);
    assert.match(
      checkRbacOptions({ ...base, subject: 'user:a', cluster: 'acme' }) ?? '',
      /--subject and --cluster exclude each other/,
    );
    assert.match(checkRbacOptions({ ...base, kubeconfig: '/k' }) ?? '', /give --cluster NAME/);
    assert.match(checkRbacOptions({ ...base, context: 'c' }) ?? '', /give --cluster NAME/);
    assert.match(checkRbacOptions({ ...base, cluster: '' }) ?? '', /name of a ConsumerCluster/);
    // The command refuses before it reads anything: no kubeconfig is loaded, nothing is printed.
    const both = await rbacCommand([BP], { ...base, subject: 'user:a', cluster: 'acme' });
    assert.equal(both.exitCode, 1);
    assert.equal(both.stdout, '');
    assert.match(both.stderr, /^kgraph rbac: --subject and --cluster exclude each other/);
    // Neither: the default subject, offline.
    const dflt = await rbacCommand([BP], { ...base });
    assert.equal(dflt.exitCode, 0, dflt.stderr);
    assert.match(dflt.stdout, /name: kgraph\n\s+namespace: kgraph-consumer/);
    assert.equal(DEFAULT_SUBJECT, 'serviceaccount:kgraph-consumer:kgraph');
  });

  it('--cluster with an unloadable kubeconfig fails naming it', async () => {
    const out = await rbacCommand([BP], {
      crd: [VPC],
      namespace: [],
      cluster: 'acme',
      kubeconfig: '/nonexistent/kubeconfig',
    });
    assert.equal(out.exitCode, 1);
    assert.match(out.stderr, /KG6010 cannot load kubeconfig \/nonexistent\/kubeconfig/);
  });

  it("turns a SelfSubjectReview user name into the binding's subject", () => {
    assert.deepEqual(parseSubject(subjectOfUsername('system:serviceaccount:ns1:sa1')), {
      kind: 'ServiceAccount',
      namespace: 'ns1',
      name: 'sa1',
    });
    assert.deepEqual(parseSubject(subjectOfUsername('oidc:alice@example.com')), {
      kind: 'User',
      name: 'oidc:alice@example.com',
    });
  });
});
