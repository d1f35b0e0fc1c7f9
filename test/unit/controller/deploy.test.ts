import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { parse, parseAllDocuments } from 'yaml';
import { graphCrd } from '../../../src/controller/graph/crd.ts';
import { graphRevisionCrd, rgdCrd } from '../../../src/controller/rgd/crd.ts';
import { graphRolloutCrd } from '../../../src/controller/rgd/rollout/crd.ts';

describe('deploy/', () => {
  it('the CRD YAML equals graphCrd()', () => {
    assert.deepEqual(parse(readFileSync('deploy/crds/graphs.kro.run.yaml', 'utf8')), graphCrd());
  });
  it('the RGD CRD YAML equals rgdCrd()', () => {
    assert.deepEqual(
      parse(readFileSync('deploy/crds/resourcegraphdefinitions.kro.run.yaml', 'utf8')),
      rgdCrd(),
    );
  });
  it('the GraphRollout CRD YAML equals graphRolloutCrd()', () => {
    assert.deepEqual(
      parse(readFileSync('deploy/crds/graphrollouts.kgraph.dev.yaml', 'utf8')),
      graphRolloutCrd(),
    );
  });
  it('the GraphRevision CRD YAML equals graphRevisionCrd()', () => {
    assert.deepEqual(
      parse(readFileSync('deploy/crds/graphrevisions.internal.kro.run.yaml', 'utf8')),
      graphRevisionCrd(),
    );
  });
  it('the RGD side writes only the kinds aggregated into its write role (no wildcard on children)', () => {
    const docs = parseAllDocuments(readFileSync('deploy/rbac/rgd-rbac.yaml', 'utf8')).map((d) => d.toJS());
    const writes = docs.find(
      (d) => d.kind === 'ClusterRole' && d.metadata.name === 'kgraph-rgd-controller-writes',
    );
    assert.deepEqual(writes.aggregationRule.clusterRoleSelectors, [
      { matchLabels: { 'rbac.kgraph.io/aggregate-to-rgd-controller': 'true' } },
    ]);
    for (const d of docs.filter((x) => x.kind === 'ClusterRole')) {
      for (const r of d.rules ?? []) {
        const writesAll =
          r.apiGroups.includes('*') && r.verbs.some((v: string) => ['create', 'patch', 'delete'].includes(v));
        assert.ok(!writesAll, `${d.metadata.name}: no write on every group`);
      }
    }
  });
  it('the controller may only read children and must impersonate to write them', () => {
    const docs = parseAllDocuments(readFileSync('deploy/rbac/rbac.yaml', 'utf8')).map((d) => d.toJS());
    const role = docs.find((d) => d.kind === 'ClusterRole' && d.metadata.name === 'kgraph-controller');
    const wildcard = role.rules.find((r: { resources: string[] }) => r.resources.includes('*'));
    assert.deepEqual(wildcard.verbs, ['get', 'list', 'watch']);
    assert.ok(
      role.rules.some(
        (r: { verbs: string[]; resources: string[] }) =>
          r.verbs.includes('impersonate') && r.resources.includes('serviceaccounts'),
      ),
    );
  });
});
