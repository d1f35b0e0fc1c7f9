// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * kro's scenario for schema-aware value conversion (kro schema_aware_cel_test.go), ported: a Secret
 * written through `stringData` is read back with its `data` values base64-encoded; its schema says
 * `format: byte`, so the controller hands CEL bytes and `string(secret.data.clientId)` is the decoded
 * text — not the base64 the API server stores.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RestClient } from '../../../src/kube/index.ts';
import {
  applyInstance,
  applyRgd,
  eventually,
  getInstance,
  instance,
  type RgdFixture,
  rgd,
  rgdFixture,
  stopRgdController,
  waitRgd,
} from '../rgd/support.ts';

describe('kro conformance: schema-aware CEL values', () => {
  let f: RgdFixture;
  let client: RestClient;

  before(async () => {
    f = await rgdFixture('kro-sac');
    client = f.client;
  });
  after(() => stopRgdController(f.controller));

  it("converts a Secret's data by its schema, so string() decodes the bytes", async () => {
    await applyRgd(
      client,
      rgd(
        f,
        'test-schema-aware-cel',
        {
          kind: 'TestSchemaCel',
          spec: { clientId: 'string' },
          status: { decodedClientId: '${string(secret.data.clientId)}' },
        },
        [
          {
            id: 'secret',
            template: {
              apiVersion: 'v1',
              kind: 'Secret',
              metadata: { name: '${schema.metadata.name}' },
              stringData: { clientId: '${schema.spec.clientId}' },
            },
          },
        ],
      ),
    );
    await waitRgd(client, 'test-schema-aware-cel', 'Ready', 'True');
    await applyInstance(client, instance(f, 'TestSchemaCel', 'schema-cel', { clientId: 'my-secret-client' }));
    const status = await eventually('status.decodedClientId is set', async () => {
      const o = await getInstance(client, f, 'TestSchemaCel', 'schema-cel');
      const s = o?.status as Record<string, unknown> | undefined;
      return s?.state === 'ACTIVE' && s.decodedClientId !== undefined ? s : undefined;
    });
    assert.equal(status.decodedClientId, 'my-secret-client');
  });
});
