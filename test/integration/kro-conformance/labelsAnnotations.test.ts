// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * kro's labels-and-annotations scenario (kro annotation_label_test.go), ported: the instance becomes a
 * KEP-3659 ApplySet parent with kro's labels and annotations, and its child carries the instance labels
 * and the part-of label, but not the RGD labels nor app.kubernetes.io/managed-by. The two version values
 * differ on purpose: kro writes its own version ("devel" in its test build, `kro/devel` as tooling), kgraph
 * writes its own.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { APPLYSET_TOOLING, applySetId, KGRAPH_VERSION } from '../../../src/controller/rgd/names.ts';
import type { RestClient } from '../../../src/kube/index.ts';
import {
  applyInstance,
  applyRgd,
  cm,
  eventually,
  getInstance,
  getRgd,
  instance,
  type RgdFixture,
  rgd,
  rgdFixture,
  stopRgdController,
  waitRgd,
} from '../rgd/support.ts';

describe('kro conformance: labels and annotations', () => {
  let f: RgdFixture;
  let client: RestClient;

  before(async () => {
    f = await rgdFixture('kro-labels');
    client = f.client;
  });
  after(() => stopRgdController(f.controller));

  it('marks the instance as ApplySet parent with kro labels, and its child as a member', async () => {
    await applyRgd(
      client,
      rgd(f, 'test-apply', { kind: 'TestApply', spec: { field1: 'string', threshold: 'float' } }, [
        {
          id: 'res1',
          template: cm('${schema.spec.field1}', { threshold: '${string(schema.spec.threshold)}' }),
        },
      ]),
    );
    await waitRgd(client, 'test-apply', 'Ready', 'True');
    const def = await getRgd(client, 'test-apply');
    await applyInstance(client, instance(f, 'TestApply', 'instance', { field1: 'foobar', threshold: 3.14 }));
    const id = applySetId('instance', f.ns, 'TestApply', f.group);
    const inst = await eventually('the instance as ApplySet parent', async () => {
      const o = await getInstance(client, f, 'TestApply', 'instance');
      return o?.metadata.annotations?.['applyset.kubernetes.io/contains-group-kinds'] === 'ConfigMap'
        ? o
        : undefined;
    });
    const annotations = inst.metadata.annotations ?? {};
    assert.equal(annotations['applyset.kubernetes.io/tooling'], APPLYSET_TOOLING);
    assert.equal(annotations['applyset.kubernetes.io/additional-namespaces'], '');
    const labels = inst.metadata.labels ?? {};
    assert.equal(labels['applyset.kubernetes.io/id'], id);
    assert.equal(labels['kro.run/kro-version'], KGRAPH_VERSION);
    assert.equal(labels['kro.run/owned'], 'true');
    assert.equal(labels['kro.run/resource-graph-definition-id'], def?.metadata.uid);
    assert.equal(labels['kro.run/resource-graph-definition-name'], 'test-apply');
    assert.equal('app.kubernetes.io/managed-by' in labels, false);

    const child = await client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: f.ns, name: 'foobar' });
    assert.equal((child.data as Record<string, string>).threshold, '3.14');
    const c = child.metadata.labels ?? {};
    assert.equal(c['applyset.kubernetes.io/part-of'], id);
    assert.equal(c['kro.run/instance-namespace'], f.ns);
    assert.equal(c['kro.run/instance-name'], 'instance');
    assert.equal(c['kro.run/instance-id'], inst.metadata.uid);
    assert.equal(c['kro.run/instance-group'], f.group);
    assert.equal(c['kro.run/instance-version'], 'v1alpha1');
    assert.equal(c['kro.run/instance-kind'], 'TestApply');
    assert.equal(c['kro.run/kro-version'], KGRAPH_VERSION);
    assert.equal(c['kro.run/owned'], 'true');
    assert.equal('kro.run/resource-graph-definition-id' in c, false);
    assert.equal('kro.run/resource-graph-definition-name' in c, false);
  });
});
