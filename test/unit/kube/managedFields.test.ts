import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applyWouldChange, jsonEqual, ownedFields } from '../../../src/kube/managedFields.ts';
import type { KubeObject } from '../../../src/kube/types.ts';

function observed(
  spec: Record<string, unknown>,
  fieldsV1: Record<string, unknown>,
  manager = 'm',
): KubeObject {
  return {
    apiVersion: 'example.com/v1',
    kind: 'Thing',
    metadata: {
      name: 't',
      managedFields: [
        { manager, operation: 'Apply', apiVersion: 'example.com/v1', fieldsType: 'FieldsV1', fieldsV1 },
        { manager, operation: 'Update', fieldsV1: { 'f:spec': { 'f:ignored': {} } } },
      ],
    },
    spec,
  };
}
const desired = (spec: Record<string, unknown>): KubeObject => ({
  apiVersion: 'example.com/v1',
  kind: 'Thing',
  metadata: { name: 't' },
  spec,
});

describe('applyWouldChange (synthetic field sets)', () => {
  it('only counts Apply entries of the manager on the main resource', () => {
    const o = observed({ a: 1 }, { 'f:spec': { 'f:a': {} } });
    assert.deepEqual(ownedFields(o, 'm'), { 'f:spec': { 'f:a': {} } });
    assert.equal(ownedFields(o, 'm', 'status'), undefined);
    assert.equal(ownedFields(o, 'x'), undefined);
  });

  it('handles set lists (v:) by value, in any order', () => {
    const o = observed({ tags: ['a', 'b'] }, { 'f:spec': { 'f:tags': { 'v:"a"': {}, 'v:"b"': {} } } });
    assert.deepEqual(applyWouldChange(desired({ tags: ['b', 'a'] }), o, 'm'), { changed: false });
    assert.equal(applyWouldChange(desired({ tags: ['a'] }), o, 'm').changed, true);
    assert.equal(applyWouldChange(desired({ tags: ['a', 'c'] }), o, 'm').changed, true);
  });

  it('treats a null desired value as absent and unknown field-set forms as a change', () => {
    const o = observed({ a: 1 }, { 'f:spec': { 'f:a': {} } });
    assert.deepEqual(applyWouldChange(desired({ a: 1, b: null }), o, 'm'), { changed: false });
    const odd = observed({ l: [1] }, { 'f:spec': { 'f:l': { 'i:0': {} } } });
    assert.equal(applyWouldChange(desired({ l: [1] }), odd, 'm').changed, true);
  });

  it('compares JSON values ignoring key order', () => {
    assert.ok(jsonEqual({ a: [1, { b: 2, c: 3 }] }, { a: [1, { c: 3, b: 2 }] }));
    assert.ok(!jsonEqual({ a: 1 }, { a: 1, b: 2 }));
    assert.ok(!jsonEqual([1, 2], [2, 1]));
    assert.ok(!jsonEqual('1', 1));
  });
});
