// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * kro's scenarios for status fields that read the instance's own spec (kro
 * status_schema_ref_test.go), ported: a status from `schema.spec` only, one mixing a resource field with
 * `schema.spec`, and a status that follows a spec edit.
 */
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

describe('kro conformance: status from schema.spec', () => {
  let f: RgdFixture;
  let client: RestClient;

  before(async () => {
    f = await rgdFixture('kro-ssr');
    client = f.client;
  });
  after(() => stopRgdController(f.controller));

  const statusField = (kind: string, name: string, field: string, want: string) =>
    eventually(`${kind} ${name} status.${field} = ${want}`, async () => {
      const o = await getInstance(client, f, kind, name);
      return (o?.status as Record<string, unknown> | undefined)?.[field] === want ? true : undefined;
    });

  it('populates a status field from a schema spec field only', async () => {
    await applyRgd(
      client,
      rgd(
        f,
        'test-status-schema-only',
        { kind: 'StatusSchemaOnly', spec: { host: 'string' }, status: { echoHost: '${schema.spec.host}' } },
        [{ id: 'configmap', template: cm('${schema.spec.host}') }],
      ),
    );
    await waitRgd(client, 'test-status-schema-only', 'Ready', 'True');
    await applyInstance(client, instance(f, 'StatusSchemaOnly', 'schema-only', { host: 'example.com' }));
    await statusField('StatusSchemaOnly', 'schema-only', 'echoHost', 'example.com');
  });

  it('populates a status field mixing a resource field and a schema spec field', async () => {
    await applyRgd(
      client,
      rgd(
        f,
        'test-status-schema-mixed',
        {
          kind: 'StatusSchemaMixed',
          spec: { path: 'string' },
          status: { url: "${configmap.metadata.name + '/' + schema.spec.path}" },
        },
        [{ id: 'configmap', template: cm('my-configmap', { key: 'value' }) }],
      ),
    );
    await waitRgd(client, 'test-status-schema-mixed', 'Ready', 'True');
    await applyInstance(client, instance(f, 'StatusSchemaMixed', 'schema-mixed', { path: 'api/v1' }));
    await statusField('StatusSchemaMixed', 'schema-mixed', 'url', 'my-configmap/api/v1');
  });

  it('reflects an updated schema spec value in the status', async () => {
    await applyRgd(
      client,
      rgd(
        f,
        'test-status-schema-update',
        {
          kind: 'StatusSchemaUpdate',
          spec: { label: 'string' },
          status: { echoLabel: '${schema.spec.label}' },
        },
        [{ id: 'configmap', template: cm('static-cm') }],
      ),
    );
    await waitRgd(client, 'test-status-schema-update', 'Ready', 'True');
    await applyInstance(client, instance(f, 'StatusSchemaUpdate', 'schema-update', { label: 'first' }));
    await statusField('StatusSchemaUpdate', 'schema-update', 'echoLabel', 'first');
    await applyInstance(client, instance(f, 'StatusSchemaUpdate', 'schema-update', { label: 'second' }));
    await statusField('StatusSchemaUpdate', 'schema-update', 'echoLabel', 'second');
  });
});
