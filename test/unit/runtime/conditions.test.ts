import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { CompiledGraph } from '../../../src/graph/model.ts';
import { validatePaths } from '../../../src/graph/validate.ts';
import { evaluate, type KubeObject, observedFromObjects } from '../../../src/runtime/index.ts';

/** Custom conditions (graph-semantics.md §20.3) evaluated by the engine on a compiled RGD. */
const file = join(import.meta.dirname, '../graph/compat/04-custom-conditions.yaml');

function compiled(): CompiledGraph {
  const result = validatePaths([file]);
  const o = result.objects[0]!;
  assert.ok(o.accepted && result.results[0]!.graph, o.diagnostics.map((d) => d.message).join('; '));
  return result.results[0]!.graph;
}

const instance: KubeObject = {
  apiVersion: 'kro.run/v1alpha1',
  kind: 'CacheCluster',
  metadata: { name: 'c1', namespace: 'team-a' },
  spec: { replicas: 2 },
  status: { conditions: [{ type: 'Ready', status: 'False' }] },
};

function deployment(readyReplicas?: number): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'c1-cache', namespace: 'team-a' },
    spec: { replicas: 2 },
    ...(readyReplicas === undefined ? {} : { status: { readyReplicas } }),
  };
}

describe('custom conditions', () => {
  it('evaluates each entry into a condition and reads built-ins through runtime.condition(schema, …)', () => {
    const r = evaluate(compiled(), {
      instance,
      observed: observedFromObjects([deployment(2)]),
      builtinConditions: [{ type: 'ResourcesReady', status: 'True', reason: 'AllResourcesReady' }],
    });
    assert.deepEqual(r.customConditions, {
      conditions: [
        { type: 'CacheAvailable', status: 'True', reason: 'Replicas', message: 'ready replicas: 2' },
        { type: 'Converged', status: 'True', reason: '', message: '' },
      ],
      incomplete: false,
      errors: [],
    });
    // The conditions are not part of the projected status fields.
    assert.equal(Object.hasOwn(r.status ?? {}, 'conditions'), false);
    assert.equal(r.status?.readyReplicas, 2);
  });

  it('without built-ins, runtime.condition finds nothing and the instance status is not read', () => {
    const r = evaluate(compiled(), { instance, observed: observedFromObjects([deployment(0)]) });
    assert.deepEqual(
      r.customConditions?.conditions.map((c) => [c.type, c.status]),
      [
        ['CacheAvailable', 'False'],
        ['Converged', 'Unknown'],
      ],
    );
  });

  it('an entry whose resource is not observed yet is pending: incomplete, the other entries still evaluate', () => {
    const r = evaluate(compiled(), { instance, observed: observedFromObjects([]) });
    assert.equal(r.customConditions?.incomplete, true);
    assert.deepEqual(
      r.customConditions?.conditions.map((c) => c.type),
      ['Converged'],
    );
  });
});
