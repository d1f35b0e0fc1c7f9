// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * kro's scenarios for arrays in the status projection (kro status_array_projection_test.go), ported: a
 * top-level array of expressions, and one nested under an object, are projected as arrays.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RestClient } from '../../../src/kube/index.ts';
import {
  applyInstance,
  applyRgd,
  cm,
  eventually,
  getInstance,
  instance,
  type RgdFixture,
  rgd,
  rgdFixture,
  stopRgdController,
  waitRgd,
} from '../rgd/support.ts';

describe('kro conformance: arrays in the status projection', () => {
  let f: RgdFixture;
  let client: RestClient;

  before(async () => {
    f = await rgdFixture('kro-sap');
    client = f.client;
  });
  after(() => stopRgdController(f.controller));

  const statusOf = (kind: string, name: string) =>
    eventually(`${kind} ${name} status projected`, async () => {
      const s = (await getInstance(client, f, kind, name))?.status as Record<string, unknown> | undefined;
      return s?.state === 'ACTIVE' ? s : undefined;
    });

  it('projects a top-level array of expressions as an array', async () => {
    await applyRgd(
      client,
      rgd(
        f,
        'test-status-array',
        {
          kind: 'TestStatusArray',
          spec: { name: 'string' },
          status: { endpoints: ['${primary.metadata.name}', '${secondary.metadata.name}'] },
        },
        [
          { id: 'primary', template: cm('${schema.spec.name}-primary') },
          { id: 'secondary', template: cm('${schema.spec.name}-secondary') },
        ],
      ),
    );
    await waitRgd(client, 'test-status-array', 'Ready', 'True');
    await applyInstance(client, instance(f, 'TestStatusArray', 'status-array', { name: 'status-array' }));
    const s = await statusOf('TestStatusArray', 'status-array');
    assert.deepEqual([...(s.endpoints as string[])].sort(), [
      'status-array-primary',
      'status-array-secondary',
    ]);
  });

  it('projects an array nested under an object as an array', async () => {
    await applyRgd(
      client,
      rgd(
        f,
        'test-status-nested-array',
        {
          kind: 'TestStatusNestedArray',
          spec: { name: 'string' },
          status: { network: { names: ['${primary.metadata.name}'] } },
        },
        [{ id: 'primary', template: cm('${schema.spec.name}-primary') }],
      ),
    );
    await waitRgd(client, 'test-status-nested-array', 'Ready', 'True');
    await applyInstance(
      client,
      instance(f, 'TestStatusNestedArray', 'status-nested-array', { name: 'status-nested-array' }),
    );
    const s = await statusOf('TestStatusNestedArray', 'status-nested-array');
    assert.deepEqual((s.network as { names: string[] }).names, ['status-nested-array-primary']);
  });
});
