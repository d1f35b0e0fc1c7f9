// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * A Graph whose inventory cannot be stored (design/graph.md §22.1): 4,800 ConfigMaps (five collections of 960) with 250-character
 * names make `status.managedResources` about 1.8 MB, over etcd's 1.5 MiB request limit. Nothing is
 * applied without a record, so the Graph must say why it applies nothing — Ready=False `StatusTooLarge`
 * naming the field and its size — instead of retrying the write unseen; shrunk, it converges.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  applyGraph,
  type ControllerFixture,
  cm,
  controllerFixture,
  graph,
  stopController,
  waitCondition,
} from './support.ts';

const ITEMS = 4_800;
const PREFIX = 'n'.repeat(240);

describe('Graph status too large to store', () => {
  let fx: ControllerFixture;

  before(async () => {
    fx = await controllerFixture('gc-big-status');
  });
  after(() => stopController(fx?.controller));

  // Five collections of up to 960 (the per-collection limit is 1,000): 4,800 inventory entries.
  const fleet = (n: number) =>
    graph(fx.ns, 'fleet', [
      { id: 'cfg', def: { ids: Array.from({ length: n / 5 }, (_, i) => `${i}`) } },
      ...[0, 1, 2, 3, 4].map((k) => ({
        id: `part${k}`,
        forEach: [{ i: '${cfg.ids}' }],
        template: cm(`${PREFIX}-${k}-\${i}`, { i: '${i}' }),
      })),
    ]);

  it('reports StatusTooLarge on Ready, applies nothing, and converges once it fits', async () => {
    await applyGraph(fx.client, fleet(ITEMS));
    const g = await waitCondition(fx.client, fx.ns, 'fleet', 'Ready', 'False', 'StatusTooLarge', 120_000);
    const ready = (g.status as { conditions: { type: string; message: string }[] }).conditions.find(
      (c) => c.type === 'Ready',
    );
    assert.match(ready?.message ?? '', /status\.managedResources \(\d{7} bytes\)/);
    const listed = await fx.client.list({ apiVersion: 'v1', kind: 'ConfigMap', namespace: fx.ns });
    assert.equal(
      listed.items.filter((o) => o.metadata.name?.startsWith(PREFIX)).length,
      0,
      'nothing is applied without a record',
    );

    await applyGraph(fx.client, fleet(5));
    await waitCondition(fx.client, fx.ns, 'fleet', 'Ready', 'True', 'Ready', 60_000);
  });
});
