import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { parse, parseAllDocuments } from 'yaml';
import { graphCrd } from '../../../src/controller/crd.ts';

describe('deploy/', () => {
  it('the CRD YAML equals graphCrd()', () => {
    assert.deepEqual(parse(readFileSync('deploy/crds/graphs.kro.run.yaml', 'utf8')), graphCrd());
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
