/** Which cached access answers an RBAC change may affect (pure part of rbacChanges.ts). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { inScope, scopeOfChange, subjectMatches } from '../../../../src/controller/core/rbacChanges.ts';
import {
  describeCheck,
  newReadLedger,
  readForbiddenMessage,
  serviceAccountSubject,
} from '../../../../src/controller/core/readAccess.ts';
import type { KubeObject } from '../../../../src/kube/index.ts';

const kind = (plural: string, namespaced: boolean, binding: boolean) =>
  ({ plural, namespaced, binding }) as Parameters<typeof scopeOfChange>[0];
const sa = serviceAccountSubject('team-a', 'app');

describe('RBAC change scopes', () => {
  it('a Role affects every answer about its namespace', () => {
    const scope = scopeOfChange(kind('roles', true, false), [
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'Role',
        metadata: { name: 'r', namespace: 'team-b' },
      },
    ]);
    assert.deepEqual(scope, { namespace: 'team-b' });
    assert.equal(
      inScope(scope, sa, { verb: 'get', group: '', resource: 'secrets', namespace: 'team-b' }),
      true,
    );
    assert.equal(
      inScope(scope, sa, { verb: 'get', group: '', resource: 'secrets', namespace: 'team-a' }),
      false,
    );
    assert.equal(inScope(scope, sa, { verb: 'list', group: '', resource: 'secrets' }), false);
  });

  it('a RoleBinding affects its namespace for the subjects before and after, ServiceAccounts defaulting to its namespace', () => {
    const rb = (subjects: unknown[]): KubeObject =>
      ({
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name: 'b', namespace: 'team-b' },
        subjects,
      }) as KubeObject;
    const scope = scopeOfChange(kind('rolebindings', true, true), [
      rb([{ kind: 'ServiceAccount', name: 'app', namespace: 'team-a' }]),
      rb([{ kind: 'ServiceAccount', name: 'other' }]),
    ]);
    const check = { verb: 'get' as const, group: '', resource: 'secrets', namespace: 'team-b' };
    assert.equal(inScope(scope, sa, check), true, 'the subject before the change');
    assert.equal(
      inScope(scope, serviceAccountSubject('team-b', 'other'), check),
      true,
      'defaulted namespace',
    );
    assert.equal(inScope(scope, serviceAccountSubject('team-c', 'app'), check), false);
  });

  it('a ClusterRoleBinding affects answers anywhere for its subjects; groups count', () => {
    const scope = scopeOfChange(kind('clusterrolebindings', false, true), [
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name: 'c' },
        subjects: [{ kind: 'Group', name: 'system:serviceaccounts:team-a' }],
      } as KubeObject,
    ]);
    assert.equal(inScope(scope, sa, { verb: 'list', group: '', resource: 'secrets' }), true);
    assert.equal(
      inScope(scope, serviceAccountSubject('team-b', 'app'), {
        verb: 'list',
        group: '',
        resource: 'secrets',
      }),
      false,
    );
  });

  it('a ClusterRole affects every answer', () => {
    const scope = scopeOfChange(kind('clusterroles', false, false), [
      { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'x' } },
    ]);
    assert.deepEqual(scope, {});
    assert.equal(
      inScope(scope, sa, { verb: 'get', group: 'apps', resource: 'deployments', namespace: 'z' }),
      true,
    );
  });

  it('matches users, groups and ServiceAccounts; unknown subject kinds are re-checked', () => {
    assert.equal(subjectMatches({ kind: 'User', name: 'system:serviceaccount:team-a:app' }, sa), true);
    assert.equal(subjectMatches({ kind: 'Group', name: 'system:authenticated' }, sa), true);
    assert.equal(subjectMatches({ kind: 'ServiceAccount', name: 'app', namespace: 'team-b' }, sa), false);
    assert.equal(subjectMatches({ kind: 'Unknown', name: 'x' }, sa), true);
  });
});

describe('ReadForbidden messages', () => {
  it('name node, subject, verb, resource, name and namespace, once per read', () => {
    const ledger = newReadLedger();
    const d = {
      verb: 'get' as const,
      group: '',
      resource: 'secrets',
      namespace: 'team-b',
      name: 'db',
      node: 's',
      apiVersion: 'v1',
      kind: 'Secret',
    };
    ledger.denied.push(d, d, { ...d, verb: 'list', name: undefined, namespace: undefined, node: 'all' });
    assert.equal(
      readForbiddenMessage(ledger, sa),
      'node s: system:serviceaccount:team-a:app may not get secrets "db" in namespace team-b; ' +
        'node all: system:serviceaccount:team-a:app may not list secrets cluster-wide' +
        // What to grant for the first refused read: read-only in another namespace.
        ' (the Graph acts as ServiceAccount team-a/app; a RoleBinding grants it: kubectl create role' +
        ' kgraph-app-secrets -n team-b --verb=get,list,watch --resource=secrets && kubectl create rolebinding' +
        ' kgraph-app-secrets -n team-b --role=kgraph-app-secrets --serviceaccount=team-a:app' +
        ' (or set spec.serviceAccountName to a ServiceAccount that may))',
    );
    assert.equal(
      describeCheck({ verb: 'list', group: 'apps', resource: 'deployments', namespace: 'n' }),
      'list deployments.apps in namespace n',
    );
  });
});
