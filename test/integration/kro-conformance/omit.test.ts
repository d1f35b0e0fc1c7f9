// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * kro's omit() scenarios (kro omit_test.go), ported: a ConfigMap data field and a container command
 * element are left out while the expression yields omit(), and appear once it yields a value.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RestClient } from '../../../src/kube/index.ts';
import {
  applyInstance,
  applyRgd,
  cm,
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

describe('kro conformance: omit()', () => {
  let f: RgdFixture;
  let client: RestClient;

  before(async () => {
    f = await rgdFixture('kro-omit');
    client = f.client;
  });
  after(() => stopRgdController(f.controller));

  const dataIs = (name: string, want: Record<string, string>) =>
    eventually(`ConfigMap ${name} data ${JSON.stringify(want)}`, async () => {
      const d = await cmData(client, f.ns, name);
      return JSON.stringify(d) === JSON.stringify(want) ? true : undefined;
    });

  it('omits a ConfigMap data field while omit() is chosen', async () => {
    await applyRgd(
      client,
      rgd(f, 'test-omit', { kind: 'TestOmit', spec: { name: 'string', optional: 'string | default=""' } }, [
        {
          id: 'configmap',
          template: cm('${schema.spec.name}', {
            always: 'present',
            optional: '${schema.spec.optional != "" ? schema.spec.optional : omit()}',
          }),
        },
      ]),
    );
    await waitRgd(client, 'test-omit', 'Ready', 'True');
    await applyInstance(client, instance(f, 'TestOmit', 'omit-one', { name: 'omit-one', optional: '' }));
    await waitState(client, f, 'TestOmit', 'omit-one', 'ACTIVE');
    await dataIs('omit-one', { always: 'present' });
    await applyInstance(
      client,
      instance(f, 'TestOmit', 'omit-one', { name: 'omit-one', optional: 'now-present' }),
    );
    await dataIs('omit-one', { always: 'present', optional: 'now-present' });
    await applyInstance(client, instance(f, 'TestOmit', 'omit-one', { name: 'omit-one', optional: '' }));
    await dataIs('omit-one', { always: 'present' });

    await applyInstance(
      client,
      instance(f, 'TestOmit', 'omit-two', { name: 'omit-two', optional: 'my-value' }),
    );
    await waitState(client, f, 'TestOmit', 'omit-two', 'ACTIVE');
    await dataIs('omit-two', { always: 'present', optional: 'my-value' });
  });

  it('omits an array element while omit() is chosen', async () => {
    await applyRgd(
      client,
      rgd(
        f,
        'test-omit-array',
        { kind: 'TestOmitArray', spec: { name: 'string', optionalArg: 'string | default=""' } },
        [
          {
            id: 'pod',
            template: {
              apiVersion: 'v1',
              kind: 'Pod',
              metadata: { name: '${schema.spec.name}' },
              spec: {
                containers: [
                  {
                    name: 'main',
                    image: 'busybox',
                    command: ['echo', '${schema.spec.optionalArg != "" ? schema.spec.optionalArg : omit()}'],
                  },
                ],
              },
            },
          },
        ],
      ),
    );
    await waitRgd(client, 'test-omit-array', 'Ready', 'True');
    const command = async (name: string) => {
      const pod = await client.get({ apiVersion: 'v1', kind: 'Pod', namespace: f.ns, name });
      return (pod.spec as { containers: { command?: string[] }[] }).containers.map((c) => c.command);
    };
    await applyInstance(
      client,
      instance(f, 'TestOmitArray', 'omit-array-one', { name: 'omit-array-one', optionalArg: '' }),
    );
    await waitState(client, f, 'TestOmitArray', 'omit-array-one', 'ACTIVE');
    assert.deepEqual(await command('omit-array-one'), [['echo']]);
    await applyInstance(
      client,
      instance(f, 'TestOmitArray', 'omit-array-two', { name: 'omit-array-two', optionalArg: 'hello' }),
    );
    await waitState(client, f, 'TestOmitArray', 'omit-array-two', 'ACTIVE');
    assert.deepEqual(await command('omit-array-two'), [['echo', 'hello']]);
  });
});
