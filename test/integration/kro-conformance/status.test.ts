// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * kro's status-projection scenarios (kro test/integration/suites/core/status_test.go), ported: a string
 * template in the status is interpolated, and a status field appears only while every resource it reads
 * exists (and disappears when one is excluded again).
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

describe('kro conformance: status projection', () => {
  let f: RgdFixture;
  let client: RestClient;

  before(async () => {
    f = await rgdFixture('kro-status');
    client = f.client;
  });
  after(() => stopRgdController(f.controller));

  const statusOf = async (kind: string, name: string) =>
    ((await getInstance(client, f, kind, name))?.status ?? {}) as Record<string, unknown>;

  it('interpolates a string template of several expressions in the instance status', async () => {
    await applyRgd(
      client,
      rgd(
        f,
        'test-status-interpolation',
        {
          kind: 'StatusInterpolation',
          spec: { name: 'string' },
          status: { configmapRef: '${configmap.metadata.name}-in-${configmap.metadata.namespace}' },
        },
        [{ id: 'configmap', template: cm('${schema.spec.name}', { key: 'value' }) }],
      ),
    );
    await waitRgd(client, 'test-status-interpolation', 'Ready', 'True');
    await applyInstance(
      client,
      instance(f, 'StatusInterpolation', 'test-interpolation', { name: 'my-configmap' }),
    );
    await eventually('status.configmapRef interpolated', async () => {
      const s = await statusOf('StatusInterpolation', 'test-interpolation');
      return s.configmapRef === `my-configmap-in-${f.ns}` ? true : undefined;
    });
  });

  it('shows a status field only while every resource it reads is included', async () => {
    const gated = (id: string, value: string, flag: string) => ({
      id,
      template: cm(id, { value }),
      includeWhen: [`\${schema.spec.${flag}}`],
    });
    await applyRgd(
      client,
      rgd(
        f,
        'test-status-partial',
        {
          kind: 'StatusPartial',
          spec: { includeCm1: 'boolean', includeCm2: 'boolean', includeCm3: 'boolean' },
          status: {
            field1: '${cm1.data.value}',
            field2: '${cm1.data.value}-${cm2.data.value}',
            field3: '${cm1.data.value}-${cm2.data.value}-${cm3.data.value}',
          },
        },
        [
          gated('cm1', 'one', 'includeCm1'),
          gated('cm2', 'two', 'includeCm2'),
          gated('cm3', 'three', 'includeCm3'),
        ],
      ),
    );
    await waitRgd(client, 'test-status-partial', 'Ready', 'True');
    const fields = async () => {
      const s = await statusOf('StatusPartial', 'test-partial');
      return { field1: s.field1, field2: s.field2, field3: s.field3 };
    };
    const step = async (
      spec: Record<string, boolean>,
      expected: { field1?: string; field2?: string; field3?: string },
    ) => {
      await applyInstance(client, instance(f, 'StatusPartial', 'test-partial', spec));
      const want = { field1: expected.field1, field2: expected.field2, field3: expected.field3 };
      let last: unknown;
      await eventually(`status ${JSON.stringify(expected)}`, async () => {
        const got = await fields();
        last = got;
        // The state settles first: a pass that has not run yet shows the previous fields.
        const s = await statusOf('StatusPartial', 'test-partial');
        return s.state !== undefined && JSON.stringify(got) === JSON.stringify(want) ? true : undefined;
      }).catch((e) => {
        throw new Error(`${(e as Error).message}; last: ${JSON.stringify(last)}`);
      });
    };
    await step({ includeCm1: false, includeCm2: false, includeCm3: false }, {});
    await step({ includeCm1: true, includeCm2: false, includeCm3: false }, { field1: 'one' });
    await step(
      { includeCm1: true, includeCm2: true, includeCm3: false },
      { field1: 'one', field2: 'one-two' },
    );
    await step(
      { includeCm1: true, includeCm2: true, includeCm3: true },
      { field1: 'one', field2: 'one-two', field3: 'one-two-three' },
    );
    await step({ includeCm1: true, includeCm2: false, includeCm3: true }, { field1: 'one' });
  });
});
