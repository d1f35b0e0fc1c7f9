/**
 * Cluster housekeeping on the workload plane: deleting a namespace whose pods are running finishes
 * (the namespace controller deletes the pods, KWOK finalises them as a kubelet would), and the
 * service-account controllers do their part: a `default` ServiceAccount and the `kube-root-ca.crt`
 * ConfigMap in every namespace, and a legacy token Secret filled with a token the apiserver accepts.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { KubeConfig } from '../../../src/kube/kubeconfig.ts';
import { RestClient } from '../../../src/kube/rest.ts';
import { workloadControlPlane } from '../../support/controlPlane.ts';
import { eventually } from '../../support/kube.ts';
import { deployment, field, pods, rolledOut, type WorkloadEnv, workloadEnv } from './support.ts';

describe('namespaces and service accounts on the workload plane', () => {
  let w: WorkloadEnv;
  before(async () => {
    w = await workloadEnv();
  });

  it('deleting a namespace with running pods finishes', async () => {
    const ns = await w.namespace('wl-nsdel');
    await w.client.create(deployment(ns, 'busy', 3));
    await rolledOut(w.client, ns, 'busy', 3);
    assert.equal((await pods(w.client, ns)).length, 3);
    await w.client.delete({ apiVersion: 'v1', kind: 'Namespace', name: ns });
    await eventually(
      'the namespace to be gone',
      async () =>
        (await w.client.getOrUndefined({ apiVersion: 'v1', kind: 'Namespace', name: ns })) === undefined
          ? true
          : undefined,
      90_000,
      250,
    );
  });

  it('a new namespace gets a default ServiceAccount and the kube-root-ca.crt ConfigMap', async () => {
    const ns = await w.namespace('wl-sa');
    await eventually('the default ServiceAccount', () =>
      w.client.getOrUndefined({ apiVersion: 'v1', kind: 'ServiceAccount', namespace: ns, name: 'default' }),
    );
    const ca = await eventually('kube-root-ca.crt', () =>
      w.client.getOrUndefined({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        namespace: ns,
        name: 'kube-root-ca.crt',
      }),
    );
    assert.match(String(field(ca, 'data', 'ca.crt')), /BEGIN CERTIFICATE/);
  });

  it('a ServiceAccount token Secret is filled with a token the apiserver authenticates', async () => {
    const ns = await w.namespace('wl-token');
    await w.client.create({
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: 'robot', namespace: ns },
    });
    await w.client.create({
      apiVersion: 'v1',
      kind: 'Secret',
      type: 'kubernetes.io/service-account-token',
      metadata: {
        name: 'robot-token',
        namespace: ns,
        annotations: { 'kubernetes.io/service-account.name': 'robot' },
      },
    });
    const secret = await eventually('the token controller to fill the Secret', async () => {
      const s = await w.client.get({ apiVersion: 'v1', kind: 'Secret', namespace: ns, name: 'robot-token' });
      return field(s, 'data', 'token') ? s : undefined;
    });
    assert.ok(field(secret, 'data', 'ca.crt'), 'the Secret carries the root CA');
    const token = Buffer.from(String(field(secret, 'data', 'token')), 'base64').toString('utf8');

    const cp = await workloadControlPlane();
    const cluster = cp.kc.getCurrentCluster();
    assert.ok(cluster);
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ ...cluster, name: 'plane' }],
      users: [{ name: 'robot', token }],
      contexts: [{ name: 'robot', cluster: 'plane', user: 'robot' }],
      currentContext: 'robot',
    });
    const asRobot = new RestClient(kc);
    try {
      const review = await asRobot.request({
        method: 'POST',
        path: '/apis/authentication.k8s.io/v1/selfsubjectreviews',
        body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
      });
      assert.equal(field(review, 'status', 'userInfo', 'username'), `system:serviceaccount:${ns}:robot`);
    } finally {
      asRobot.close();
    }
  });
});
