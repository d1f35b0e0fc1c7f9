// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * Identities known before a node renders (the Graph's one write-ahead per reconcile, design/graph.md §22.1): literal
 * name and namespace, no forEach, no includeWhen, a resolved scope; anything computed is left out.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { literalIdentities } from '../../../../src/controller/core/literalIdentities.ts';
import { builtinKindResolver } from '../../../../src/graph/builtinKinds.ts';
import { compileDocument } from '../../../../src/graph/compile.ts';
import { parseYamlFile } from '../../../../src/graph/yamlTree.ts';

function compile(nodes: unknown[]) {
  const text = JSON.stringify({
    apiVersion: 'kro.run/v1alpha1',
    kind: 'Graph',
    metadata: { name: 'g', namespace: 'team' },
    spec: { nodes },
  });
  const doc = parseYamlFile('g.yaml', text).documents[0];
  assert.ok(doc);
  const r = compileDocument(doc, { resolver: builtinKindResolver() });
  assert.ok(r.graph, JSON.stringify(r.diagnostics));
  return r.graph;
}

describe('literalIdentities', () => {
  it('lists literal template identities, defaulting the namespace, and skips computed ones', () => {
    const g = compile([
      {
        id: 'base',
        template: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b' }, data: { v: '1' } },
      },
      {
        id: 'derived',
        template: {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'd', namespace: 'other' },
          data: { from: '${base.metadata.name}' },
        },
      },
      {
        id: 'computed',
        template: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: '${base.data.v}' } },
      },
      {
        id: 'maybe',
        includeWhen: ['${base.data.v == "1"}'],
        template: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'm' } },
      },
      {
        id: 'many',
        forEach: [{ x: '${["a", "b"]}' }],
        template: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: '${x}' } },
      },
      { id: 'ns', template: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'n1' } } },
      { id: 'cfg', def: { a: 1 } },
    ]);
    assert.deepEqual(literalIdentities(g, 'team'), [
      { nodeID: 'base', id: { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'team', name: 'b' } },
      { nodeID: 'derived', id: { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'other', name: 'd' } },
      { nodeID: 'ns', id: { apiVersion: 'v1', kind: 'Namespace', name: 'n1' } },
    ]);
  });
});
