// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * kro's scenarios for instance conditions (kro test/integration/suites/core/instance_conditions_test.go),
 * ported: the same RGD, instance and edits, the same observable assertions, in our words. The RGD lives in
 * its own API group (the shared control plane runs many suites); docs/kro-conformance.md lists the rows.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KubeObject, RestClient } from '../../../src/kube/index.ts';
import {
  applyInstance,
  applyRgd,
  cm,
  conditionOf,
  eventually,
  getInstance,
  instance,
  type RgdFixture,
  rgd,
  rgdFixture,
  stopRgdController,
  waitRgd,
  waitState,
} from '../rgd/support.ts';

type Wire = {
  type?: unknown;
  status?: unknown;
  reason?: unknown;
  message?: unknown;
  lastTransitionTime?: unknown;
};

describe('kro conformance: instance conditions', () => {
  let f: RgdFixture;
  let client: RestClient;

  before(async () => {
    f = await rgdFixture('kro-cond');
    client = f.client;
  });
  after(() => stopRgdController(f.controller));

  const configRgd = (name: string, kind: string) =>
    rgd(f, name, { kind, spec: { configData: 'string' } }, [
      { id: 'configmap', template: cm('${schema.metadata.name}', { config: '${schema.spec.configData}' }) },
    ]);

  it('an instance reconciled successfully has the hierarchical conditions, Ready=True with reason Ready', async () => {
    await applyRgd(client, configRgd('test-instance-conditions-success', 'TestInstanceConditions'));
    await waitRgd(client, 'test-instance-conditions-success', 'Ready', 'True');
    await applyInstance(
      client,
      instance(f, 'TestInstanceConditions', 'test-instance-conditions', { configData: 'test-data' }),
    );
    const active = await waitState(client, f, 'TestInstanceConditions', 'test-instance-conditions', 'ACTIVE');
    const ready = conditionOf(active, 'Ready') as (Wire & { observedGeneration?: number }) | undefined;
    assert.equal(ready?.status, 'True');
    assert.equal(ready?.reason, 'Ready');
    assert.equal(ready?.observedGeneration, active.metadata.generation);
    assert.ok(ready?.lastTransitionTime, 'lastTransitionTime is set');
    // kro's dependent conditions, in kro's words.
    const said = (t: string) => {
      const c = conditionOf(active, t) as Wire | undefined;
      return [c?.status, c?.reason, c?.message];
    };
    assert.deepEqual(said('InstanceManaged'), [
      'True',
      'Managed',
      'instance is properly managed with finalizers and labels',
    ]);
    assert.deepEqual(said('GraphResolved'), [
      'True',
      'Resolved',
      'runtime graph created and all resources resolved',
    ]);
    assert.deepEqual(said('ResourcesReady'), [
      'True',
      'AllResourcesReady',
      'all resources are created and ready',
    ]);
    const cfg = await client.get({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace: f.ns,
      name: 'test-instance-conditions',
    });
    assert.equal((cfg.data as Record<string, string>).config, 'test-data');
  });

  it('while an instance is deleted its conditions keep a valid structure, and it goes', async () => {
    await applyRgd(client, configRgd('test-instance-conditions-deletion', 'TestInstanceDeletion'));
    await waitRgd(client, 'test-instance-conditions-deletion', 'Ready', 'True');
    await applyInstance(
      client,
      instance(f, 'TestInstanceDeletion', 'test-instance-deletion', { configData: 'delete-test-data' }),
    );
    await waitState(client, f, 'TestInstanceDeletion', 'test-instance-deletion', 'ACTIVE');
    await client.delete({
      apiVersion: `${f.group}/v1alpha1`,
      kind: 'TestInstanceDeletion',
      namespace: f.ns,
      name: 'test-instance-deletion',
    });
    const seen: KubeObject[] = [];
    await eventually('instance deleted', async () => {
      const o = await getInstance(client, f, 'TestInstanceDeletion', 'test-instance-deletion');
      if (o) seen.push(o);
      return o === undefined ? true : undefined;
    });
    for (const o of seen) {
      const conds = ((o.status as { conditions?: Wire[] } | undefined)?.conditions ?? []) as Wire[];
      for (const c of conds) {
        assert.ok(c.type, 'a condition type during deletion');
        assert.ok(c.status, 'a condition status during deletion');
      }
    }
  });
});
