// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * kro's scenarios for CEL libraries in templates, ported: `format()` over values of the instance and of
 * another resource (kro format_test.go), and cel-go's two-variable comprehensions (kro
 * two_var_comprehensions_test.go).
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

describe('kro conformance: CEL libraries in templates', () => {
  let f: RgdFixture;
  let client: RestClient;

  before(async () => {
    f = await rgdFixture('kro-cel');
    client = f.client;
  });
  after(() => stopRgdController(f.controller));

  it('resolves a formatted string with format()', async () => {
    await applyRgd(
      client,
      rgd(f, 'test-format', { kind: 'TestFormat', spec: {}, status: {} }, [
        {
          id: 'serviceAccount',
          template: {
            apiVersion: 'v1',
            kind: 'ServiceAccount',
            metadata: { name: '${schema.metadata.name}' },
          },
        },
        {
          id: 'configMap',
          template: cm('${schema.metadata.name}', {
            key: '${"%s:%s".format([schema.metadata.namespace, serviceAccount.metadata.name])}',
          }),
        },
      ]),
    );
    const r = await waitRgd(client, 'test-format', 'Ready', 'True');
    const order = (r.status as { topologicalOrder: string[] }).topologicalOrder;
    assert.ok(order.includes('serviceAccount') && order.includes('configMap'), JSON.stringify(order));
    await applyInstance(client, instance(f, 'TestFormat', 'test-format', {}));
    await waitState(client, f, 'TestFormat', 'test-format', 'ACTIVE');
    assert.deepEqual(await cmData(client, f.ns, 'test-format'), { key: `${f.ns}:test-format` });
  });

  it('evaluates transformMap, transformMapEntry and transformList in a template', async () => {
    await applyRgd(
      client,
      rgd(f, 'test-two-var', { kind: 'TwoVarComp', spec: { name: 'string' } }, [
        {
          id: 'configmap',
          template: cm('${schema.spec.name}', {
            transformMapValue: "${string({'a': 1, 'b': 2}.transformMap(k, v, v + 10)['a'])}",
            transformMapEntryValue: "${string(['x', 'y'].transformMapEntry(i, v, {v: string(i)})['x'])}",
            transformListSize: "${string({'p': 1, 'q': 2, 'r': 3}.transformList(k, v, k).size())}",
            transformMapFiltered: '${string([10, 20, 30].transformMap(i, v, i > 0, v * 2).size())}',
          }),
        },
      ]),
    );
    await waitRgd(client, 'test-two-var', 'Ready', 'True');
    await applyInstance(client, instance(f, 'TwoVarComp', 'test-two-var', { name: 'two-var-result' }));
    await eventually('the ConfigMap with the comprehensions', async () =>
      (await cmData(client, f.ns, 'two-var-result')) ? true : undefined,
    );
    assert.deepEqual(await cmData(client, f.ns, 'two-var-result'), {
      transformMapValue: '11',
      transformMapEntryValue: '0',
      transformListSize: '3',
      transformMapFiltered: '2',
    });
  });
});
