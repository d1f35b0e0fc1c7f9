/** The built-in conditions in kro's words: the root Ready carries no message on the wire, as in kro. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { instanceConditions, instanceStatusJson } from '../../../../src/controller/rgd/instanceStatus.ts';
import { KRO_MESSAGES } from '../../../../src/controller/rgd/kroMessages.ts';
import { rgdConditions, rgdStatusJson } from '../../../../src/controller/rgd/rgdStatus.ts';

const now = () => '2026-01-01T00:00:00Z';

describe('kro condition messages', () => {
  test('an ACTIVE instance: kro messages, and Ready without a message', () => {
    const conditions = instanceConditions(
      [],
      {
        managed: { status: 'True', reason: 'Managed', message: KRO_MESSAGES.managed },
        resolved: { status: 'True', reason: 'Resolved', message: KRO_MESSAGES.resolved },
        resourcesReady: { status: 'True', reason: 'AllResourcesReady', message: KRO_MESSAGES.allReady },
      },
      1,
      now,
    );
    const json = instanceStatusJson({ fields: {}, conditions, state: 'ACTIVE' }) as {
      conditions: Record<string, unknown>[];
    };
    const byType = new Map(json.conditions.map((c) => [c.type, c]));
    assert.equal(
      byType.get('InstanceManaged')?.message,
      'instance is properly managed with finalizers and labels',
    );
    assert.equal(byType.get('GraphResolved')?.message, 'runtime graph created and all resources resolved');
    assert.equal(byType.get('ResourcesReady')?.message, 'all resources are created and ready');
    assert.equal(byType.get('Ready')?.reason, 'Ready');
    assert.equal('message' in (byType.get('Ready') ?? {}), false);
  });

  test('an Active RGD: Ready without a message, the three others in kro words', () => {
    const conditions = rgdConditions(
      [],
      {
        accepted: { status: 'True', reason: 'Valid', message: KRO_MESSAGES.graphAccepted },
        kind: { status: 'True', reason: 'Ready', message: KRO_MESSAGES.kindReady('App') },
        controller: { status: 'True', reason: 'Running', message: KRO_MESSAGES.controllerRunning },
      },
      1,
      now,
    );
    const json = rgdStatusJson({ state: 'Active', topologicalOrder: [], resources: [], conditions }) as {
      conditions: Record<string, unknown>[];
    };
    const ready = json.conditions.find((c) => c.type === 'Ready');
    assert.deepEqual(ready, {
      type: 'Ready',
      status: 'True',
      reason: 'Ready',
      observedGeneration: 1,
      lastTransitionTime: now(),
    });
    assert.equal(KRO_MESSAGES.kindReady('App'), 'kind App has been accepted and ready');
  });
});
