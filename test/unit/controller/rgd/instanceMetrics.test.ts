import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { gvrLabel, instanceMetrics } from '../../../../src/controller/rgd/instanceMetrics.ts';

const api = { group: 'kro.run', version: 'v1alpha1', plural: 'webapps' };

describe('kro instance reconcile series', () => {
  it('labels a kind as Go prints a GroupVersionResource', () => {
    assert.equal(gvrLabel(api), 'kro.run/v1alpha1, Resource=webapps');
  });

  it('counts every pass and only thrown passes as errors', async () => {
    const registry = new Registry();
    const m = instanceMetrics(registry);
    for (const outcome of ['converged', 'waiting', 'failed', 'error']) m.observe(api, outcome, 0.2);
    const text = await registry.metrics();
    const gvr = 'gvr="kro.run/v1alpha1, Resource=webapps"';
    assert.match(text, new RegExp(`^instance_reconcile_total\\{${gvr}\\} 4$`, 'm'));
    assert.match(text, new RegExp(`^instance_reconcile_errors_total\\{${gvr}\\} 1$`, 'm'));
    assert.match(text, new RegExp(`^instance_reconcile_duration_seconds_count\\{${gvr}\\} 4$`, 'm'));
  });
});
