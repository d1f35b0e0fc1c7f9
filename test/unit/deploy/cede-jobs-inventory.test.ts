import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cededPaths, ownedByOthers, payloadAt, stripCeded, valueAt } from '../../../src/deploy/cede.ts';
import { pruneCandidates } from '../../../src/deploy/inventory.ts';
import { decideJob, jobSpecHash, SPEC_HASH } from '../../../src/deploy/jobs.ts';
import type { KubeObject } from '../../../src/kube/types.ts';

const deployment = (): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: {
    name: 'api',
    namespace: 'web',
    annotations: {
      'kix.run/cede-fields': JSON.stringify([
        'spec.replicas',
        'spec.template.spec.containers[name="app"].resources',
      ]),
    },
  },
  spec: {
    replicas: 3,
    template: {
      spec: {
        containers: [
          { name: 'app', image: 'x', resources: { limits: { cpu: '1' } } },
          { name: 'side', image: 'y', resources: {} },
        ],
      },
    },
  },
});

describe('ceded fields', () => {
  it('strips ceded paths from the intent, selecting list items by key', () => {
    const d = deployment();
    const stripped = stripCeded(d, cededPaths(d));
    const spec = stripped.spec as {
      replicas?: number;
      template: { spec: { containers: Record<string, unknown>[] } };
    };
    assert.equal(spec.replicas, undefined);
    assert.equal(spec.template.spec.containers[0]!.resources, undefined);
    assert.deepEqual(spec.template.spec.containers[1]!.resources, {}, 'other items keep the field');
    assert.equal((d.spec as { replicas: number }).replicas, 3, 'the input is not mutated');
  });

  it('builds a hand-over payload with just the ceded value', () => {
    const d = deployment();
    const [replicas] = cededPaths(d);
    assert.equal(valueAt(d, replicas!), 3);
    assert.deepEqual(payloadAt(d, replicas!, 5), {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'api', namespace: 'web' },
      spec: { replicas: 5 },
    });
  });

  it('reads ownership of a path from managedFields', () => {
    const d = deployment();
    const [replicas] = cededPaths(d);
    d.metadata.managedFields = [{ manager: 'kix', fieldsV1: { 'f:spec': { 'f:replicas': {} } } }];
    assert.equal(ownedByOthers(d, replicas!, ['kix']), false);
    d.metadata.managedFields.push({ manager: 'hpa', fieldsV1: { 'f:spec': { 'f:replicas': {} } } });
    assert.equal(ownedByOthers(d, replicas!, ['kix']), true);
  });
});

describe('job reruns', () => {
  const job = (image: string, rerun?: boolean): KubeObject => ({
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'migrate', annotations: rerun ? { 'kix.run/rerun': 'on-change' } : {} },
    spec: { template: { spec: { containers: [{ name: 'm', image }] } } },
  });
  const live = (image: string) => {
    const j = job(image);
    j.metadata.annotations = { [SPEC_HASH]: jobSpecHash(j) };
    return j;
  };

  it('applies a new or unchanged Job', () => {
    assert.equal(decideJob(job('v1'), undefined), 'apply');
    assert.equal(decideJob(job('v1'), live('v1')), 'apply');
  });
  it('reruns a changed Job annotated on-change, refuses otherwise', () => {
    assert.equal(decideJob(job('v2', true), live('v1')), 'rerun');
    assert.equal(decideJob(job('v2'), live('v1')), 'refuse');
  });
  it('hashes specs independently of key order', () => {
    const a = job('v1');
    const b: KubeObject = {
      ...a,
      spec: { template: { spec: { containers: [{ image: 'v1', name: 'm' }] } } },
    };
    assert.equal(jobSpecHash(a), jobSpecHash(b));
  });
});

describe('inventory pruning', () => {
  it('prunes entries absent from the new build, dependents first', () => {
    const e = (name: string, order: number) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace: 'n',
      name,
      hash: name,
      order,
    });
    const prev = [e('a', 0), e('b', 1), e('c', 2)];
    const cur = [e('a', 0)];
    assert.deepEqual(
      pruneCandidates(prev, cur).map((x) => x.name),
      ['c', 'b'],
    );
  });
});
