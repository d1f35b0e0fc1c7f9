// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * kro's pruning scenario (kro resource_pruning_test.go), ported: a resource removed from the RGD is
 * pruned from a live instance even while another of its resources is not ready (the instance stays
 * IN_PROGRESS throughout).
 */
import { after, before, describe, it } from 'node:test';
import type { RestClient } from '../../../src/kube/index.ts';
import {
  applyInstance,
  applyRgd,
  cm,
  getInstance,
  instance,
  type RgdFixture,
  rgd,
  rgdFixture,
  stopRgdController,
  waitRgd,
  waitState,
} from '../rgd/support.ts';
import { absent, cmRef, present } from './support.ts';

describe('kro conformance: pruning', () => {
  let f: RgdFixture;
  let client: RestClient;

  before(async () => {
    f = await rgdFixture('kro-prune');
    client = f.client;
  });
  after(() => stopRgdController(f.controller));

  it('prunes a removed resource while another resource is not ready', async () => {
    const name = 'prune-unready';
    const definition = (withRetired: boolean) =>
      rgd(f, 'kro-prune-while-unready', { kind: 'TestPruneWhileUnready', spec: { name: 'string' } }, [
        {
          id: 'gate',
          template: cm('${schema.spec.name}-gate', { ready: 'false' }),
          readyWhen: ['${gate.data.ready == "true"}'],
        },
        ...(withRetired
          ? [{ id: 'retired', template: cm('${schema.spec.name}-retired', { keep: 'for-now' }) }]
          : []),
      ]);
    await applyRgd(client, definition(true));
    await waitRgd(client, 'kro-prune-while-unready', 'Ready', 'True');
    await applyInstance(client, instance(f, 'TestPruneWhileUnready', name, { name }));
    await present(client, cmRef(f.ns, `${name}-gate`));
    await present(client, cmRef(f.ns, `${name}-retired`));
    await waitState(client, f, 'TestPruneWhileUnready', name, 'IN_PROGRESS');
    await applyRgd(client, definition(false));
    await waitRgd(client, 'kro-prune-while-unready', 'Ready', 'True');
    await absent(client, cmRef(f.ns, `${name}-retired`)).catch(async (e) => {
      const conds = (await getInstance(client, f, 'TestPruneWhileUnready', name))?.status;
      throw new Error(`${(e as Error).message}; instance status: ${JSON.stringify(conds)}`);
    });
    await present(client, cmRef(f.ns, `${name}-gate`));
  });
});
