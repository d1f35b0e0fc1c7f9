import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { customInstanceConditions } from '../../../src/controller/rgd/instanceStatus.ts';
import type { CompiledGraph } from '../../../src/graph/model.ts';
import { validatePaths } from '../../../src/graph/validate.ts';
import {
  customConditionsWith,
  evaluate,
  type KubeObject,
  observedFromObjects,
} from '../../../src/runtime/index.ts';

/** Custom conditions (design/rgd.md §20.3) evaluated by the engine on a compiled RGD. */
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

  it('customConditionsWith: the same pass against built-ins known only after it, nodes not re-evaluated', () => {
    const g = compiled();
    const r = evaluate(g, { instance, observed: observedFromObjects([deployment(2)]) });
    assert.equal(r.customConditions?.conditions[1]?.status, 'Unknown', 'no built-ins during the walk');
    const after = customConditionsWith(g, instance, r, [
      { type: 'ResourcesReady', status: 'True', reason: 'AllResourcesReady', message: '' },
    ]);
    assert.deepEqual(
      after?.conditions.map((c) => [c.type, c.status]),
      [
        ['CacheAvailable', 'True'],
        ['Converged', 'True'],
      ],
    );
    assert.equal(Object.keys(r).includes('scope'), false, 'the kept scope is not part of the result data');
  });

  it('customInstanceConditions: timestamps kept, previous kept while incomplete, degraded on errors', () => {
    const prev = [
      {
        type: 'CacheAvailable',
        status: 'True' as const,
        reason: 'Replicas',
        message: 'm',
        observedGeneration: 1,
        lastTransitionTime: 't0',
      },
      {
        type: 'Converged',
        status: 'True' as const,
        reason: '',
        message: '',
        observedGeneration: 1,
        lastTransitionTime: 't0',
      },
    ];
    const now = () => 't1';
    const same = customInstanceConditions(
      prev,
      {
        conditions: [{ type: 'CacheAvailable', status: 'True', reason: 'Replicas', message: 'm' }],
        incomplete: true,
        errors: [],
      },
      2,
      now,
    );
    assert.deepEqual(
      same.conditions.map((c) => [c.type, c.lastTransitionTime, c.observedGeneration]),
      [
        ['CacheAvailable', 't0', 2],
        ['Converged', 't0', 1],
      ],
    );
    assert.equal(same.degraded, false);
    const flipped = customInstanceConditions(
      prev,
      {
        conditions: [{ type: 'CacheAvailable', status: 'False', reason: 'Replicas', message: 'm' }],
        incomplete: false,
        errors: [{ code: 'KG5001', message: 'boom', node: 'instance' }],
      },
      2,
      now,
    );
    assert.equal(flipped.conditions[0]?.lastTransitionTime, 't1');
    assert.deepEqual(
      flipped.conditions.map((c) => c.type),
      ['CacheAvailable'],
      'a failed entry is not replaced by its previous condition',
    );
    assert.equal(flipped.degraded, true);
  });

  it('customInstanceConditions: a type produced twice at run time is dropped and degrades (kro)', () => {
    const r = customInstanceConditions(
      [],
      {
        conditions: [
          { type: 'Survivor', status: 'True', reason: '', message: '' },
          { type: 'Same-demo', status: 'True', reason: '', message: '' },
          { type: 'Same-demo', status: 'False', reason: '', message: '' },
        ],
        incomplete: false,
        errors: [],
      },
      1,
      () => 't1',
    );
    assert.deepEqual(
      r.conditions.map((c) => c.type),
      ['Survivor'],
    );
    assert.equal(r.degraded, true);
  });
});
