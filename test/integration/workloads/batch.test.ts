/**
 * Jobs and CronJobs on the real job and cronjob controllers, with KWOK playing the kubelet (a pod
 * owned by a Job is reported Succeeded once Running): a Job completes, a parallel Job completes all
 * its completions, a CronJob creates Jobs that complete, and ttlSecondsAfterFinished deletes a
 * finished Job.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { KubeObject } from '../../../src/kube/types.ts';
import { eventually } from '../../support/kube.ts';
import { conditionStatus, field, num, podTemplate, type WorkloadEnv, workloadEnv } from './support.ts';

function job(ns: string, name: string, spec: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name, namespace: ns },
    spec: { template: podTemplate({ job: name }, { restartPolicy: 'Never' }), ...spec },
  };
}

const jobTarget = (ns: string, name: string) => ({
  apiVersion: 'batch/v1',
  kind: 'Job',
  namespace: ns,
  name,
});

describe('Jobs and CronJobs on the workload plane', () => {
  let w: WorkloadEnv;
  before(async () => {
    w = await workloadEnv();
  });

  it('a Job completes: Complete=True, succeeded 1, its pod Succeeded', async () => {
    const ns = await w.namespace('wl-job');
    await w.client.create(job(ns, 'migrate'));
    const done = await eventually('the Job to complete', async () => {
      const j = await w.client.get(jobTarget(ns, 'migrate'));
      return conditionStatus(j, 'Complete') === 'True' ? j : undefined;
    });
    assert.equal(num(field(done, 'status', 'succeeded')), 1);
    assert.ok(field(done, 'status', 'completionTime'), 'the job controller records completionTime');
    const pods = await w.client.list(
      { apiVersion: 'v1', kind: 'Pod', namespace: ns },
      { labelSelector: 'job=migrate' },
    );
    assert.deepEqual(
      pods.items.map((p) => field(p, 'status', 'phase')),
      ['Succeeded'],
    );
  });

  it('a Job with completions 3 and parallelism 2 completes all three', async () => {
    const ns = await w.namespace('wl-job-par');
    await w.client.create(job(ns, 'batch', { completions: 3, parallelism: 2 }));
    const done = await eventually('the Job to complete', async () => {
      const j = await w.client.get(jobTarget(ns, 'batch'));
      return conditionStatus(j, 'Complete') === 'True' ? j : undefined;
    });
    assert.equal(num(field(done, 'status', 'succeeded')), 3);
  });

  it('a CronJob creates a Job on schedule, and that Job completes', async () => {
    const ns = await w.namespace('wl-cron');
    await w.client.create({
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: { name: 'tick', namespace: ns },
      spec: {
        schedule: '* * * * *',
        jobTemplate: { spec: { template: podTemplate({ cron: 'tick' }, { restartPolicy: 'Never' }) } },
      },
    });
    // The schedule fires at the next whole minute: up to 60 s plus the controller's pass.
    const created = await eventually(
      'a Job owned by the CronJob',
      async () => {
        const jobs = await w.client.list({ apiVersion: 'batch/v1', kind: 'Job', namespace: ns });
        return jobs.items.find((j) => j.metadata.ownerReferences?.some((o) => o.kind === 'CronJob'));
      },
      90_000,
      500,
    );
    assert.match(created.metadata.name ?? '', /^tick-\d+$/);
    await eventually('the scheduled Job to complete', async () => {
      const j = await w.client.get(jobTarget(ns, created.metadata.name ?? ''));
      return conditionStatus(j, 'Complete') === 'True' ? j : undefined;
    });
    const cron = await eventually('the CronJob to record the run', async () => {
      const c = await w.client.get({ apiVersion: 'batch/v1', kind: 'CronJob', namespace: ns, name: 'tick' });
      return field(c, 'status', 'lastSuccessfulTime') ? c : undefined;
    });
    assert.ok(field(cron, 'status', 'lastScheduleTime'));
  });

  it('ttlSecondsAfterFinished deletes a finished Job', async () => {
    const ns = await w.namespace('wl-ttl');
    await w.client.create(job(ns, 'short', { ttlSecondsAfterFinished: 0 }));
    await eventually('the finished Job to be deleted', async () =>
      (await w.client.getOrUndefined(jobTarget(ns, 'short'))) === undefined ? true : undefined,
    );
  });
});
