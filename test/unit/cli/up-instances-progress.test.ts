/**
 * `kgraph up`'s wait for RGD instances, without a terminal: one line per change of
 * an instance's state, kubectl-style names, and a heartbeat naming what is still awaited when nothing
 * changes. The client is a stub answering reads from a script: no API server is involved.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { waitForInstances } from '../../../src/cli/up/rgd.ts';
import type { RestClient } from '../../../src/kube/rest.ts';
import type { KubeObject } from '../../../src/kube/types.ts';

const instance = (state: string, ready: string): KubeObject => ({
  apiVersion: 'kro.run/v1alpha1',
  kind: 'RegionalConfig',
  metadata: { name: 'shop', namespace: 'orders', generation: 1 },
  status: {
    state,
    conditions: [{ type: 'Ready', status: ready, message: 'waiting for tiers', observedGeneration: 1 }],
  },
});

describe('up: waiting for RGD instances', () => {
  it('prints each change once and a heartbeat while nothing changes', async () => {
    const started = Date.now();
    const client = {
      getOrUndefined: async () =>
        Date.now() - started < 1_500 ? instance('IN_PROGRESS', 'False') : instance('ACTIVE', 'True'),
    } as unknown as RestClient;
    const lines: string[] = [];
    const ok = await waitForInstances(
      client,
      [],
      [{ file: 'shop.yaml', object: instance('', 'Unknown') }],
      new Set(['regionalconfig']),
      30_000,
      (l) => lines.push(l),
      400,
    );
    assert.equal(ok, true);
    const progress = lines.filter((l) => /^\s+\d+\.\ds /.test(l));
    assert.match(
      progress[0]!,
      /s regionalconfig\.kro\.run\/shop -n orders {2}IN_PROGRESS \(waiting for tiers\)$/,
    );
    const beats = progress.filter((l) => /still waiting for/.test(l));
    assert.ok(beats.length >= 2, lines.join('\n'));
    assert.match(
      beats[0]!,
      /still waiting for regionalconfig\.kro\.run\/shop -n orders \(IN_PROGRESS \(waiting for tiers\)\)$/,
    );
    assert.match(progress.at(-1)!, /s regionalconfig\.kro\.run\/shop -n orders {2}ACTIVE$/);
    assert.equal(
      progress.filter((l) => /IN_PROGRESS/.test(l) && !/still/.test(l)).length,
      1,
      'a change is said once',
    );
  });
});
