import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { crdApiVersions } from '../../../src/kube/crdWatch.ts';
import { parseResourceList } from '../../../src/kube/discovery.ts';
import { diffCounts, RequestCounters } from '../../../src/kube/metrics.ts';

describe('parseResourceList', () => {
  it('maps resources and attaches subresources to their parents', () => {
    const rs = parseResourceList('apps/v1', {
      kind: 'APIResourceList',
      groupVersion: 'apps/v1',
      resources: [
        {
          name: 'deployments',
          singularName: 'deployment',
          namespaced: true,
          kind: 'Deployment',
          verbs: ['create', 'get', 'patch'],
          shortNames: ['deploy'],
          categories: ['all'],
        },
        { name: 'deployments/scale', namespaced: true, kind: 'Scale', verbs: ['get'] },
        { name: 'deployments/status', namespaced: true, kind: 'Deployment', verbs: ['get'] },
        {
          name: 'controllerrevisions',
          singularName: '',
          namespaced: true,
          kind: 'ControllerRevision',
          verbs: [],
        },
      ],
    });
    assert.equal(rs.length, 2);
    assert.deepEqual(rs[0], {
      group: 'apps',
      version: 'v1',
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      plural: 'deployments',
      singular: 'deployment',
      namespaced: true,
      verbs: ['create', 'get', 'patch'],
      shortNames: ['deploy'],
      categories: ['all'],
      subresources: ['scale', 'status'],
    });
    assert.equal(
      rs[1]?.singular,
      'controllerrevisions',
      'falls back to the plural when singularName is empty',
    );
  });

  it('tolerates malformed bodies', () => {
    assert.deepEqual(parseResourceList('v1', null), []);
    assert.deepEqual(parseResourceList('v1', { resources: [1, { kind: 'X' }] }), []);
  });
});

describe('request counters', () => {
  it('counts by verb, totals writes, and diffs snapshots', () => {
    const c = new RequestCounters();
    const before = c.snapshot();
    c.inc('get');
    c.inc('get');
    c.inc('apply');
    c.inc('delete');
    c.inc('watch');
    c.incError('apply');
    assert.equal(c.get('get'), 2);
    assert.equal(c.total(), 5);
    assert.equal(c.writes(), 2);
    assert.equal(c.errors().apply, 1);
    assert.deepEqual(diffCounts(before, c.snapshot()), {
      get: 2,
      list: 0,
      watch: 1,
      create: 0,
      patch: 0,
      apply: 1,
      update: 0,
      delete: 1,
      review: 0,
      dryrun: 0,
    });
    c.reset();
    assert.equal(c.total(), 0);
  });
});

describe('helpers', () => {
  it('lists the apiVersions a CRD serves', () => {
    assert.deepEqual(
      crdApiVersions({
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: 'graphs.kro.run' },
        spec: { group: 'kro.run', versions: [{ name: 'v1alpha1' }, { name: 'v1' }] },
      }),
      ['kro.run/v1alpha1', 'kro.run/v1'],
    );
  });
});
