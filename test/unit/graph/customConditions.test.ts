// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * What an RGD's custom conditions (design/rgd.md §20.3) may say, as kro's builder allows it: constant
 * conditions, computed types (deduplicated at run time), and `runtime.condition(schema, T)` on a built-in
 * type the author also overrides; a literal duplicate and a lookup of an own custom type stay refused.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { compileYaml } from '../../../src/graph/index.ts';
import { typecheckGraph } from '../../../src/graph/typecheck.ts';
import { offlineResolver } from './support.ts';

const rgd = (conditions: string[]) =>
  [
    'apiVersion: kro.run/v1alpha1',
    'kind: ResourceGraphDefinition',
    'metadata: {name: cc}',
    'spec:',
    '  schema:',
    '    apiVersion: v1alpha1',
    '    kind: Cc',
    '    spec: {name: string}',
    '    status:',
    '      conditions:',
    ...conditions.map((c) => `        - ${JSON.stringify(c)}`),
    '  resources:',
    '    - id: configmap',
    '      template: {apiVersion: v1, kind: ConfigMap, metadata: {name: "${schema.spec.name}"}}',
    '',
  ].join('\n');

const codes = (conditions: string[]) => {
  const [r] = compileYaml('cc.yaml', rgd(conditions), {
    resolver: offlineResolver(),
    typecheck: typecheckGraph,
  });
  return r?.diagnostics.map((d) => d.code) ?? [];
};

describe('custom conditions at compile time (kro builder rules)', () => {
  test('a constant condition is accepted', () => {
    assert.deepEqual(
      codes(["${runtime.newCondition({type: 'A', status: 'True', reason: 'OK', message: ''})}"]),
      [],
    );
  });

  test('computed types are not literal duplicates', () => {
    assert.deepEqual(
      codes([
        "${runtime.newCondition({type: 'Same-' + schema.spec.name, status: 'True', reason: '', message: ''})}",
        "${runtime.newCondition({type: 'Same-' + schema.spec.name, status: 'False', reason: '', message: ''})}",
      ]),
      [],
    );
    assert.deepEqual(
      codes([
        "${runtime.newCondition({type: 'A', status: 'True', reason: '', message: ''})}",
        "${runtime.newCondition({type: 'A', status: 'False', reason: '', message: ''})}",
      ]),
      ['KG2092'],
    );
  });

  test('runtime.condition reads a built-in type the author overrides, not an own custom type', () => {
    assert.deepEqual(
      codes([
        "${runtime.newCondition({type: 'ResourcesReady', status: 'True', reason: 'AuthorOverride', message: ''})}",
        "${runtime.newCondition({type: 'Derived', status: runtime.condition(schema, 'ResourcesReady').status, reason: 'R', message: ''})}",
      ]),
      [],
    );
    assert.deepEqual(
      codes([
        "${runtime.newCondition({type: 'Mine', status: 'True', reason: '', message: ''})}",
        "${runtime.newCondition({type: 'Derived', status: runtime.condition(schema, 'Mine').status, reason: 'R', message: ''})}",
      ]),
      ['KG2093'],
    );
  });
});
