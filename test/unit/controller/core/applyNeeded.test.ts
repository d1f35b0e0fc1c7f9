import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { appliedFieldsAgree, trackedContent } from '../../../../src/controller/core/applyNeeded.ts';
import { condition } from '../../../../src/controller/core/conditions.ts';
import {
  digest12,
  labelValue,
  patchManager,
  templateManager,
} from '../../../../src/controller/core/names.ts';
import { stampTemplate } from '../../../../src/controller/graph/stamp.ts';
import { readyCondition } from '../../../../src/controller/graph/status.ts';

const M = 'kro-graphengine.tmpl.abc';

function observed(fieldsV1: Record<string, unknown>, rest: Record<string, unknown>, manager = M, extra = {}) {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: 'x',
      namespace: 'ns',
      labels: { a: '1' },
      managedFields: [
        { manager, operation: 'Apply', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1, ...extra },
      ],
    },
    ...rest,
  };
}

const desired = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'x', namespace: 'ns', labels: { a: '1' } },
  data: { k: 'v' },
};
const fields = { 'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} } }, 'f:data': { '.': {}, 'f:k': {} } };

describe('appliedFieldsAgree (no write when nothing changed)', () => {
  it('agrees when the manager owns exactly the desired fields with the desired values', () => {
    assert.equal(appliedFieldsAgree(desired, observed(fields, { data: { k: 'v', other: 'y' } }), M), true);
  });
  it('disagrees on a changed value, a missing object, another manager or subresource', () => {
    assert.equal(appliedFieldsAgree(desired, observed(fields, { data: { k: 'drift' } }), M), false);
    assert.equal(appliedFieldsAgree(desired, undefined, M), false);
    assert.equal(appliedFieldsAgree(desired, observed(fields, { data: { k: 'v' } }, 'kubectl'), M), false);
    assert.equal(
      appliedFieldsAgree(desired, observed(fields, { data: { k: 'v' } }, M, { subresource: 'status' }), M),
      false,
    );
  });
  it('disagrees when the desired object adds or drops a field (the owned set differs)', () => {
    const more = { ...desired, data: { k: 'v', k2: 'w' } };
    assert.equal(appliedFieldsAgree(more, observed(fields, { data: { k: 'v', k2: 'w' } }), M), false);
    const less = { ...desired, data: {} };
    assert.equal(appliedFieldsAgree(less, observed(fields, { data: { k: 'v' } }), M), false);
  });
  it('matches keyed lists item by item and treats atomic lists as one leaf with server defaults', () => {
    const d = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p' },
      spec: { containers: [{ name: 'c', image: 'i:1' }], args: ['a', 'b'] },
    };
    const f = {
      'f:spec': {
        'f:containers': { 'k:{"name":"c"}': { '.': {}, 'f:name': {}, 'f:image': {} } },
        'f:args': {},
      },
    };
    const o = (image: string, args: string[]) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'p',
        managedFields: [{ manager: M, operation: 'Apply', apiVersion: 'v1', fieldsV1: f }],
      },
      spec: { containers: [{ name: 'c', image, imagePullPolicy: 'IfNotPresent' }], args },
    });
    assert.equal(appliedFieldsAgree(d, o('i:1', ['a', 'b']), M), true);
    assert.equal(appliedFieldsAgree(d, o('i:2', ['a', 'b']), M), false);
    assert.equal(appliedFieldsAgree(d, o('i:1', ['a']), M), false);
  });
  it('compares BigInt desired numbers with JSON numbers', () => {
    const d = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' }, spec: { replicas: 3n } };
    const f = { 'f:spec': { 'f:replicas': {} } };
    const o = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: {
        name: 'd',
        managedFields: [{ manager: M, operation: 'Apply', apiVersion: 'apps/v1', fieldsV1: f }],
      },
      spec: { replicas: 3 },
    };
    assert.equal(appliedFieldsAgree(d, o, M), true);
  });
  it('leaves identity fields out of the tracked content', () => {
    assert.deepEqual(trackedContent(desired), { metadata: { labels: { a: '1' } }, data: { k: 'v' } });
  });
});

describe('names, stamping and conditions', () => {
  it('derives field managers from 12-hex SHA-256 digests', () => {
    assert.match(digest12('uid'), /^[0-9a-f]{12}$/);
    assert.equal(templateManager('u1'), `kro-graphengine.tmpl.${digest12('u1')}`);
    assert.equal(patchManager('u1', 'a.b'), `kro-graphengine.patch.${digest12('u1')}.${digest12('a.b')}`);
  });
  it('hashes long label values', () => {
    assert.deepEqual(labelValue('short'), { value: 'short', hashed: false });
    const long = labelValue('x'.repeat(64));
    assert.match(long.value, /^h-[0-9a-f]{40}$/);
  });
  it('stamps node id, path, apply order and collection labels', () => {
    const s = stampTemplate(
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'n', labels: { keep: 'y' } } },
      { nodePath: 'backend.cm', applyLayer: 2, graphUid: 'g', collection: { index: 1, size: 3 } },
    );
    assert.deepEqual((s.metadata as { labels: unknown }).labels, {
      keep: 'y',
      'kro.run/node-id': 'backend.cm',
      'kro.run/collection-index': '1',
      'kro.run/collection-size': '3',
      'kro.run/instance-id': 'g',
    });
    assert.deepEqual((s.metadata as { annotations: unknown }).annotations, {
      'internal.kro.run/node-path': 'backend/cm',
      'internal.kro.run/apply-order': '2',
    });
  });
  it('keeps lastTransitionTime while a condition status is unchanged; Ready copies the worst', () => {
    const t0 = () => 'T0';
    const t1 = () => 'T1';
    const a = condition([], 'Accepted', 'True', 'Compiled', 'm', 1, t0);
    const again = condition([a], 'Accepted', 'True', 'Compiled', 'm2', 2, t1);
    assert.equal(again.lastTransitionTime, 'T0');
    const flipped = condition([a], 'Accepted', 'False', 'InvalidGraph', 'bad', 2, t1);
    assert.equal(flipped.lastTransitionTime, 'T1');
    const conv = condition([], 'ResourcesConverged', 'False', 'DataPending', 'wait', 2, t1);
    const ready = readyCondition([], a, conv, 2, t1);
    assert.deepEqual([ready.status, ready.reason, ready.message], ['False', 'DataPending', 'wait']);
  });
});
