// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the tests quote kgraph ${…} syntax
/**
 * The `watch` node (kro KREP-024) in the engine: the list of objects matching its selector, read-only,
 * in the namespace it names or across all namespaces, re-read on every pass (so the value follows the
 * watched set), and usable by forEach and templates downstream.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { compileYaml } from '../../../src/graph/index.ts';
import type { CompiledGraph } from '../../../src/graph/model.ts';
import { typecheckGraph } from '../../../src/graph/typecheck.ts';
import { validatePaths } from '../../../src/graph/validate.ts';
import {
  type EvaluationResult,
  evaluate,
  type KubeObject,
  type NodeResult,
  observedFromObjects,
} from '../../../src/runtime/index.ts';
import { offlineResolver } from '../graph/support.ts';

const fixtures = join(import.meta.dirname, '../../fixtures/graph/valid');

function compiled(file: string): CompiledGraph {
  const r = validatePaths([join(fixtures, file)]);
  const g = r.results[0]?.graph;
  assert.ok(g && r.objects[0]?.accepted, JSON.stringify(r.objects[0]?.diagnostics));
  return g;
}

function node(r: EvaluationResult, path: string): NodeResult {
  const n = r.nodes.find((x) => x.path === path);
  assert.ok(n, `node ${path}`);
  return n;
}

const svc = (name: string, namespace: string, labels: Record<string, string>, port = 80): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name, namespace, labels },
  spec: { ports: [{ port }] },
});
const ns = (name: string, labels: Record<string, string>): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name, labels },
});

type Rule = {
  host: string;
  http: { paths: { backend: { service: { name: string; port: { number: number } } } }[] };
};
const rules = (r: EvaluationResult): Rule[] =>
  (node(r, 'routes').objects[0]!.value as { spec: { rules: Rule[] } }).spec.rules;

describe('watch node', () => {
  const fanIn = compiled('watch-fan-in.yaml');

  it('compiles to a read-only list: kind watch, selector mode, list type, no payload identity', () => {
    const w = fanIn.root.nodes.find((n) => n.id === 'exposed')!;
    assert.equal(w.kind, 'watch');
    assert.equal(w.refMode, 'selector');
    assert.equal(w.valueType?.startsWith('list'), true, w.valueType);
    assert.deepEqual(fanIn.root.order, ['exposed', 'routes']);
  });

  it('fan-in: one Ingress rule per matching Service of the named namespace, nothing written for the watch', () => {
    const observed = observedFromObjects([
      svc('shop', 'web', { route: 'public' }, 8080),
      svc('admin', 'web', { route: 'internal' }),
      svc('blog', 'web', { route: 'public' }),
      svc('other-ns', 'elsewhere', { route: 'public' }),
    ]);
    const r = evaluate(fanIn, { observed });
    const w = node(r, 'exposed');
    assert.equal(w.state, 'ready');
    assert.deepEqual(w.objects, [], 'a watch renders nothing to write');
    assert.deepEqual(
      // A watched set has no guaranteed order (design/graph.md §11): compare it sorted.
      rules(r)
        .map((x) => [x.host, x.http.paths[0]!.backend.service.port.number])
        .sort(),
      [
        ['blog.apps.example.org', 80],
        ['shop.apps.example.org', 8080],
      ],
    );
  });

  it('the value follows the watched set: a relabelled Service drops out, a new one comes in', () => {
    const before = evaluate(fanIn, {
      observed: observedFromObjects([svc('shop', 'web', { route: 'public' })]),
    });
    assert.deepEqual(
      rules(before).map((x) => x.host),
      ['shop.apps.example.org'],
    );
    const after = evaluate(fanIn, {
      observed: observedFromObjects([
        svc('shop', 'web', { route: 'none' }),
        svc('new', 'web', { route: 'public' }),
      ]),
    });
    assert.deepEqual(
      rules(after).map((x) => x.host),
      ['new.apps.example.org'],
    );
  });

  it('an empty set is an empty list, not pending', () => {
    const r = evaluate(fanIn, { observed: observedFromObjects([]) });
    assert.equal(node(r, 'exposed').state, 'ready');
    assert.deepEqual(rules(r), []);
  });

  it('decorator: metadata.selector with a computed matchExpressions value, readyWhen on the list, forEach downstream', () => {
    const g = compiled('watch-decorator.yaml');
    const observed = observedFromObjects([
      ns('a', { audit: 'on' }),
      ns('b', { audit: 'platform' }),
      ns('c', { audit: 'off' }),
      ns('d', {}),
    ]);
    const r = evaluate(g, { observed });
    assert.equal(node(r, 'audited').state, 'ready');
    assert.deepEqual(
      node(r, 'quotas').objects.map(
        (o) => (o.value as { metadata: { namespace: string } }).metadata.namespace,
      ),
      ['a', 'b'],
    );
    const none = evaluate(g, { observed: observedFromObjects([ns('c', { audit: 'off' })]) });
    assert.equal(node(none, 'audited').state, 'waiting', 'readyWhen audited.size() > 0 does not hold');
  });

  it('a watch without namespace lists across all namespaces; a def reads the list', () => {
    const text = [
      'apiVersion: kro.run/v1alpha1',
      'kind: Graph',
      'metadata: {name: all, namespace: home}',
      'spec:',
      '  nodes:',
      '    - id: everywhere',
      '      watch: {apiVersion: v1, kind: Service, selector: {matchLabels: {route: public}}}',
      '    - id: count',
      '      def: {names: "${everywhere.map(s, s.metadata.namespace + \'/\' + s.metadata.name)}"}',
    ].join('\n');
    const [res] = compileYaml('all.yaml', text, { resolver: offlineResolver(), typecheck: typecheckGraph });
    assert.deepEqual(res?.diagnostics, []);
    const observed = observedFromObjects([
      svc('a', 'home', { route: 'public' }),
      svc('b', 'elsewhere', { route: 'public' }),
      svc('c', 'elsewhere', {}),
    ]);
    const r = evaluate(res!.graph!, { observed });
    const names = (node(r, 'count').objects[0]!.value as { names: string[] }).names;
    assert.deepEqual([...names].sort(), ['elsewhere/b', 'home/a']);
  });
});
