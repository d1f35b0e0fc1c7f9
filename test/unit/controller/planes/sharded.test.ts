/**
 * The pure pieces of sharded planes (design/sharding.md §6, §7): what a follower's registrar reads from
 * the coordinator's blueprint status, the per-cluster selector of a replica's provider and host child
 * watches, and the coordinator's sweeper deciding on the records of clusters another replica serves.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pino from 'pino';
import { childSelector } from '../../../../src/controller/planes/childWatches.ts';
import { DEFAULT_TIMINGS } from '../../../../src/controller/planes/kropApi.ts';
import { safeLabelValue } from '../../../../src/controller/planes/naming.ts';
import { coordinatorVerdict } from '../../../../src/controller/planes/registrar.ts';
import { Sweeper, type SweeperDeps } from '../../../../src/controller/planes/sweeper.ts';
import type { KubeObject, RestClient } from '../../../../src/kube/index.ts';

const ready = (status: 'True' | 'False', reason: string, observedGeneration: number) => ({
  type: 'Ready',
  status,
  reason,
  message: `${reason} message`,
  observedGeneration,
  lastTransitionTime: '2024-01-01T00:00:00Z',
});

function blueprint(generation: number, status?: Record<string, unknown>): KubeObject {
  return {
    apiVersion: 'krop.opendefense.cloud/v1alpha1',
    kind: 'ResourceGraphDefinition',
    metadata: { name: 'bp', generation },
    ...(status ? { status } : {}),
  };
}

describe('coordinatorVerdict: what a follower serves', () => {
  it('published only for the spec hash the coordinator published', () => {
    const bp = blueprint(2, { observedSpecHash: 'h2', conditions: [ready('True', 'Published', 2)] });
    assert.equal(coordinatorVerdict(bp, 'h2'), 'published');
    // The follower computed another hash: the coordinator has not decided on that spec yet.
    assert.equal(coordinatorVerdict(bp, 'h3'), 'pending');
  });

  it('pending without a status, and while the refusal is of an older generation', () => {
    assert.equal(coordinatorVerdict(blueprint(1), 'h1'), 'pending');
    const old = blueprint(3, { observedSpecHash: 'h1', conditions: [ready('False', 'BuildFailed', 2)] });
    assert.equal(coordinatorVerdict(old, 'h3'), 'pending');
  });

  it("the coordinator's refusal of the current generation, with its reason", () => {
    const bp = blueprint(3, { observedSpecHash: 'h1', conditions: [ready('False', 'ExportConflict', 3)] });
    assert.deepEqual(coordinatorVerdict(bp, 'h3'), {
      reason: 'ExportConflict',
      message: 'ExportConflict message',
    });
  });
});

describe('childSelector: provider and host child watches of one consumer cluster', () => {
  it('every child, or those of one cluster (label-safe)', () => {
    assert.equal(childSelector(), 'krop.opendefense.cloud/instance-uid,!krop.opendefense.cloud/liveness');
    assert.equal(
      childSelector('c1234'),
      'krop.opendefense.cloud/instance-uid,krop.opendefense.cloud/consumer-cluster=c1234,!krop.opendefense.cloud/liveness',
    );
    const long = `c${'x'.repeat(70)}`;
    assert.ok(childSelector(long).includes(`consumer-cluster=${safeLabelValue(long)},`));
    assert.notEqual(safeLabelValue(long), long);
  });
});

describe("the coordinator's sweeper and other replicas' clusters", () => {
  const stale = new Date(Date.parse('2024-01-01T00:00:00Z')).toISOString();
  const record = (name: string, clusterID: string): KubeObject => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name,
      namespace: 'kgraph-system',
      labels: {
        'krop.opendefense.cloud/liveness': 'true',
        'krop.opendefense.cloud/instance-uid': `uid-${name}`,
        'krop.opendefense.cloud/consumer-cluster': clusterID,
      },
      annotations: { 'krop.opendefense.cloud/blueprint': 'things.example.com' },
    },
    data: { lastReconciled: stale, instanceNamespace: 'ns', instanceName: name },
  });

  function sweeper(isLeader: boolean) {
    const deleted: string[] = [];
    let registeredAsked = 0;
    const provider = {
      listAll: async () => ({
        items: [record('gone', 'cgone'), record('theirs', 'ctheirs'), record('mine', 'cmine')],
      }),
      delete: async (ref: { name: string }) => {
        deleted.push(ref.name);
      },
    } as unknown as RestClient;
    const deps: SweeperDeps = {
      provider,
      host: undefined,
      namespace: 'kgraph-system',
      timings: { ...DEFAULT_TIMINGS, startupGraceMs: 0, staleAfterMs: 1_000 },
      log: pino({ level: 'silent' }),
      now: () => new Date(Date.parse('2024-01-02T00:00:00Z')),
      startedAt: new Date(0),
      // Asked of the API server when sharded: every registration, not only this replica's.
      registeredClusterIDs: async () => {
        registeredAsked += 1;
        return new Set(['ctheirs', 'cmine']);
      },
      publishedExports: () => new Set(['things.example.com']),
      connectionFor: (clusterID) =>
        clusterID === 'cmine'
          ? { reachable: false, verified: false, withdrawn: false }
          : { reachable: false, verified: false, withdrawn: false, elsewhere: true },
      blueprintForExport: () => undefined,
      authority: { isLeader: () => isLeader },
    };
    return { s: new Sweeper(deps), deleted, asked: () => registeredAsked };
  }

  it('sweeps a deregistered cluster, leaves another replica’s to it, keeps its own unreachable one', async () => {
    const { s, deleted, asked } = sweeper(true);
    const report = await s.sweep();
    assert.equal(report.refused, undefined);
    assert.equal(report.decisions.get('gone'), 'swept');
    assert.equal(report.decisions.get('theirs'), 'elsewhere');
    assert.equal(report.decisions.get('mine'), 'kept');
    // Only its own unreachable cluster counts as unreachable; the registrations were asked once.
    assert.equal(report.unreachable, 1);
    assert.equal(asked(), 1);
    assert.deepEqual(deleted, ['gone']);
  });

  it('a replica that is not the coordinator sweeps nothing', async () => {
    const { s, deleted, asked } = sweeper(false);
    const report = await s.sweep();
    assert.equal(report.refused, 'not the leader');
    assert.equal(report.decisions.size, 0);
    assert.equal(asked(), 0);
    assert.deepEqual(deleted, []);
  });
});
