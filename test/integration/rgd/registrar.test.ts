// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * The RGD registrar on a real API server (design/rgd.md §19, design/graph.md §21.2): the generated CRD, its
 * conditions and status, breaking-change protection, one RGD per CRD, drift of the CRD, invalid RGDs.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RgdController } from '../../../src/controller/rgd/controller.ts';
import type { KubeObject, RestClient } from '../../../src/kube/index.ts';
import {
  applyRgd,
  cm,
  conditionOf,
  eventually,
  type RgdFixture,
  rgd,
  rgdFixture,
  stopRgdController,
  waitRgd,
} from './support.ts';

const crdTarget = (name: string) => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  name,
});

function specProps(crd: KubeObject | undefined): Record<string, { type?: string }> {
  type Versions = {
    schema: { openAPIV3Schema: { properties: { spec: { properties: Record<string, { type?: string }> } } } };
  }[];
  const versions = (crd?.spec as { versions?: Versions } | undefined)?.versions;
  return versions?.[0]?.schema.openAPIV3Schema.properties.spec.properties ?? {};
}

describe('RGD registrar', () => {
  let f: RgdFixture;
  let client: RestClient;
  let controller: RgdController;

  before(async () => {
    f = await rgdFixture('rgd-reg');
    ({ client, controller } = f);
  });
  after(() => stopRgdController(controller));

  it('generates the instance CRD, waits for Established and reports Active with order and dependencies', async () => {
    await applyRgd(
      client,
      rgd(
        f,
        'shape',
        { kind: 'Shape', spec: { name: 'string | required=true', size: 'integer | default=3' } },
        [
          { id: 'base', template: cm('${schema.spec.name}-base', { size: '${string(schema.spec.size)}' }) },
          { id: 'derived', template: cm('${base.metadata.name}-derived', { from: '${base.metadata.name}' }) },
        ],
      ),
    );
    const r = await waitRgd(client, 'shape', 'Ready', 'True');
    const status = r.status as {
      state: string;
      topologicalOrder: string[];
      resources: { id: string; dependencies: { id: string }[] }[];
    };
    assert.equal(status.state, 'Active');
    assert.deepEqual(status.topologicalOrder, ['base', 'derived']);
    assert.deepEqual(status.resources, [
      { id: 'base', dependencies: [] },
      { id: 'derived', dependencies: [{ id: 'base' }] },
    ]);
    for (const t of ['GraphAccepted', 'KindReady', 'ControllerReady'])
      assert.equal(conditionOf(r, t)?.status, 'True', t);
    // kro's reasons and messages, word for word; the root Ready carries no message, as in kro.
    const said = (t: string) => {
      const c = conditionOf(r, t) as { reason?: string; message?: string } | undefined;
      return [c?.reason, c?.message];
    };
    assert.deepEqual(said('GraphAccepted'), ['Valid', 'resource graph and schema are valid']);
    assert.deepEqual(said('KindReady'), ['Ready', 'kind Shape has been accepted and ready']);
    assert.deepEqual(said('ControllerReady'), ['Running', 'controller is running']);
    assert.deepEqual(said('Ready'), ['Ready', undefined]);
    const crd = await client.get(crdTarget(`shapes.${f.group}`));
    const conds = (crd.status as { conditions: { type: string; status: string }[] }).conditions;
    assert.ok(conds.some((c) => c.type === 'Established' && c.status === 'True'));
    assert.equal(crd.metadata.labels?.['kro.run/resource-graph-definition-name'], 'shape');
    assert.equal(specProps(crd).size?.type, 'integer');
    // The RGD API's printer columns (kubectl get rgd).
    const rgdCrd = await client.get(crdTarget('resourcegraphdefinitions.kro.run'));
    const cols = (
      rgdCrd.spec as { versions: { additionalPrinterColumns: { name: string }[] }[] }
    ).versions[0]?.additionalPrinterColumns.map((c) => c.name);
    assert.deepEqual(cols, ['APIVERSION', 'KIND', 'STATE', 'READY', 'TOPOLOGICALORDER', 'AGE']);
    assert.deepEqual((rgdCrd.spec as { names: { shortNames: string[] } }).names.shortNames, ['rgd']);
  });

  it('reports InvalidResourceGraph with the located diagnostic and serves nothing', async () => {
    await applyRgd(
      client,
      rgd(f, 'broken', { kind: 'Broken', spec: { name: 'string' } }, [
        { id: 'base', template: cm('${schema.spec.name}', { x: '${nope.metadata.name}' }) },
      ]),
    );
    const r = await waitRgd(client, 'broken', 'GraphAccepted', 'False', 'InvalidResourceGraph');
    const msg = conditionOf(r, 'GraphAccepted')?.message ?? '';
    assert.match(msg, /nope/);
    assert.match(msg, /KG\d{4}/);
    assert.match(msg, /spec\.resources\[0\]/);
    assert.match(msg, /:\d+:\d+/);
    assert.equal((r.status as { state: string }).state, 'Inactive');
    assert.equal(await client.getOrUndefined(crdTarget(`brokens.${f.group}`)), undefined);
  });

  it('blocks a breaking CRD change until kro.run/allow-breaking-changes is "true"', async () => {
    const schema = (spec: Record<string, unknown>) => ({ kind: 'Evolving', spec });
    const res = [{ id: 'c', template: cm('${schema.metadata.name}-c', { a: 'x' }) }];
    await applyRgd(client, rgd(f, 'evolving', schema({ name: 'string', replicas: 'integer' }), res));
    await waitRgd(client, 'evolving', 'Ready', 'True');
    // Removing a field and changing a type would invalidate stored instances.
    await applyRgd(client, rgd(f, 'evolving', schema({ name: 'integer' }), res));
    const blocked = await waitRgd(client, 'evolving', 'KindReady', 'False', 'BreakingChange');
    const msg = conditionOf(blocked, 'KindReady')?.message ?? '';
    assert.match(msg, /replicas/);
    assert.match(msg, /kro\.run\/allow-breaking-changes/);
    assert.equal((blocked.status as { state: string }).state, 'Inactive');
    let crd = await client.get(crdTarget(`evolvings.${f.group}`));
    assert.equal(specProps(crd).replicas?.type, 'integer', 'the CRD is left as it was');
    await applyRgd(
      client,
      rgd(f, 'evolving', schema({ name: 'integer' }), res, { 'kro.run/allow-breaking-changes': 'true' }),
    );
    await waitRgd(client, 'evolving', 'Ready', 'True');
    crd = await client.get(crdTarget(`evolvings.${f.group}`));
    assert.equal(specProps(crd).replicas, undefined);
    assert.equal(specProps(crd).name?.type, 'integer');
  });

  it('lets only one RGD own a CRD: the second is Inactive and says who owns it', async () => {
    const res = [{ id: 'c', template: cm('${schema.metadata.name}-c', { a: 'x' }) }];
    await applyRgd(client, rgd(f, 'first', { kind: 'Claimed', spec: { a: 'string' } }, res));
    await waitRgd(client, 'first', 'Ready', 'True');
    await applyRgd(client, rgd(f, 'second', { kind: 'Claimed', spec: { b: 'string' } }, res));
    const second = await waitRgd(client, 'second', 'KindReady', 'False', 'CRDOwnedByAnotherRGD');
    assert.match(conditionOf(second, 'KindReady')?.message ?? '', /owned by ResourceGraphDefinition first/);
    assert.equal((second.status as { state: string }).state, 'Inactive');
    const crd = await client.get(crdTarget(`claimeds.${f.group}`));
    assert.equal(crd.metadata.labels?.['kro.run/resource-graph-definition-name'], 'first');
    assert.ok(specProps(crd).a && !specProps(crd).b, 'the first RGD schema stays');
  });

  it('puts a hand-edited CRD back, recreates a deleted one, and keeps the CRD when the RGD goes', async () => {
    await applyRgd(
      client,
      rgd(f, 'drift', { kind: 'Drift', spec: { name: 'string' } }, [
        { id: 'c', template: cm('${schema.metadata.name}-c', { a: 'x' }) },
      ]),
    );
    await waitRgd(client, 'drift', 'Ready', 'True');
    const name = `drifts.${f.group}`;
    const crd = await client.get(crdTarget(name));
    const edited = structuredClone(crd) as KubeObject & {
      spec: {
        versions: {
          schema: { openAPIV3Schema: { properties: { spec: { properties: Record<string, unknown> } } } };
        }[];
      };
    };
    const props = edited.spec.versions[0]?.schema.openAPIV3Schema.properties.spec.properties;
    if (props) props.name = { type: 'integer' };
    await client.update(edited);
    await eventually('CRD put back', async () =>
      specProps(await client.get(crdTarget(name))).name?.type === 'string' ? true : undefined,
    );
    const old = await client.get(crdTarget(name));
    await client.delete(crdTarget(name));
    await eventually(
      'CRD recreated',
      async () => {
        const now = await client.getOrUndefined(crdTarget(name));
        return now && now.metadata.uid !== old.metadata.uid && !now.metadata.deletionTimestamp
          ? true
          : undefined;
      },
      60_000,
    );
    await waitRgd(client, 'drift', 'Ready', 'True');
    await client.delete({ apiVersion: 'kro.run/v1alpha1', kind: 'ResourceGraphDefinition', name: 'drift' });
    await eventually('RGD gone', async () =>
      (await client.getOrUndefined({
        apiVersion: 'kro.run/v1alpha1',
        kind: 'ResourceGraphDefinition',
        name: 'drift',
      })) === undefined
        ? true
        : undefined,
    );
    await controller.idle();
    assert.ok(await client.getOrUndefined(crdTarget(name)), 'the CRD is not deleted with its RGD');
  });
});
