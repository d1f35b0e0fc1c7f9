import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { selfSubjectAccessReview, selfSubjectReview } from '../../../src/kube/access.ts';
import { ApiError } from '../../../src/kube/errors.ts';
import { type RestClient, serviceAccountImpersonation } from '../../../src/kube/rest.ts';
import { configMap, testClient, testNamespace } from '../../support/kube.ts';

let client: RestClient;
let ns: string;
before(async () => {
  client = await testClient();
  ns = await testNamespace('imp');
  await client.create({
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name: 'nobody', namespace: ns },
  });
  await client.create({
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name: 'writer', namespace: ns },
  });
  await client.create({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name: 'cm-writer', namespace: ns },
    rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'create', 'patch'] }],
  });
  await client.create({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: 'writer', namespace: ns },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'cm-writer' },
    subjects: [{ kind: 'ServiceAccount', name: 'writer', namespace: ns }],
  });
});
after(() => client.close());

describe('impersonation', () => {
  it('a ServiceAccount without rights gets a 403 ApiError and nothing is written', async () => {
    const nobody = client.withImpersonation(serviceAccountImpersonation(ns, 'nobody'));
    const err = await nobody
      .apply(configMap(ns, 'forbidden', { a: '1' }), { fieldManager: 'kgraph-test' })
      .catch((e: unknown) => e);
    assert.ok(err instanceof ApiError);
    assert.equal(err.code, 403);
    assert.equal(err.reason, 'Forbidden');
    assert.match(err.message, new RegExp(`system:serviceaccount:${ns}:nobody`));
    assert.equal(
      await client.getOrUndefined({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'forbidden' }),
      undefined,
    );
  });

  it('a ServiceAccount with a Role may write; per-call impersonation overrides the client default', async () => {
    const writer = client.withImpersonation(serviceAccountImpersonation(ns, 'writer'));
    const made = await writer.apply(configMap(ns, 'allowed', { a: '1' }), { fieldManager: 'kgraph-test' });
    assert.equal(made.metadata.name, 'allowed');
    // The writer cannot list; as itself (impersonate: null) the admin client can.
    const denied = await writer
      .list({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns })
      .catch((e: unknown) => e);
    assert.ok(denied instanceof ApiError && denied.code === 403);
    const listed = await writer.list(
      { apiVersion: 'v1', kind: 'ConfigMap', namespace: ns },
      { impersonate: null },
    );
    assert.ok(listed.items.some((o) => o.metadata.name === 'allowed'));
    // And the admin client can act as nobody for one call.
    const one = await client
      .get(
        { apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'allowed' },
        { impersonate: serviceAccountImpersonation(ns, 'nobody') },
      )
      .catch((e: unknown) => e);
    assert.ok(one instanceof ApiError && one.code === 403);
  });

  it('access reviews answer for the impersonated identity', async () => {
    const writer = client.withImpersonation(serviceAccountImpersonation(ns, 'writer'));
    const who = await selfSubjectReview(writer);
    assert.equal(who.username, `system:serviceaccount:${ns}:writer`);
    assert.ok(who.groups.includes(`system:serviceaccounts:${ns}`));
    const admin = await selfSubjectReview(client);
    assert.equal(admin.username, 'admin');

    const canCreate = await selfSubjectAccessReview(writer, {
      verb: 'create',
      resource: 'configmaps',
      namespace: ns,
    });
    assert.equal(canCreate.allowed, true);
    const canDelete = await selfSubjectAccessReview(writer, {
      verb: 'delete',
      resource: 'configmaps',
      namespace: ns,
    });
    assert.equal(canDelete.allowed, false);
  });
});
