// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applyDefaults } from '../../../src/runtime/defaults.ts';
import { simulate } from '../../../src/runtime/simulate.ts';
import { buildGraph } from './support/buildGraph.ts';

describe('simulate (render --until-converged)', () => {
  const g = buildGraph([
    {
      id: 'db',
      kind: 'template',
      readyWhen: ["${db.status.?phase.orValue('') == 'Ready'}"],
      payload: {
        apiVersion: 'example.com/v1',
        kind: 'Database',
        metadata: { name: 'db' },
        spec: { size: 1 },
      },
    },
    {
      id: 'cfg',
      kind: 'template',
      payload: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'cfg' },
        data: { db: '${db.status.phase}' },
      },
    },
    {
      id: 'mark',
      kind: 'patch',
      payload: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg', labels: { marked: 'yes' } } },
    },
  ]);

  it('echoes desired objects with the status from the state until nothing changes', () => {
    const state = [
      {
        apiVersion: 'example.com/v1',
        kind: 'Database',
        metadata: { name: 'db', namespace: 'default' },
        status: { phase: 'Ready' },
      },
    ];
    const r = simulate(g, { state, untilConverged: true });
    assert.equal(r.converged, true);
    assert.deepEqual(
      r.output.nodes.map((n) => [n.id, n.state]),
      [
        ['db', 'ready'],
        ['cfg', 'ready'],
        ['mark', 'ready'],
      ],
    );
    assert.deepEqual(r.output.nodes[1]!.objects[0], {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'cfg', namespace: 'default' },
      data: { db: 'Ready' },
    });
    assert.equal(r.output.passes, r.passes);
    assert.ok(r.passes >= 3);
  });

  it('without status in the state, readiness and the data that depends on it never arrive', () => {
    const r = simulate(g, { state: [], untilConverged: true });
    assert.equal(r.converged, true);
    assert.deepEqual(
      r.output.nodes.map((n) => [n.id, n.state]),
      [
        ['db', 'waiting'],
        ['cfg', 'pending'],
        ['mark', 'waiting'],
      ],
    );
    assert.match(r.output.nodes[1]!.reason!, /db\.status/);
  });

  it('a single pass reports exactly one pass and no pass count in the output', () => {
    const r = simulate(g, { state: [] });
    assert.equal(r.passes, 1);
    assert.equal(r.output.passes, undefined);
  });
});

describe('instance defaults', () => {
  it('fills defaults, descends into present and defaulted objects, lists and maps', () => {
    const schema = {
      type: 'object' as const,
      properties: {
        name: { type: 'string' as const, default: 'web' },
        replicas: { type: 'integer' as const, default: 2 },
        ingress: {
          type: 'object' as const,
          default: {},
          properties: { enabled: { type: 'boolean' as const, default: false } },
        },
        ports: {
          type: 'array' as const,
          items: {
            type: 'object' as const,
            properties: { protocol: { type: 'string' as const, default: 'TCP' } },
          },
        },
        env: {
          type: 'object' as const,
          additionalProperties: {
            type: 'object' as const,
            properties: { secret: { type: 'boolean' as const, default: false } },
          },
        },
      },
    };
    const input = { replicas: 5, ports: [{ port: 80 }], env: { A: {} } };
    assert.deepEqual(applyDefaults(input, schema), {
      name: 'web',
      replicas: 5,
      ingress: { enabled: false },
      ports: [{ port: 80, protocol: 'TCP' }],
      env: { A: { secret: false } },
    });
    assert.deepEqual(input, { replicas: 5, ports: [{ port: 80 }], env: { A: {} } }, 'input not mutated');
  });
});
