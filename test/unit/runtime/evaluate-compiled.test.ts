import assert from 'node:assert/strict';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import type { CompiledGraph } from '../../../src/graph/model.ts';
import { validatePaths } from '../../../src/graph/validate.ts';
import {
  type EvaluationResult,
  evaluate,
  type KubeObject,
  type NodeResult,
  observedFromObjects,
} from '../../../src/runtime/index.ts';

/** The same engine rules as evaluate.test.ts, on Graphs compiled by the real compiler from YAML fixtures. */
const file = join(import.meta.dirname, '../../fixtures/runtime/rules.yaml');
const graphs = new Map<string, CompiledGraph>();

before(() => {
  const result = validatePaths([file]);
  result.results.forEach((r, i) => {
    const o = result.objects[i]!;
    assert.ok(o.accepted && r.graph, `${o.name}: ${o.diagnostics.map((d) => d.message).join('; ')}`);
    graphs.set(o.name, r.graph);
  });
});

function graph(name: string): CompiledGraph {
  const g = graphs.get(name);
  assert.ok(g, `graph ${name}`);
  return g;
}

function node(r: EvaluationResult, path: string): NodeResult {
  const n = r.nodes.find((x) => x.path === path);
  assert.ok(n, `node ${path}`);
  return n;
}

const cm = (name: string, data?: Record<string, string>, namespace = 'team-a'): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace },
  ...(data ? { data } : {}),
});

describe('engine on compiled fixtures', () => {
  it('contagion: a, b, c excluded, d rendered into the Graph namespace', () => {
    const r = evaluate(graph('contagion'), { observed: observedFromObjects([]) });
    assert.deepEqual(
      r.nodes.map((n) => [n.id, n.state, n.excludedBy ?? null]),
      [
        ['flag', 'ready', null],
        ['a', 'excluded', 'a'],
        ['b', 'excluded', 'a'],
        ['c', 'excluded', 'b'],
        ['d', 'waiting', null],
      ],
    );
    assert.deepEqual(node(r, 'd').objects[0]!.value, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'd', namespace: 'team-a' },
    });
  });

  it('region × tier: four objects, outermost first', () => {
    const r = evaluate(graph('product'), { observed: observedFromObjects([]) });
    assert.deepEqual(
      node(r, 'apps').objects.map((o) => (o.value as { metadata: { name: string } }).metadata.name),
      ['us-east-web', 'us-east-api', 'us-west-web', 'us-west-api'],
    );
  });

  it('an empty collection is ready and its value is an empty list', () => {
    const r = evaluate(graph('empty'), { observed: observedFromObjects([]) });
    assert.equal(node(r, 'cms').state, 'ready');
    assert.deepEqual(node(r, 'count').objects[0]!.value, { n: 0 });
    assert.equal(r.ready, true);
  });

  it('optional access: orValue defaults, omit() drops the label; pending until the ref exists', () => {
    const g = graph('optional');
    assert.equal(node(evaluate(g, { observed: observedFromObjects([]) }), 'app').state, 'pending');
    const bare = evaluate(g, { observed: observedFromObjects([cm('settings', {})]) });
    assert.deepEqual(node(bare, 'app').objects[0]!.value, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'app', namespace: 'team-a', labels: {} },
      data: { level: 'info' },
    });
    const set = evaluate(g, {
      observed: observedFromObjects([cm('settings', { tier: 'gold', level: 'debug' })]),
    });
    assert.deepEqual(node(set, 'app').objects[0]!.value, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'app', namespace: 'team-a', labels: { tier: 'gold' } },
      data: { level: 'debug' },
    });
  });

  it('patch with forEach: one target per matching namespace, ready when every target exists', () => {
    const ns = (name: string, team: string): KubeObject => ({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name, labels: { team } },
    });
    const observed = observedFromObjects([
      ns('a1', 'a'),
      ns('b1', 'b'),
      ns('a2', 'a'),
      cm('settings', {}, 'a1'),
    ]);
    const r = evaluate(graph('patches'), { observed });
    const quota = node(r, 'quota');
    assert.equal(quota.patchEndpoint, 'main');
    assert.deepEqual(
      quota.objects.map((o) => o.value),
      ['a1', 'a2'].map((n) => ({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'settings', namespace: n },
        data: { owner: 'team-a' },
      })),
    );
    assert.equal(quota.state, 'waiting');
    const all = observedFromObjects([
      ns('a1', 'a'),
      ns('a2', 'a'),
      cm('settings', {}, 'a1'),
      cm('settings', {}, 'a2'),
    ]);
    assert.equal(node(evaluate(graph('patches'), { observed: all }), 'quota').state, 'ready');
  });
});
