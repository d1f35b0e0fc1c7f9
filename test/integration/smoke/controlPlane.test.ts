/**
 * Smoke tests proving the control plane is a real kube-apiserver with etcd:
 * CRDs, server-side apply conflicts, the status subresource, watch bookmarks,
 * finalizers, RBAC with impersonation, and (with the controllers flag) garbage
 * collection. Every assertion is on the server's own behaviour.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApiError, isApiError } from '../../../src/kube/errors.ts';
import { type RestClient, serviceAccountImpersonation } from '../../../src/kube/rest.ts';
import type { KubeObject } from '../../../src/kube/types.ts';
import { uniqueName } from '../../support/controlPlane.ts';
import { adminClient, eventually, testNamespace, widgetCrd } from '../../support/kube.ts';

const group = `smoke${process.pid}.kgraph.test`;
const crdName = `widgets.${group}`;

function conditionTrue(obj: KubeObject | undefined, type: string): boolean {
  const status = obj?.status as { conditions?: { type: string; status: string }[] } | undefined;
  return status?.conditions?.some((c) => c.type === type && c.status === 'True') ?? false;
}

describe('control plane smoke', () => {
  let client: RestClient;
  let ns: string;

  before(async () => {
    client = await adminClient();
    ns = await testNamespace('smoke');
  });

  after(() => client?.close());

  it('reports Kubernetes 1.37 on /version', async () => {
    const v = (await client.request({ method: 'GET', path: '/version' })) as {
      gitVersion: string;
      minor: string;
    };
    assert.match(v.gitVersion, /^v1\.37\./);
    assert.equal(v.minor, '37');
  });

  it('creates a CRD that becomes Established and serves its kind', async () => {
    await client.create(widgetCrd(group));
    const crd = await eventually('CRD Established', async () => {
      const o = await client.get({
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        name: crdName,
      });
      return conditionTrue(o, 'Established') ? o : undefined;
    });
    assert.ok(conditionTrue(crd, 'NamesAccepted'));
    await eventually('the widgets resource in discovery', async () => {
      const res = (await client.request({ method: 'GET', path: `/apis/${group}/v1` })) as {
        resources: { name: string }[];
      };
      return res.resources.some((r) => r.name === 'widgets') ? true : undefined;
    });
    const w = await client.create({
      apiVersion: `${group}/v1`,
      kind: 'Widget',
      metadata: { name: 'first', namespace: ns },
      spec: { size: 3 },
    });
    assert.equal((w.spec as { size: number }).size, 3);
  });

  it('server-side apply by two managers conflicts (409 naming the other manager) until force takes over', async () => {
    const name = uniqueName('cm');
    const cm = (value: string): KubeObject => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, namespace: ns },
      data: { key: value },
    });
    await client.apply(cm('alpha'), { fieldManager: 'manager-a' });
    const err = await client.apply(cm('beta'), { fieldManager: 'manager-b' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(isApiError(err), `expected an ApiError, got ${String(err)}`);
    assert.equal(err.code, 409);
    assert.match(err.message, /manager-a/);
    assert.deepEqual(err.conflictingManagers, ['manager-a']);

    const forced = await client.apply(cm('beta'), { fieldManager: 'manager-b', force: true });
    assert.deepEqual(forced.data, { key: 'beta' });
    const managers = (forced.metadata.managedFields ?? []).map((m) => (m as { manager: string }).manager);
    assert.ok(managers.includes('manager-b'));
    assert.ok(!managers.includes('manager-a'), 'force takes the field away from manager-a');
  });

  it('writes through the status subresource, which the main endpoint ignores', async () => {
    await eventually('Widget kind served', () =>
      client.getOrUndefined({
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        name: crdName,
      }),
    );
    const name = uniqueName('w');
    await client.apply(
      {
        apiVersion: `${group}/v1`,
        kind: 'Widget',
        metadata: { name, namespace: ns },
        spec: { size: 1 },
        status: { phase: 'Ignored' },
      },
      { fieldManager: 'smoke' },
    );
    const before = await client.get({ apiVersion: `${group}/v1`, kind: 'Widget', namespace: ns, name });
    assert.equal(before.status, undefined, 'status written through the main endpoint is dropped');
    await client.applyStatus(
      {
        apiVersion: `${group}/v1`,
        kind: 'Widget',
        metadata: { name, namespace: ns },
        status: { phase: 'Ready' },
      },
      { fieldManager: 'smoke-status' },
    );
    const after = await client.get({ apiVersion: `${group}/v1`, kind: 'Widget', namespace: ns, name });
    assert.deepEqual(after.status, { phase: 'Ready' });
  });

  it('lists, then watches with allowWatchBookmarks and receives a BOOKMARK', async () => {
    const list = await client.list({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns });
    const rv = list.metadata.resourceVersion;
    assert.ok(rv, 'a list carries a resourceVersion');
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    const stream = await client.stream({
      method: 'GET',
      path,
      query: { watch: true, allowWatchBookmarks: true, resourceVersion: rv, timeoutSeconds: 8 },
      verb: 'watch',
    });
    const types: string[] = [];
    let buffer = '';
    const bookmark = await new Promise<{ type: string; object: KubeObject } | undefined>((resolve) => {
      stream.on('data', (chunk: Buffer) => {
        buffer += chunk.toString('utf8');
        let nl = buffer.indexOf('\n');
        while (nl >= 0) {
          const line = buffer.slice(0, nl).trim();
          buffer = buffer.slice(nl + 1);
          nl = buffer.indexOf('\n');
          if (!line) continue;
          const ev = JSON.parse(line) as { type: string; object: KubeObject };
          types.push(ev.type);
          if (ev.type === 'BOOKMARK') {
            stream.destroy();
            resolve(ev);
          }
        }
      });
      stream.on('end', () => resolve(undefined));
      stream.on('close', () => resolve(undefined));
      // An event after the list, so the watch has something before its bookmark.
      void client.create({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: uniqueName('watched'), namespace: ns },
      });
    });
    assert.ok(
      bookmark,
      `expected a BOOKMARK before the watch timed out; saw ${types.join(', ') || 'no events'}`,
    );
    assert.ok(types.includes('ADDED'), 'the created ConfigMap arrives as ADDED');
    assert.ok(bookmark.object.metadata.resourceVersion, 'a bookmark carries a resourceVersion');
  });

  it('keeps a deleted object with a finalizer, with deletionTimestamp set, until the finalizer is removed', async () => {
    const name = uniqueName('fin');
    const target = { apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name };
    await client.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, namespace: ns, finalizers: ['kgraph.test/hold'] },
    });
    await client.delete(target);
    const held = await client.get(target);
    assert.ok(held.metadata.deletionTimestamp, 'deletionTimestamp is set');
    assert.deepEqual(held.metadata.finalizers, ['kgraph.test/hold']);
    await client.patch(target, { metadata: { finalizers: null } });
    await eventually('the object to be gone', async () =>
      (await client.getOrUndefined(target)) ? undefined : true,
    );
  });

  it('denies an impersonated ServiceAccount without rights (403)', async () => {
    const sa = uniqueName('nobody');
    await client.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: sa, namespace: ns } });
    const asSA = client.withImpersonation(serviceAccountImpersonation(ns, sa));
    const err = await asSA
      .create({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: uniqueName('denied'), namespace: ns },
      })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    assert.ok(err instanceof ApiError, `expected ApiError, got ${String(err)}`);
    assert.equal(err.code, 403);
    assert.equal(err.reason, 'Forbidden');
    assert.match(err.message, new RegExp(`system:serviceaccount:${ns}:${sa}`));
  });

  it('garbage-collects a dependent when its owner is deleted (controllers flag)', async () => {
    const owner = await client.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: uniqueName('owner'), namespace: ns },
    });
    const depName = uniqueName('dependent');
    await client.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: depName,
        namespace: ns,
        ownerReferences: [
          { apiVersion: 'v1', kind: 'ConfigMap', name: owner.metadata.name, uid: owner.metadata.uid },
        ],
      },
    });
    await client.delete(
      { apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: owner.metadata.name },
      { propagationPolicy: 'Background' },
    );
    await eventually(
      'the dependent to be garbage-collected',
      async () =>
        (await client.getOrUndefined({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: depName }))
          ? undefined
          : true,
      60_000,
      250,
    );
  });

  it('fills in the aggregated built-in roles (clusterrole-aggregation controller)', async () => {
    const admin = await eventually(
      'ClusterRole admin to carry aggregated rules',
      async () => {
        const role = await client.get({
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRole',
          name: 'admin',
        });
        const rules = role.rules as { resources?: string[] }[] | null | undefined;
        return rules && rules.length > 0 ? rules : undefined;
      },
      60_000,
      250,
    );
    assert.ok(admin.some((r) => r.resources?.includes('configmaps')));
  });

  it('finishes deleting a namespace with content (namespace controller)', async () => {
    const doomed = await testNamespace('doomed');
    await client.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'content', namespace: doomed },
    });
    await client.delete({ apiVersion: 'v1', kind: 'Namespace', name: doomed });
    await eventually(
      'the namespace to be gone',
      async () =>
        (await client.getOrUndefined({ apiVersion: 'v1', kind: 'Namespace', name: doomed }))
          ? undefined
          : true,
      60_000,
      250,
    );
  });
});
