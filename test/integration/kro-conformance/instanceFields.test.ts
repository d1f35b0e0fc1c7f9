// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * kro's scenarios that read object metadata and typed data in expressions, ported: every metadata field of
 * the instance (kro metadata_fields_test.go), a child's creationTimestamp projected into the status
 * (kro kubernetes_time_test.go).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RestClient } from '../../../src/kube/index.ts';
import {
  applyInstance,
  applyRgd,
  cmData,
  eventually,
  instance,
  type RgdFixture,
  rgd,
  rgdFixture,
  stopRgdController,
  waitRgd,
  waitState,
} from '../rgd/support.ts';

describe('kro conformance: metadata and typed data in expressions', () => {
  let f: RgdFixture;
  let client: RestClient;

  before(async () => {
    f = await rgdFixture('kro-fields');
    client = f.client;
  });
  after(() => stopRgdController(f.controller));

  it('reads every metadata field of the instance, namespace included', async () => {
    await applyRgd(
      client,
      rgd(f, 'test-metadata-fields', { kind: 'MetadataTest', spec: { dummy: 'string' } }, [
        {
          id: 'configmap',
          template: {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: {
              name: '${schema.metadata.name}-${schema.metadata.namespace}-metadata-test',
              namespace: '${schema.metadata.namespace}',
            },
            data: {
              'instance-name': '${schema.metadata.name}',
              'instance-namespace': '${schema.metadata.namespace}',
              'instance-uid': '${schema.metadata.uid}',
              'instance-generation': '${string(schema.metadata.generation)}',
              'instance-resourceVersion': '${schema.metadata.resourceVersion}',
              'instance-generateName': '${schema.metadata.?generateName.orValue("not-set")}',
              'instance-has-labels': '${has(schema.metadata.labels) ? "true" : "false"}',
              'instance-has-annotations': '${has(schema.metadata.annotations) ? "true" : "false"}',
            },
          },
        },
      ]),
    );
    await waitRgd(client, 'test-metadata-fields', 'Ready', 'True');
    await applyInstance(client, instance(f, 'MetadataTest', 'test-instance', { dummy: 'value' }));
    // As kro's test, the data is awaited as a whole: the first pass may run before the instance carries
    // the labels and annotations the controller puts on it.
    let last: Record<string, string> | undefined;
    const data = await eventually('the metadata ConfigMap', async () => {
      last = await cmData(client, f.ns, `test-instance-${f.ns}-metadata-test`);
      return last?.['instance-has-labels'] === 'true' && last['instance-has-annotations'] === 'true'
        ? last
        : undefined;
    }).catch((e) => {
      throw new Error(`${(e as Error).message}; last: ${JSON.stringify(last)}`);
    });
    assert.equal(data['instance-name'], 'test-instance');
    assert.equal(data['instance-namespace'], f.ns);
    for (const k of ['instance-uid', 'instance-generation', 'instance-resourceVersion'])
      assert.ok(data[k], `${k} is set`);
    assert.equal(data['instance-has-labels'], 'true');
    assert.equal(data['instance-has-annotations'], 'true');
  });

  it("projects a child's metadata.creationTimestamp into the status", async () => {
    await applyRgd(
      client,
      rgd(
        f,
        'test-timestamp-rgd',
        {
          kind: 'TestTimestamp',
          spec: { name: 'string | default="test"' },
          status: { creationTimestamp: '${secret.metadata.creationTimestamp}' },
        },
        [
          {
            id: 'secret',
            template: {
              apiVersion: 'v1',
              kind: 'Secret',
              metadata: { name: '${schema.spec.name}' },
              stringData: { hello: 'world' },
            },
          },
        ],
      ),
    );
    await waitRgd(client, 'test-timestamp-rgd', 'Ready', 'True');
    await applyInstance(client, instance(f, 'TestTimestamp', 'test', {}));
    const active = await waitState(client, f, 'TestTimestamp', 'test', 'ACTIVE', (o) =>
      Boolean((o.status as Record<string, unknown>).creationTimestamp),
    );
    const secret = await client.get({ apiVersion: 'v1', kind: 'Secret', namespace: f.ns, name: 'test' });
    assert.equal(
      (active.status as Record<string, unknown>).creationTimestamp,
      secret.metadata.creationTimestamp,
    );
  });
});
