// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the tests quote kgraph ${…} syntax
/**
 * RGD `spec.defaultServiceAccounts` (docs/rgd.md, "Trust model"): compiled into `rgd.defaultServiceAccounts`,
 * a bad value is a located diagnostic, and the namespace lookup (entry, then `*`, else the controller); a
 * cluster-scoped RGD maps `*` alone, to NAMESPACE/NAME.
 * The full diagnostic lists are fixtures (test/fixtures/graph/{valid,invalid}/rgd-default-service-accounts*.yaml).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { instanceServiceAccount } from '../../../src/controller/rgd/names.ts';
import { type CompileResult, compileYaml } from '../../../src/graph/index.ts';
import { typecheckGraph } from '../../../src/graph/typecheck.ts';
import { offlineResolver } from './support.ts';

function compile(sas: string, clusterScoped = false): CompileResult {
  const text = `apiVersion: kro.run/v1alpha1
kind: ResourceGraphDefinition
metadata: {name: sas}
spec:
  defaultServiceAccounts: ${sas}
  schema:
    apiVersion: v1alpha1
    kind: Sas${clusterScoped ? '\n    scope: Cluster' : ''}
    spec:
      name: string
  resources:
    - id: cm
      template: {apiVersion: v1, kind: ConfigMap, metadata: {name: "\${schema.spec.name}"${clusterScoped ? ', namespace: default' : ''}}}
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

  test('cluster-scoped: "*" to NAMESPACE/NAME is compiled; any other key, or a bare name, is refused saying why', () => {
    const ok = compile('{"*": kgraph-system/instances}', true);
    assert.deepEqual(ok.diagnostics, []);
    assert.deepEqual(ok.graph?.rgd?.defaultServiceAccounts, { '*': 'kgraph-system/instances' });
    const bad = compile('{team-a: team-a/reader, "*": reader}', true);
    assert.deepEqual(
      bad.diagnostics.map((d) => [d.code, d.path, d.message]),
      [
        [
          'KG2005',
          'spec.defaultServiceAccounts.team-a',
          'spec.defaultServiceAccounts key "team-a": the instances of a cluster-scoped RGD have no namespace to look up; map "*" to NAMESPACE/NAME, the one ServiceAccount they all run as',
        ],
        [
          'KG2008',
          'spec.defaultServiceAccounts["*"]',
          'spec.defaultServiceAccounts["*"] "reader" must be NAMESPACE/NAME, a namespace and the name of a ServiceAccount in it: the instances of a cluster-scoped RGD have no namespace of their own',
        ],
      ],
    );
    assert.equal(bad.graph?.rgd?.defaultServiceAccounts, undefined);
  });

  test("namespaced: another namespace's ServiceAccount (NAMESPACE/NAME) is refused saying why", () => {
    const r = compile('{"*": kgraph-system/instances}');
    assert.equal(r.diagnostics.length, 1);
    assert.equal(r.diagnostics[0]!.code, 'KG2008');
    assert.match(r.diagnostics[0]!.message, /may not run as another namespace's ServiceAccount/);
    assert.equal(r.graph?.rgd?.defaultServiceAccounts, undefined);
  });

  test('the lookup: the namespace entry, else "*", else none; cluster-scoped: the "*" NAMESPACE/NAME', () => {
    const map = { 'team-a': 'reader', '*': 'writer' };
    assert.deepEqual(instanceServiceAccount(map, 'team-a'), { namespace: 'team-a', name: 'reader' });
    assert.deepEqual(instanceServiceAccount(map, 'team-b'), { namespace: 'team-b', name: 'writer' });
    assert.equal(instanceServiceAccount({ 'team-a': 'reader' }, 'team-b'), undefined);
    assert.equal(instanceServiceAccount(undefined, 'team-a'), undefined);
    assert.equal(instanceServiceAccount(map, ''), undefined, 'cluster-scoped, no NAMESPACE/NAME: none');
    assert.deepEqual(instanceServiceAccount({ '*': 'kgraph-system/instances' }, ''), {
      namespace: 'kgraph-system',
      name: 'instances',
    });
  });
});
