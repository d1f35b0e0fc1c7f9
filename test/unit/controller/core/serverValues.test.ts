/** What the API server stores for what we apply (serverValues.ts) and its use by appliedFieldsAgree. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sameStored } from '../../../../src/controller/core/applyMemory.ts';
import { appliedFieldsAgree } from '../../../../src/controller/core/applyNeeded.ts';
import {
  isEmptyContainer,
  observedAsApplied,
  storedScalarEqual,
} from '../../../../src/controller/core/serverValues.ts';

const M = 'kro-graphengine.tmpl.abc';
const managed = (apiVersion: string, fieldsV1: Record<string, unknown>) => [
  { manager: M, operation: 'Apply', apiVersion, fieldsType: 'FieldsV1', fieldsV1 },
];

describe('stored scalar equality', () => {
  it('equates quantity spellings the server canonicalises', () => {
    for (const [d, o] of [
      ['1000m', '1'],
      [0.5, '500m'],
      [2, '2'],
      [2n, '2'],
      ['1024Mi', '1Gi'],
      ['0.25Gi', '256Mi'],
      ['1e9', '1G'],
      ['1.0', '1'],
    ] as const) {
      assert.equal(storedScalarEqual(d, o), true, `${String(d)} ~ ${o}`);
    }
  });
  it('keeps different values, non-quantities and numbers against non-numeric strings apart', () => {
    assert.equal(storedScalarEqual('1000m', '2'), false);
    assert.equal(storedScalarEqual('abc', 'abd'), false);
    assert.equal(storedScalarEqual(80, 'http'), false);
    assert.equal(storedScalarEqual('80', 80), false, 'a string never becomes a number');
    assert.equal(storedScalarEqual(true, 'true'), false);
    assert.equal(storedScalarEqual(3n, 3), true);
  });
  it('knows empty containers', () => {
    assert.equal(isEmptyContainer({}), true);
    assert.equal(isEmptyContainer([]), true);
    assert.equal(isEmptyContainer({ a: 1 }), false);
    assert.equal(isEmptyContainer(''), false);
  });
});

describe('write-only and rewritten fields in the nothing-changed check', () => {
  const secretFields = { 'f:stringData': { '.': {}, 'f:password': {} }, 'f:type': {} };
  const secret = (password: string) => ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 's', namespace: 'n', managedFields: managed('v1', secretFields) },
    data: { password: Buffer.from(password).toString('base64') },
    type: 'Opaque',
  });
  const desired = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 's', namespace: 'n' },
    stringData: { password: 'pw' },
    type: 'Opaque',
  };

  it('a Secret stringData agrees with the data the server made of it, not with other data', () => {
    assert.equal(appliedFieldsAgree(desired, secret('pw'), M), true);
    assert.equal(appliedFieldsAgree(desired, secret('changed'), M), false);
    assert.deepEqual(observedAsApplied(desired, secret('pw')).stringData, { password: 'pw' });
    assert.deepEqual(observedAsApplied(desired, secret('other')).stringData, {});
  });

  it('a port applied without its defaulted key field matches the server key', () => {
    const d = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'svc' },
      spec: { ports: [{ name: 'web', port: 80, targetPort: 8080 }] },
    };
    const f = {
      'f:spec': {
        'f:ports': {
          'k:{"port":80,"protocol":"TCP"}': { '.': {}, 'f:name': {}, 'f:port': {}, 'f:targetPort': {} },
        },
      },
    };
    const o = (targetPort: unknown) => ({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'svc', managedFields: managed('v1', f) },
      spec: { ports: [{ name: 'web', port: 80, protocol: 'TCP', targetPort }] },
    });
    assert.equal(appliedFieldsAgree(d, o(8080), M), true);
    assert.equal(appliedFieldsAgree(d, o(9090), M), false);
    const udp = { ...d, spec: { ports: [{ name: 'web', port: 80, protocol: 'UDP', targetPort: 8080 }] } };
    assert.equal(appliedFieldsAgree(udp, o(8080), M), false, 'a key field the item sets must match');
  });

  it('quantities in a resources map agree with their canonical form', () => {
    const d = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p' },
      spec: { containers: [{ name: 'c', resources: { limits: { cpu: '1000m', memory: '1024Mi' } } }] },
    };
    const f = {
      'f:spec': {
        'f:containers': {
          'k:{"name":"c"}': {
            '.': {},
            'f:name': {},
            'f:resources': { 'f:limits': { 'f:cpu': {}, 'f:memory': {} } },
          },
        },
      },
    };
    const o = (cpu: string) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', managedFields: managed('v1', f) },
      spec: { containers: [{ name: 'c', resources: { limits: { cpu, memory: '1Gi' } } }] },
    });
    assert.equal(appliedFieldsAgree(d, o('1'), M), true);
    assert.equal(appliedFieldsAgree(d, o('2'), M), false);
  });

  it('an empty desired map agrees with the server dropping it', () => {
    const d = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: {} };
    const o = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c', managedFields: managed('v1', { 'f:data': {} }) },
    };
    assert.equal(appliedFieldsAgree(d, o, M), true);
  });
});

describe('dry-run comparison', () => {
  it('ignores resourceVersion and field times, nothing else', () => {
    const o = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c', resourceVersion: '5', managedFields: [{ manager: M, time: 'T1' }] },
      data: { a: '1' },
    };
    const same = {
      ...o,
      metadata: { ...o.metadata, resourceVersion: '6', managedFields: [{ manager: M, time: 'T2' }] },
    };
    assert.equal(sameStored(same, o), true);
    assert.equal(sameStored({ ...same, data: { a: '2' } }, o), false);
  });

  it('with the applying manager, compares only the managers a slim cache kept', () => {
    // The cache (watches.ts keepManager) dropped kubectl's entry; the dry run still has it.
    const observed = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'c',
        resourceVersion: '5',
        managedFields: [{ manager: M, fieldsV1: { 'f:data': {} } }],
      },
      data: { a: '1' },
    };
    const dryRun = {
      ...observed,
      metadata: {
        ...observed.metadata,
        managedFields: [
          { manager: M, time: 'T2', fieldsV1: { 'f:data': {} } },
          { manager: 'kubectl', time: 'T1', fieldsV1: { 'f:data': { 'f:b': {} } } },
        ],
      },
    };
    assert.equal(sameStored(dryRun, observed, M), true);
    assert.equal(sameStored(dryRun, observed), false, 'without a manager every entry counts');
    const changedOwn = {
      ...dryRun,
      metadata: {
        ...dryRun.metadata,
        managedFields: [{ manager: M, fieldsV1: { 'f:data': { 'f:a': {} } } }],
      },
    };
    assert.equal(sameStored(changedOwn, observed, M), false, 'a change of our own entry counts');
  });
});
