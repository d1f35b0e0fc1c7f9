import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readinessOf } from '../../../src/deploy/readiness.ts';
import type { KubeObject } from '../../../src/kube/types.ts';

const obj = (apiVersion: string, kind: string, rest: Partial<KubeObject> = {}): KubeObject => ({
  apiVersion,
  kind,
  metadata: { name: 'x', ...(rest.metadata ?? {}) },
  ...rest,
});

describe('readiness per kind', () => {
  it('a missing object is not ready', () => {
    assert.deepEqual(readinessOf(undefined), { ready: false, reason: 'not found' });
  });

  it('Deployment: ready only when the rollout is observed, updated and available', () => {
    const d = (status: object, gen = 2) =>
      obj('apps/v1', 'Deployment', {
        metadata: { name: 'x', generation: gen },
        spec: { replicas: 2 },
        status,
      });
    assert.equal(readinessOf(d({ observedGeneration: 1 })).ready, false);
    assert.equal(
      readinessOf(d({ observedGeneration: 2, updatedReplicas: 2, availableReplicas: 1 })).ready,
      false,
    );
    const full = { observedGeneration: 2, updatedReplicas: 2, availableReplicas: 2 };
    assert.equal(readinessOf(d(full)).ready, false, 'Available condition required');
    assert.equal(
      readinessOf(d({ ...full, conditions: [{ type: 'Available', status: 'True' }] })).ready,
      true,
    );
  });

  it('Deployment past its progress deadline fails fast', () => {
    const r = readinessOf(
      obj('apps/v1', 'Deployment', {
        status: {
          conditions: [{ type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded' }],
        },
      }),
    );
    assert.equal(r.ready, false);
    assert.match(r.failed ?? '', /rollout stuck/);
  });

  it('Job: Complete is ready, Failed fails fast', () => {
    assert.equal(readinessOf(obj('batch/v1', 'Job', { status: {} })).ready, false);
    assert.equal(
      readinessOf(obj('batch/v1', 'Job', { status: { conditions: [{ type: 'Complete', status: 'True' }] } }))
        .ready,
      true,
    );
    const failed = readinessOf(
      obj('batch/v1', 'Job', {
        status: { conditions: [{ type: 'Failed', status: 'True', message: 'BackoffLimitExceeded' }] },
      }),
    );
    assert.match(failed.failed ?? '', /BackoffLimitExceeded/);
  });

  it('StatefulSet and DaemonSet follow their replica counts; a DaemonSet with no nodes is ready', () => {
    const sts = obj('apps/v1', 'StatefulSet', {
      spec: { replicas: 1 },
      status: { readyReplicas: 1, currentReplicas: 1, currentRevision: 'a', updateRevision: 'b' },
    });
    assert.equal(readinessOf(sts).ready, false);
    (sts.status as Record<string, unknown>).updateRevision = 'a';
    assert.equal(readinessOf(sts).ready, true);
    assert.equal(
      readinessOf(obj('apps/v1', 'DaemonSet', { status: { desiredNumberScheduled: 0 } })).ready,
      true,
    );
    assert.equal(
      readinessOf(
        obj('apps/v1', 'DaemonSet', {
          status: { desiredNumberScheduled: 2, numberReady: 1, updatedNumberScheduled: 2 },
        }),
      ).ready,
      false,
    );
  });

  it('Service: LoadBalancer waits for ingress, others on existence', () => {
    assert.equal(readinessOf(obj('v1', 'Service', { spec: { type: 'ClusterIP' } })).ready, true);
    assert.equal(
      readinessOf(obj('v1', 'Service', { spec: { type: 'LoadBalancer' }, status: {} })).ready,
      false,
    );
    assert.equal(
      readinessOf(
        obj('v1', 'Service', {
          spec: { type: 'LoadBalancer' },
          status: { loadBalancer: { ingress: [{ ip: '1.2.3.4' }] } },
        }),
      ).ready,
      true,
    );
  });

  it('CRD needs Established and NamesAccepted', () => {
    const crd = (est: string) =>
      obj('apiextensions.k8s.io/v1', 'CustomResourceDefinition', {
        status: {
          conditions: [
            { type: 'Established', status: est },
            { type: 'NamesAccepted', status: 'True' },
          ],
        },
      });
    assert.equal(readinessOf(crd('False')).ready, false);
    assert.equal(readinessOf(crd('True')).ready, true);
  });

  it('kix.run/readiness predicates: condition, path equals, path notEquals', () => {
    const cr = (annotation: object, status: object) =>
      obj('example.com/v1', 'Widget', {
        metadata: { name: 'w', annotations: { 'kix.run/readiness': JSON.stringify(annotation) } },
        status,
      });
    const cond = { condition: { type: 'Synced', status: 'True' } };
    assert.equal(readinessOf(cr(cond, { conditions: [{ type: 'Synced', status: 'False' }] })).ready, false);
    assert.equal(readinessOf(cr(cond, { conditions: [{ type: 'Synced', status: 'True' }] })).ready, true);
    assert.equal(
      readinessOf(cr({ path: '/status/phase', equals: 'Running' }, { phase: 'Pending' })).ready,
      false,
    );
    assert.equal(
      readinessOf(cr({ path: '/status/phase', equals: 'Running' }, { phase: 'Running' })).ready,
      true,
    );
    assert.equal(readinessOf(cr({ path: '/status/rev', notEquals: '' }, { rev: '' })).ready, false);
    assert.equal(readinessOf(cr({ path: '/status/rev', notEquals: '' }, {})).ready, false);
    assert.equal(readinessOf(cr({ path: '/status/rev', notEquals: '' }, { rev: 'abc' })).ready, true);
  });

  it('a custom resource without a predicate uses its Ready condition, else existence', () => {
    assert.equal(
      readinessOf(
        obj('example.com/v1', 'Widget', { status: { conditions: [{ type: 'Ready', status: 'False' }] } }),
      ).ready,
      false,
    );
    assert.equal(readinessOf(obj('example.com/v1', 'Widget')).ready, true);
  });

  it('PVC waits for Bound', () => {
    assert.equal(
      readinessOf(obj('v1', 'PersistentVolumeClaim', { status: { phase: 'Pending' } })).ready,
      false,
    );
    assert.equal(readinessOf(obj('v1', 'PersistentVolumeClaim', { status: { phase: 'Bound' } })).ready, true);
  });
});
