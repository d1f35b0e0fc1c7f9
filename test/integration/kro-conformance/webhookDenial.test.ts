// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * kro's admission-denial scenario (kro webhook_denial_test.go), ported: a ValidatingAdmissionPolicy refuses
 * the instance's ConfigMap; the instance says so (state ERROR, ResourcesReady=False with the policy's
 * message) and becomes ACTIVE once the policy is gone and the instance is touched.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KubeObject, RestClient } from '../../../src/kube/index.ts';
import { uniqueName } from '../../support/controlPlane.ts';
import {
  applyInstance,
  applyRgd,
  conditionOf,
  eventually,
  instance,
  type RgdFixture,
  rgd,
  rgdFixture,
  stopRgdController,
  waitRgd,
  waitState,
} from '../rgd/support.ts';
import { cmRef, present } from './support.ts';

const VAP = 'admissionregistration.k8s.io/v1';

describe('kro conformance: admission denial', () => {
  let f: RgdFixture;
  let client: RestClient;

  before(async () => {
    f = await rgdFixture('kro-webhook');
    client = f.client;
    await client.patch(
      { apiVersion: 'v1', kind: 'Namespace', name: f.ns },
      { metadata: { labels: { 'test-webhook': 'true' } } },
      { type: 'merge' },
    );
  });
  after(() => stopRgdController(f.controller));

  it('reports the denial in status and recovers when the policy is removed', async () => {
    const policyName = uniqueName('deny-configmap');
    const bindingName = uniqueName('deny-configmap-binding');
    const policy = { apiVersion: VAP, kind: 'ValidatingAdmissionPolicy', name: policyName };
    const binding = { apiVersion: VAP, kind: 'ValidatingAdmissionPolicyBinding', name: bindingName };
    await client.create({
      apiVersion: VAP,
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: policyName },
      spec: {
        failurePolicy: 'Fail',
        matchConstraints: {
          resourceRules: [
            {
              operations: ['CREATE', 'UPDATE'],
              apiGroups: [''],
              apiVersions: ['v1'],
              resources: ['configmaps'],
            },
          ],
        },
        validations: [
          {
            expression: "object.metadata.annotations['deny-me'] != 'true'",
            message: 'ConfigMaps with annotation deny-me=true are not allowed by webhook policy',
          },
        ],
      },
    } as unknown as KubeObject);
    await client.create({
      apiVersion: VAP,
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: { name: bindingName },
      spec: {
        policyName,
        validationActions: ['Deny'],
        matchResources: { namespaceSelector: { matchLabels: { 'test-webhook': 'true' } } },
      },
    } as unknown as KubeObject);
    try {
      // The API server takes the policy into effect asynchronously: wait until it refuses a probe.
      let refusal = '';
      await eventually(
        'the policy refuses a ConfigMap',
        async () => {
          try {
            await client.create({
              apiVersion: 'v1',
              kind: 'ConfigMap',
              metadata: { name: 'probe', namespace: f.ns, annotations: { 'deny-me': 'true' } },
            } as KubeObject);
            await client.delete(cmRef(f.ns, 'probe'));
            return undefined;
          } catch (e) {
            refusal = (e as Error).message;
            return refusal.includes('not allowed by webhook policy') ? true : undefined;
          }
        },
        30_000,
      ).catch((e: Error) => {
        throw new Error(`${e.message}; last: ${refusal}`);
      });
      await applyRgd(
        client,
        rgd(f, 'test-webhook-denial', { kind: 'TestWebhookDenial', spec: { name: 'string' } }, [
          {
            id: 'configmap',
            template: {
              apiVersion: 'v1',
              kind: 'ConfigMap',
              metadata: { name: '${schema.spec.name}', annotations: { 'deny-me': 'true' } },
              data: { key: 'value' },
            },
          },
        ]),
      );
      assert.equal(
        ((await waitRgd(client, 'test-webhook-denial', 'Ready', 'True')).status as { state?: string }).state,
        'Active',
      );
      const name = 'test-webhook-instance';
      await applyInstance(client, instance(f, 'TestWebhookDenial', name, { name }));
      const denied = await waitState(client, f, 'TestWebhookDenial', name, 'ERROR', (o) =>
        (conditionOf(o, 'ResourcesReady')?.message ?? '').includes('not allowed by webhook policy'),
      );
      assert.equal(conditionOf(denied, 'ResourcesReady')?.status, 'False');
    } finally {
      await client.delete(binding).catch(() => undefined);
      await client.delete(policy).catch(() => undefined);
    }
    const name = 'test-webhook-instance';
    await client.patch(
      { apiVersion: `${f.group}/v1alpha1`, kind: 'TestWebhookDenial', namespace: f.ns, name },
      { metadata: { labels: { 'trigger-reconcile': 'true' } } },
      { type: 'merge' },
    );
    await waitState(client, f, 'TestWebhookDenial', name, 'ACTIVE');
    await present(client, cmRef(f.ns, name));
  });
});
