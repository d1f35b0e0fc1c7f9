/**
 * Reading a registration's kubeconfig Secret (design/planes.md §3.3) on the real API server: a Secret that
 * does not exist, and one without the named key, are refused as KubeconfigInvalid naming the Secret
 * as every kgraph message names an object (`secret/NAME -n NS`, src/diag/objectName.ts), so the name
 * can be pasted after `kubectl get`; a Secret with the key is read.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readKubeconfig } from '../../../src/controller/planes/connect.ts';
import type { KubeObject } from '../../../src/kube/index.ts';
import { adminClient, testNamespace } from '../../support/kube.ts';

const registration = (secretName: string, key?: string): KubeObject => ({
  apiVersion: 'krop.opendefense.cloud/v1alpha1',
  kind: 'ConsumerCluster',
  metadata: { name: 'c' },
  spec: { kubeconfigSecretRef: { name: secretName, ...(key ? { key } : {}) } },
});

describe('readKubeconfig', () => {
  it('names a missing Secret, and one without the key, kubectl-style; reads one that has it', async () => {
    const admin = await adminClient();
    const ns = await testNamespace('connect');

    const missing = await readKubeconfig(admin, ns, registration('absent'));
    assert.equal(missing.ok, false);
    if (!missing.ok) {
      assert.equal(missing.reason, 'KubeconfigInvalid');
      assert.equal(missing.message, `secret/absent -n ${ns} does not exist`);
    }

    await admin.create({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'reg', namespace: ns },
      data: { kubeconfig: Buffer.from('apiVersion: v1\nkind: Config\n').toString('base64') },
    });
    const noKey = await readKubeconfig(admin, ns, registration('reg', 'other'));
    assert.equal(noKey.ok, false);
    if (!noKey.ok) {
      assert.equal(noKey.reason, 'KubeconfigInvalid');
      assert.equal(noKey.message, `secret/reg -n ${ns} has no key other`);
    }

    const found = await readKubeconfig(admin, ns, registration('reg'));
    assert.equal(found.ok, true);
    if (found.ok) assert.equal(found.text, 'apiVersion: v1\nkind: Config\n');
  });
});
