// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * WatchesHealthy on RGD instances (design/rgd.md §20.5): after the four built-ins, True once the informers behind the
 * pass's reads have listed, independent of Ready; not written when the RGD authors its own conditions.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RestClient } from '../../../src/kube/index.ts';
import {
  applyInstance,
  applyRgd,
  cm,
  conditionOf,
  instance,
  type RgdFixture,
  rgd,
  rgdFixture,
  stopRgdController,
  waitRgd,
  waitState,
} from './support.ts';

describe('RGD instances: WatchesHealthy', () => {
  let f: RgdFixture;
  let client: RestClient;

  before(async () => {
    f = await rgdFixture('rgd-watches');
    client = f.client;
  });
  after(() => stopRgdController(f.controller));

  it('reports the watches behind the reads as synced, after Ready and apart from it', async () => {
    await applyRgd(
      client,
      rgd(f, 'watches', { kind: 'Watched', spec: { v: 'string' } }, [
        { id: 'c', template: cm('${schema.metadata.name}-c', { v: '${schema.spec.v}' }) },
        {
          id: 'gate',
          template: cm('${schema.metadata.name}-gate', { v: '${c.data.v}' }),
          readyWhen: ['${gate.data.v == "open"}'],
        },
      ]),
    );
    await waitRgd(client, 'watches', 'Ready', 'True');
    await applyInstance(client, instance(f, 'Watched', 'w', { v: 'closed' }));
    // Not ready, yet the watches are healthy: the condition does not follow Ready.
    const waiting = await waitState(client, f, 'Watched', 'w', 'IN_PROGRESS', (o) => {
      return conditionOf(o, 'WatchesHealthy')?.status === 'True';
    });
    assert.equal(conditionOf(waiting, 'Ready')?.status, 'False');
    const healthy = conditionOf(waiting, 'WatchesHealthy');
    assert.equal(healthy?.reason, 'WatchesSynced');
    assert.equal(healthy?.message, 'every resource the instance reads is watched');
    assert.equal(healthy?.observedGeneration, waiting.metadata.generation);

    await applyInstance(client, instance(f, 'Watched', 'w', { v: 'open' }));
    const active = await waitState(client, f, 'Watched', 'w', 'ACTIVE');
    const types = ((active.status as { conditions: { type: string }[] }).conditions ?? []).map((c) => c.type);
    assert.deepEqual(types, [
      'InstanceManaged',
      'GraphResolved',
      'ResourcesReady',
      'Ready',
      'WatchesHealthy',
    ]);
    assert.equal(conditionOf(active, 'Ready')?.status, 'True');
  });
});
