// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * An instance whose projected status cannot be stored (design/graph.md §21.3): the status copies an
 * 820,000-character spec field, so the object with it is over etcd's 1.5 MiB request limit. The
 * instance must still say so — `state: ERROR`, Ready=False `StatusTooLarge` naming the field and its
 * size — and the controller must go on: once the field shrinks the instance converges.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RgdController } from '../../../src/controller/rgd/controller.ts';
import type { RestClient } from '../../../src/kube/index.ts';
import {
  applyInstance,
  applyRgd,
  cm,
  conditionOf,
  getCm,
  instance,
  type RgdFixture,
  rgd,
  rgdFixture,
  stopRgdController,
  waitRgd,
  waitState,
} from './support.ts';

describe('RGD instance status too large to store', () => {
  let f: RgdFixture;
  let client: RestClient;
  let controller: RgdController;

  before(async () => {
    f = await rgdFixture('rgd-big');
    ({ client, controller } = f);
  });
  after(() => stopRgdController(controller));

  it('writes state ERROR with a StatusTooLarge condition naming the field, then recovers', async () => {
    await applyRgd(
      client,
      rgd(
        f,
        'echo',
        {
          kind: 'Echo',
          spec: { blob: 'string | default=""' },
          status: { copy: '${schema.spec.blob}', config: '${config.metadata.name}' },
        },
        [
          {
            id: 'config',
            template: cm('${schema.metadata.name}-cfg', { size: '${string(size(schema.spec.blob))}' }),
          },
        ],
      ),
    );
    await waitRgd(client, 'echo', 'Ready', 'True');
    const big = 'x'.repeat(820_000);
    await applyInstance(client, instance(f, 'Echo', 'big', { blob: big }));

    const o = await waitState(
      client,
      f,
      'Echo',
      'big',
      'ERROR',
      (x) => conditionOf(x, 'Ready')?.reason === 'StatusTooLarge',
    );
    const ready = conditionOf(o, 'Ready');
    assert.equal(ready?.status, 'False');
    assert.match(ready?.message ?? '', /status\.copy \(8200\d\d bytes\)/);
    const status = o.status as Record<string, unknown>;
    assert.equal(status.copy, undefined, 'the field too large is left out');
    assert.equal(status.config, 'big-cfg', 'the fields that fit are kept');
    // The children were applied: only the status was too large.
    assert.equal(
      ((await getCm(client, f.ns, 'big-cfg'))?.data as Record<string, string> | undefined)?.size,
      '820000',
    );

    // The controller goes on: a blob that fits converges.
    await applyInstance(client, instance(f, 'Echo', 'big', { blob: 'small' }));
    const fixed = await waitState(client, f, 'Echo', 'big', 'ACTIVE');
    assert.equal((fixed.status as Record<string, unknown>).copy, 'small');
    assert.equal(conditionOf(fixed, 'Ready')?.status, 'True');
  });
});
