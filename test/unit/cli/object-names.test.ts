/**
 * Objects are named as kubectl names them: `kind.group/name` with the core group
 * omitted, the namespace as `-n ns` or a NAMESPACE column; `kgraph get`'s instance tree too.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatInstance } from '../../../src/cli/commands/get.ts';
import { kubectlName, kubectlNameIn, kubectlTable, kubectlType } from '../../../src/diag/objectName.ts';

describe('kubectl-style object names', () => {
  it('lower-case kind, the group, the core group omitted', () => {
    assert.equal(
      kubectlName({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }),
      'deployment.apps/web',
    );
    assert.equal(
      kubectlName({ apiVersion: 'v1', kind: 'ConfigMap', name: 'settings' }),
      'configmap/settings',
    );
    assert.equal(
      kubectlName({ apiVersion: 'kro.run/v1alpha1', kind: 'Graph', name: 'app' }),
      'graph.kro.run/app',
    );
    assert.equal(
      kubectlType({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy' }),
      'networkpolicy.networking.k8s.io',
    );
  });

  it('the namespace as kubectl -n, left out for cluster-scoped objects and the context namespace', () => {
    const web = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'orders', name: 'web' };
    assert.equal(kubectlNameIn(web), 'deployment.apps/web -n orders');
    assert.equal(kubectlNameIn(web, 'orders'), 'deployment.apps/web');
    assert.equal(kubectlNameIn(web, 'billing'), 'deployment.apps/web -n orders');
    assert.equal(kubectlNameIn({ apiVersion: 'v1', kind: 'Namespace', name: 'orders' }), 'namespace/orders');
  });

  it('tables as kubectl prints them: upper-case headers, padded columns, no trailing spaces', () => {
    assert.deepEqual(
      kubectlTable(
        ['namespace', 'name'],
        [
          ['orders', 'deployment.apps/web'],
          ['', 'namespace/orders'],
        ],
        '  ',
      ),
      ['  NAMESPACE  NAME', '  orders     deployment.apps/web', '             namespace/orders'],
    );
  });

  it('kgraph get: the instance with -n, its children in that namespace without, others with theirs', () => {
    const text = formatInstance({
      instance: {
        apiVersion: 'kro.run/v1alpha1',
        kind: 'WebApp',
        metadata: { name: 'shop', namespace: 'orders' },
        status: { state: 'ACTIVE', conditions: [{ type: 'Ready', status: 'True' }] },
      },
      nodes: [
        {
          id: 'deployment',
          state: 'ready',
          children: [
            { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'orders', name: 'shop', deleting: false },
          ],
        },
        {
          id: 'config',
          state: 'ready',
          children: [
            { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'shared', name: 'shop', deleting: false },
            { apiVersion: 'v1', kind: 'Namespace', name: 'shop-data', deleting: true },
          ],
        },
      ],
      orphans: [],
    });
    assert.equal(
      text,
      [
        'webapp.kro.run/shop -n orders  ACTIVE  Ready=True',
        '  ├─ deployment  ready',
        '  │    deployment.apps/shop',
        '  └─ config  ready',
        '       configmap/shop -n shared',
        '       namespace/shop-data  deleting',
      ].join('\n'),
    );
  });
});
