// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the tests quote kgraph ${…} syntax
/**
 * RGD `spec.defaultServiceAccounts` (docs/rgd.md, "Trust model"): compiled into `rgd.defaultServiceAccounts`,
 * a bad value is a located diagnostic, and the namespace lookup (entry, then `*`, else the controller).
 * The full diagnostic lists are fixtures (test/fixtures/graph/{valid,invalid}/rgd-default-service-accounts*.yaml).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { instanceServiceAccount } from '../../../src/controller/rgd/names.ts';
import { type CompileResult, compileYaml } from '../../../src/graph/index.ts';
import { typecheckGraph } from '../../../src/graph/typecheck.ts';
import { offlineResolver } from './support.ts';

function compile(sas: string): CompileResult {
  const text = `apiVersion: kro.run/v1alpha1
kind: ResourceGraphDefinition
metadata: {name: sas}
spec:
  defaultServiceAccounts: ${sas}
  schema:
    apiVersion: v1alpha1
    kind: Sas
    spec:
      name: string
  resources:
    - id: cm
      template: {apiVersion: v1, kind: ConfigMap, metadata: {name: "\${schema.spec.name}"}}
`;
  const results = compileYaml('rgd.yaml', text, { resolver: offlineResolver(), typecheck: typecheckGraph });
  assert.equal(results.length, 1);
  return results[0]!;
}

describe('RGD spec.defaultServiceAccounts', () => {
  test('accepted and compiled as the map', () => {
    const r = compile('{team-a: reader, "*": writer}');
    assert.deepEqual(r.diagnostics, []);
    assert.deepEqual(r.graph?.rgd?.defaultServiceAccounts, { 'team-a': 'reader', '*': 'writer' });
  });

  test('absent: nothing compiled (the controller identity, as kro)', () => {
    const r = compile('null');
    assert.deepEqual(r.diagnostics, []);
    assert.equal(r.graph?.rgd?.defaultServiceAccounts, undefined);
  });

  test('a value that is not a ServiceAccount name is an error at the value, and nothing is compiled', () => {
    const r = compile('{team-a: "Not An SA"}');
    assert.equal(r.diagnostics.length, 1);
    const d = r.diagnostics[0]!;
    assert.equal(d.code, 'KG2008');
    assert.equal(d.severity, 'error');
    assert.match(
      d.message,
      /spec\.defaultServiceAccounts\["team-a"\] "Not An SA" must be a ServiceAccount name/,
    );
    assert.equal(d.path, 'spec.defaultServiceAccounts.team-a');
    assert.deepEqual([d.location?.file, d.location?.line, d.location?.column], ['rgd.yaml', 5, 36]);
    assert.equal(r.graph?.rgd?.defaultServiceAccounts, undefined);
  });

  test('the lookup: the namespace entry, else "*", else none', () => {
    const map = { 'team-a': 'reader', '*': 'writer' };
    assert.equal(instanceServiceAccount(map, 'team-a'), 'reader');
    assert.equal(instanceServiceAccount(map, 'team-b'), 'writer');
    assert.equal(instanceServiceAccount({ 'team-a': 'reader' }, 'team-b'), undefined);
    assert.equal(instanceServiceAccount(undefined, 'team-a'), undefined);
    assert.equal(instanceServiceAccount(map, ''), undefined, 'cluster-scoped: none');
  });
});
