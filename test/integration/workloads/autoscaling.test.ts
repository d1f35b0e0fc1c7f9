/**
 * kube-controller-manager controllers a default kind cluster runs besides the workload ones
 * (tools/kube-testenv/README.md): the horizontal-pod-autoscaler raises a Deployment to minReplicas
 * without a metrics server, and the resource-quota controller reports usage.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { eventually } from '../../support/kube.ts';
import { deployment, field, num, rolledOut, type WorkloadEnv, workloadEnv } from './support.ts';

describe('autoscaling and quota controllers on the workload plane', () => {
  let w: WorkloadEnv;
  before(async () => {
    w = await workloadEnv();
  });

  it('a Deployment behind an HPA with minReplicas 2 reaches 2 replicas', async () => {
    const ns = await w.namespace('hpa');
    await w.client.create(deployment(ns, 'web', 1));
    await rolledOut(w.client, ns, 'web', 1);
    await w.client.create({
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'web', namespace: ns },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
        minReplicas: 2,
        maxReplicas: 4,
        metrics: [
          {
            type: 'Resource',
            resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } },
          },
        ],
      },
    });
    const d = await rolledOut(w.client, ns, 'web', 2, 90_000);
    assert.equal(field(d, 'spec', 'replicas'), 2);
    const hpa = await w.client.get({
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      namespace: ns,
      name: 'web',
    });
    assert.equal(num(field(hpa, 'status', 'desiredReplicas')), 2);
  });

  it('a ResourceQuota reports what the namespace uses', async () => {
    const ns = await w.namespace('quota');
    await w.client.create({
      apiVersion: 'v1',
      kind: 'ResourceQuota',
      metadata: { name: 'q', namespace: ns },
      spec: { hard: { configmaps: '10' } },
    });
    // The controller first copies spec.hard into status; only then does admission count what is created
    // (a ConfigMap created before that is counted at the controller's next recount, whenever its
    // ConfigMap monitor has synced: under load, later than this test waits).
    await eventually('quota status written', async () => {
      const q = await w.client.get({ apiVersion: 'v1', kind: 'ResourceQuota', namespace: ns, name: 'q' });
      return field(q, 'status', 'hard', 'configmaps') === '10' ? q : undefined;
    });
    await w.client.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'one', namespace: ns } });
    let last: unknown;
    await eventually('quota usage reported', async () => {
      const q = await w.client.get({ apiVersion: 'v1', kind: 'ResourceQuota', namespace: ns, name: 'q' });
      last = q.status;
      const used = Number(field(q, 'status', 'used', 'configmaps'));
      return field(q, 'status', 'hard', 'configmaps') === '10' && used >= 1 ? q : undefined;
    }).catch((e) => {
      throw new Error(`${(e as Error).message}; last status: ${JSON.stringify(last)}`);
    });
  });
});
