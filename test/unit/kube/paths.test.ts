import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  formatApiVersion,
  groupVersionPath,
  labelSelector,
  objectKey,
  parseApiVersion,
  queryString,
  resourcePath,
  splitObjectKey,
} from '../../../src/kube/paths.ts';

describe('paths', () => {
  it('parses core and named group apiVersions', () => {
    assert.deepEqual(parseApiVersion('v1'), { group: '', version: 'v1' });
    assert.deepEqual(parseApiVersion('apps/v1'), { group: 'apps', version: 'v1' });
    assert.deepEqual(parseApiVersion('kro.run/v1alpha1'), { group: 'kro.run', version: 'v1alpha1' });
    assert.equal(formatApiVersion({ group: '', version: 'v1' }), 'v1');
    assert.equal(formatApiVersion({ group: 'apps', version: 'v1' }), 'apps/v1');
  });

  it('puts the core group under /api and named groups under /apis', () => {
    assert.equal(groupVersionPath('v1'), '/api/v1');
    assert.equal(groupVersionPath('apps/v1'), '/apis/apps/v1');
    assert.throws(() => groupVersionPath('apps/'), /invalid apiVersion/);
  });

  it('builds namespaced, cluster-scoped, collection and subresource paths', () => {
    assert.equal(
      resourcePath({ apiVersion: 'v1', plural: 'configmaps', namespace: 'ns1', name: 'cm' }),
      '/api/v1/namespaces/ns1/configmaps/cm',
    );
    assert.equal(
      resourcePath({ apiVersion: 'v1', plural: 'namespaces', name: 'ns1' }),
      '/api/v1/namespaces/ns1',
    );
    assert.equal(resourcePath({ apiVersion: 'apps/v1', plural: 'deployments' }), '/apis/apps/v1/deployments');
    assert.equal(
      resourcePath({ apiVersion: 'apps/v1', plural: 'deployments', namespace: 'a' }),
      '/apis/apps/v1/namespaces/a/deployments',
    );
    assert.equal(
      resourcePath({
        apiVersion: 'kro.run/v1alpha1',
        plural: 'graphs',
        namespace: 'a',
        name: 'g',
        subresource: 'status',
      }),
      '/apis/kro.run/v1alpha1/namespaces/a/graphs/g/status',
    );
  });

  it('rejects path traversal and subresources without a name', () => {
    assert.throws(() =>
      resourcePath({ apiVersion: 'v1', plural: 'configmaps', namespace: 'a', name: '../x' }),
    );
    assert.throws(() => resourcePath({ apiVersion: 'v1', plural: 'configmaps', name: '..' }));
    assert.throws(
      () => resourcePath({ apiVersion: 'v1', plural: 'configmaps', subresource: 'status' }),
      /needs a name/,
    );
  });

  it('encodes names with special characters', () => {
    assert.equal(
      resourcePath({
        apiVersion: 'rbac.authorization.k8s.io/v1',
        plural: 'clusterroles',
        name: 'system:basic-user',
      }),
      '/apis/rbac.authorization.k8s.io/v1/clusterroles/system%3Abasic-user',
    );
  });

  it('builds query strings, dropping undefined values', () => {
    assert.equal(queryString(undefined), '');
    assert.equal(queryString({ a: undefined, b: null }), '');
    assert.equal(
      queryString({ fieldManager: 'kgraph', force: true, limit: 2, labelSelector: 'a=b,c in (d)' }),
      '?fieldManager=kgraph&force=true&limit=2&labelSelector=a%3Db%2Cc%20in%20(d)',
    );
  });

  it('formats label selectors from maps', () => {
    assert.equal(labelSelector({ app: 'x', tier: 'web' }), 'app=x,tier=web');
    assert.equal(labelSelector('app!=x'), 'app!=x');
    assert.equal(labelSelector({}), undefined);
    assert.equal(labelSelector(undefined), undefined);
  });

  it('keys objects by namespace/name', () => {
    assert.equal(objectKey('ns', 'n'), 'ns/n');
    assert.equal(objectKey(undefined, 'n'), 'n');
    assert.deepEqual(splitObjectKey('ns/n'), { namespace: 'ns', name: 'n' });
    assert.deepEqual(splitObjectKey('n'), { namespace: undefined, name: 'n' });
  });
});
