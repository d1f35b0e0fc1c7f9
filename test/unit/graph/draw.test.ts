// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the tests quote kgraph ${…} syntax
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { compileYaml, toDot, toMermaid } from '../../../src/graph/index.ts';
import { offlineResolver } from './support.ts';

const rgd = `apiVersion: kro.run/v1alpha1
kind: ResourceGraphDefinition
metadata: {name: app}
spec:
  schema:
    apiVersion: v1alpha1
    kind: App
    spec: {name: string}
    status:
      cm: \${cm.metadata.name}
  resources:
    - id: cm
      template: {apiVersion: v1, kind: ConfigMap, metadata: {name: "\${schema.spec.name}"}}
    - id: ext
      externalRef: {apiVersion: v1, kind: ConfigMap, metadata: {name: "\${cm.metadata.name}-x"}}
`;

describe('drawing an RGD', () => {
  const [result] = compileYaml('rgd.yaml', rgd, { resolver: offlineResolver() });
  const graph = result!.graph!;

  test('dot: the schema variable, kinds as shapes, the status projection as soft edges', () => {
    const dot = toDot(graph);
    assert.match(dot, /"schema" \[shape=doublecircle, label="schema\\nApp"\];/);
    assert.match(dot, /"cm" \[shape=box, label="cm\\ntemplate ConfigMap"\];/);
    assert.match(dot, /"ext" \[shape=cylinder, label="ext\\nexternalRef ConfigMap"\];/);
    assert.match(dot, /"cm" -> "ext" \[label="metadata\.name"\];/);
    assert.match(dot, /"schema" -> "cm" \[label="metadata\.name", style=dashed\];/);
    assert.match(dot, /"cm" -> "instance" \[label="status\.cm", style=dotted\];/);
  });

  test('mermaid: the same graph', () => {
    const m = toMermaid(graph);
    assert.match(m, /n_cm\["cm<br\/>template ConfigMap"\]/);
    assert.match(m, /n_ext\[\("ext<br\/>externalRef ConfigMap"\)\]/);
    assert.match(m, /n_cm -->\|"metadata\.name"\| n_ext/);
    assert.match(m, /n_cm -\.->\|"status\.cm"\| instance/);
  });
});

describe('drawing a watch node (kro KREP-024)', () => {
  const text = [
    'apiVersion: kro.run/v1alpha1',
    'kind: Graph',
    'metadata: {name: fan, namespace: web}',
    'spec:',
    '  nodes:',
    '    - id: exposed',
    '      watch: {apiVersion: v1, kind: Service, namespace: web, selector: {matchLabels: {route: public}}}',
    '    - id: out',
    '      template: {apiVersion: v1, kind: ConfigMap, metadata: {name: out}, data: {n: "${string(exposed.size())}"}}',
  ].join('\n');
  const [result] = compileYaml('fan.yaml', text, { resolver: offlineResolver() });
  const graph = result!.graph!;

  test('dot and mermaid draw it as a read (cylinder) of a watched set, with its edge', () => {
    assert.deepEqual(result!.diagnostics, []);
    assert.match(toDot(graph), /"exposed" \[shape=cylinder, label="exposed\\nwatch Service"\];/);
    const mermaid = toMermaid(graph);
    assert.match(mermaid, /n_exposed\[\("exposed<br\/>watch Service<br\/>\(watched set\)"\)\]/);
    assert.match(mermaid, /n_exposed -->\|"data\.n"\| n_out/);
  });
});
