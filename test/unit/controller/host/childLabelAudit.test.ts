/** Which unlabelled children hold the replicas' caches back (design/sharding.md §4): those an owner claims. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isClaimed, type Owners } from '../../../../src/controller/host/childLabelAudit.ts';
import type { KubeObject } from '../../../../src/kube/index.ts';

const child = (name: string, uid: string, labels: Record<string, string>): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'ns', uid, labels: { 'kro.run/node-id': 'cm', ...labels } },
});

describe('child label audit', () => {
  const owners: Owners = {
    uids: new Set(['instance-1', 'graph-1']),
    inventoried: new Set(['uid-g1', 'v1/ConfigMap/ns/by-key']),
  };

  it('an RGD child (or a collection item) is claimed through the UID its owner label names', () => {
    assert.equal(
      isClaimed(child('a', 'u1', { 'kro.run/instance-id': 'instance-1' }), 'v1', 'ConfigMap', owners),
      true,
    );
    assert.equal(
      isClaimed(child('b', 'u2', { 'kro.run/instance-id': 'graph-1' }), 'v1', 'ConfigMap', owners),
      true,
    );
  });

  it("a Graph child is claimed through the Graph's inventory, by UID or by key", () => {
    assert.equal(isClaimed(child('c', 'uid-g1', {}), 'v1', 'ConfigMap', owners), true);
    assert.equal(isClaimed(child('by-key', 'other', {}), 'v1', 'ConfigMap', owners), true);
    assert.equal(
      isClaimed(child('by-key', 'other', {}), 'v1', 'Secret', owners),
      false,
      'kind is part of the key',
    );
  });

  it('a child whose owner is gone is an orphan: it does not hold the replicas back', () => {
    assert.equal(
      isClaimed(child('d', 'u4', { 'kro.run/instance-id': 'deleted' }), 'v1', 'ConfigMap', owners),
      false,
    );
    assert.equal(isClaimed(child('e', 'u5', {}), 'v1', 'ConfigMap', owners), false);
  });
});
