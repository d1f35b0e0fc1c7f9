// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * kro's reconcile-error metric scenario (kro reconcile_error_metrics_test.go), ported: an instance whose
 * ConfigMap targets a namespace that does not exist fails every apply and says so in its conditions, and
 * `instance_reconcile_errors_total{gvr}` (kro's name and label) does not count those retried failures,
 * while `instance_reconcile_total{gvr}` counts the passes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { gvrLabel } from '../../../src/controller/rgd/instanceMetrics.ts';
import type { KubeObject, RestClient } from '../../../src/kube/index.ts';
import { uniqueName } from '../../support/controlPlane.ts';
import {
  applyInstance,
  applyRgd,
  eventually,
  getInstance,
  instance,
  type RgdFixture,
  rgd,
  rgdFixture,
  stopRgdController,
  waitRgd,
} from '../rgd/support.ts';
import { holdsFor } from './support.ts';

describe('kro conformance: reconcile error metrics', () => {
  let f: RgdFixture;
  let client: RestClient;

  before(async () => {
    f = await rgdFixture('kro-errmetric');
    client = f.client;
  });
  after(() => stopRgdController(f.controller));

  /** A series of the controller's kro registry for one gvr (0 before its first increment). */
  const series = async (name: string, gvr: string): Promise<number> => {
    const values = (await f.controller.revisionSeries.getSingleMetric(name)?.get())?.values ?? [];
    return values.find((v) => v.labels.gvr === gvr)?.value ?? 0;
  };
  const conditionsText = (o: KubeObject | undefined): string =>
    JSON.stringify((o?.status as { conditions?: unknown } | undefined)?.conditions ?? []);

  it('does not count a retryable resource apply failure as a reconcile error', async () => {
    const kind = 'TestReconcileErrorMetric';
    const missing = uniqueName('does-not-exist');
    await applyRgd(
      client,
      rgd(f, 'test-reconcile-error-metric', { kind, spec: { name: 'string' } }, [
        {
          id: 'cm',
          template: {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: '${schema.spec.name}-cm', namespace: missing },
            data: { managed: 'yes' },
          },
        },
      ]),
    );
    await waitRgd(client, 'test-reconcile-error-metric', 'Ready', 'True');
    const gvr = gvrLabel({ group: f.group, version: 'v1alpha1', plural: 'testreconcileerrormetrics' });
    const errorsBefore = await series('instance_reconcile_errors_total', gvr);
    const passesBefore = await series('instance_reconcile_total', gvr);

    const name = 'reconcile-error-metric';
    await applyInstance(client, instance(f, kind, name, { name }));
    // The failure is visible to the user, or this would pass because nothing happened.
    await eventually(
      'the failing apply in the conditions',
      async () =>
        conditionsText(await getInstance(client, f, kind, name)).includes('does-not-exist')
          ? true
          : undefined,
      60_000,
    );

    // Several passes later the error counter has not moved; the pass counter has.
    await holdsFor(
      'instance_reconcile_errors_total unchanged',
      async () => (await series('instance_reconcile_errors_total', gvr)) === errorsBefore,
      20_000,
    );
    const passes = (await series('instance_reconcile_total', gvr)) - passesBefore;
    assert.ok(passes >= 2, `passes counted: ${passes}`);
  });
});
