// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the tests quote kgraph ${…} syntax
/**
 * Node ids equal to a global of the CEL environment (`net`, `strings`, `base64`, `int`, …): kro's builder
 * accepts them (it refuses only its reserved words and CEL's), and cel-go resolves `net.status…` to the
 * variable while a namespaced call (`base64.encode(b)`), a qualified type (`net.IP`) and a global
 * call (`int(x)`) keep their meaning (checked against kro's environment built from its Go module).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { baseEnvironment, evaluateSource } from '../../../src/cel/index.ts';
import { compileYaml } from '../../../src/graph/index.ts';
import { simulate } from '../../../src/runtime/simulate.ts';
import { offlineResolver } from './support.ts';

const GLOBAL_IDS = ['net', 'strings', 'lists', 'base64', 'optional', 'ip', 'random', 'json', 'hash', 'int'];

function rgd(): string {
  const cm = (id: string, data: string) =>
    [
      `    - id: ${id}`,
      '      template:',
      '        apiVersion: v1',
      '        kind: ConfigMap',
      `        metadata: {name: "\${schema.spec.name}-${id.toLowerCase()}"}`,
      `        data: ${data}`,
    ].join('\n');
  return [
    'apiVersion: kro.run/v1alpha1',
    'kind: ResourceGraphDefinition',
    'metadata: {name: globals}',
    'spec:',
    '  schema:',
    '    apiVersion: v1alpha1',
    '    kind: Globals',
    '    spec: {name: string}',
    '    status:',
    '      netName: ${net.metadata.name}',
    '  resources:',
    cm('net', '{a: "1"}'),
    cm('base64', '{b: "2"}'),
    ...GLOBAL_IDS.filter((id) => id !== 'net' && id !== 'base64').map((id) =>
      cm(id, `{from: "\${net.metadata.name}"}`),
    ),
    cm(
      'reader',
      [
        '{',
        'fromNet: "${net.data.a}",',
        'fromBase64: "${base64.data.b}",',
        // The namespace function wins over the node: no dependency on node `base64`.
        'encoded: "${base64.encode(bytes(\'x\'))}",',
        'ipType: "${string(type(ip(\'10.0.0.1\')) == net.IP)}",',
        'quoted: "${strings.quote(net.data.a)}",',
        'sized: "${string(int(size(lists.data)))}"',
        '}',
      ].join(' '),
    ),
  ].join('\n');
}

describe('node ids equal to CEL globals', () => {
  const [result] = compileYaml('globals.yaml', rgd(), { resolver: offlineResolver() });
  const graph = result!.graph!;

  test('are accepted (no KG2015), as kro accepts them', () => {
    const errors = result!.diagnostics.filter((d) => d.severity === 'error');
    assert.deepEqual(
      errors.map((d) => `${d.code} ${d.message}`),
      [],
    );
    assert.ok(graph);
  });

  test('`net.…` is a reference to node net; `base64.encode(…)` is the namespace function', () => {
    const node = (id: string) => graph.root.nodes[graph.root.index[id] ?? -1]!;
    assert.deepEqual(node('strings').dependencies.sort(), ['net']);
    assert.deepEqual(node('reader').dependencies.sort(), ['base64', 'lists', 'net']);
  });

  test('evaluation resolves each name to the node, and namespace calls to the function', () => {
    const instance = {
      apiVersion: 'kro.run/v1alpha1',
      kind: 'Globals',
      metadata: { name: 'g', namespace: 'default' },
      spec: { name: 'g' },
    };
    const state = ['net', 'base64', 'lists'].map((id) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: `g-${id}`, namespace: 'default' },
      data: id === 'net' ? { a: '1' } : id === 'base64' ? { b: '2' } : { from: 'g-net' },
    }));
    const r = simulate(graph, { instance, state, untilConverged: true });
    const reader = r.output.nodes.find((n) => n.id === 'reader');
    const data = (reader?.objects[0] as { data?: Record<string, string> } | undefined)?.data;
    assert.deepEqual(data, {
      fromNet: '1',
      fromBase64: '2',
      encoded: 'eA==',
      ipType: 'true',
      quoted: '"1"',
      sized: '1',
    });
    assert.equal(r.output.status?.netName, 'g-net');
  });
});

describe('a CEL variable named like a global', () => {
  const env = baseEnvironment().extend({ variables: { int: 'dyn', base64: 'dyn', net: 'dyn' } });
  const vars = { int: { x: 7n }, base64: { encode: 'field' }, net: { IP: 'field' } };
  const cases: [string, unknown][] = [
    ['int.x', 7n],
    ['int', { x: 7n }],
    ['int(2.0)', 2n],
    ['base64.encode', 'field'],
    ["base64.encode(b'x')", 'eA=='],
    ["type(ip('10.0.0.1')) == net.IP", true],
    ['[1, 2].map(int, int * 2)', [2n, 4n]],
  ];
  for (const [source, expected] of cases) {
    test(`${source} evaluates as cel-go does`, () => {
      const r = evaluateSource(source, env, vars);
      assert.ok(r.ok, r.ok ? '' : r.error.message);
      assert.deepEqual(r.value.value, expected);
    });
  }
});
