// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * kro's ownership scenarios (kro resource_ownership_test.go), ported: managed resources are applied
 * under the field manager `kro.run/applyset` (objects written by kro stay ours to edit), and a second
 * instance that renders the same object neither takes its data nor its ApplySet membership, and does
 * not report ACTIVE. kgraph's own addition: an object another tool's ApplySet holds (absent from kgraph's
 * child caches, which hold kgraph's objects only) is refused the same way.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RestClient } from '../../../src/kube/index.ts';
import { eventually } from '../../support/kube.ts';
import {
  applyInstance,
  applyRgd,
  cm,
  instance,
  type RgdFixture,
  rgd,
  rgdFixture,
  stopRgdController,
  waitRgd,
  waitState,
} from '../rgd/support.ts';
import { cmRef, dataOf, holdsFor, present } from './support.ts';

const PART_OF = 'applyset.kubernetes.io/part-of';

describe('kro conformance: resource ownership', () => {
  let f: RgdFixture;
  let client: RestClient;

  before(async () => {
    f = await rgdFixture('kro-owner');
    client = f.client;
  });
  after(() => stopRgdController(f.controller));

  it('applies managed resources under the field manager kro.run/applyset', async () => {
    const name = 'field-manager';
    await applyRgd(
      client,
      rgd(f, 'kro-owner-field-manager', { kind: 'TestFieldManager', spec: { name: 'string' } }, [
        { id: 'cm', template: cm('${schema.spec.name}-cm', { managed: 'yes' }) },
      ]),
    );
    await waitRgd(client, 'kro-owner-field-manager', 'Ready', 'True');
    await applyInstance(client, instance(f, 'TestFieldManager', name, { name }));
    await waitState(client, f, 'TestFieldManager', name, 'ACTIVE');
    const got = await present(client, cmRef(f.ns, `${name}-cm`));
    const managers = (got.metadata.managedFields ?? []).map((m) => `${m.manager}/${m.operation}`);
    assert.ok(managers.includes('kro.run/applyset/Apply'), `managedFields: ${managers.join(', ')}`);
  });

  it('does not let a second instance take over a resource the first one manages', async () => {
    await applyRgd(
      client,
      rgd(f, 'kro-owner-shared-target', { kind: 'TestSharedTarget', spec: { owner: 'string' } }, [
        { id: 'cm', template: cm('shared-target', { owner: '${schema.spec.owner}' }) },
      ]),
    );
    await waitRgd(client, 'kro-owner-shared-target', 'Ready', 'True');
    await applyInstance(client, instance(f, 'TestSharedTarget', 'owner-a', { owner: 'a' }));
    await waitState(client, f, 'TestSharedTarget', 'owner-a', 'ACTIVE');
    const first = await present(client, cmRef(f.ns, 'shared-target'), (o) => dataOf(o).owner === 'a');
    const applySet = first.metadata.labels?.[PART_OF];
    assert.ok(applySet, 'the managed resource carries an ApplySet membership label');

    await applyInstance(client, instance(f, 'TestSharedTarget', 'owner-b', { owner: 'b' }));
    await holdsFor('the first instance keeps the resource', async () => {
      const o = await client.get(cmRef(f.ns, 'shared-target'));
      return dataOf(o).owner === 'a' && o.metadata.labels?.[PART_OF] === applySet;
    });
    await eventually('owner-b reports a state other than ACTIVE', async () => {
      const o = await client.getOrUndefined({
        apiVersion: `${f.group}/v1alpha1`,
        kind: 'TestSharedTarget',
        namespace: f.ns,
        name: 'owner-b',
      });
      const state = (o?.status as { state?: string } | undefined)?.state;
      return state !== undefined && state !== 'ACTIVE' ? true : undefined;
    });
  });

  it("does not take over a resource of another tool's ApplySet that kgraph has never cached", async () => {
    const foreign = 'applyset-foreign-tool-v1';
    await client.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'foreign-target', namespace: f.ns, labels: { [PART_OF]: foreign } },
      data: { owner: 'tool' },
    });
    await applyRgd(
      client,
      rgd(f, 'kro-owner-foreign-target', { kind: 'TestForeignTarget', spec: { owner: 'string' } }, [
        { id: 'cm', template: cm('foreign-target', { owner: '${schema.spec.owner}' }) },
      ]),
    );
    await waitRgd(client, 'kro-owner-foreign-target', 'Ready', 'True');
    await applyInstance(client, instance(f, 'TestForeignTarget', 'taker', { owner: 'kgraph' }));
    const ref = {
      apiVersion: `${f.group}/v1alpha1`,
      kind: 'TestForeignTarget',
      namespace: f.ns,
      name: 'taker',
    };
    const refused = await eventually('the instance reports the foreign ApplySet', async () => {
      const o = await client.getOrUndefined(ref);
      const conds = (o?.status as { conditions?: { message?: string }[] } | undefined)?.conditions ?? [];
      return conds.find((c) => c.message?.includes('resource belongs to a different ApplySet'));
    });
    assert.match(refused.message ?? '', new RegExp(foreign));
    const o = await client.get(cmRef(f.ns, 'foreign-target'));
    assert.equal(dataOf(o).owner, 'tool');
    assert.equal(o.metadata.labels?.[PART_OF], foreign);
    const managers = (o.metadata.managedFields ?? []).map((m) => m.manager);
    assert.ok(!managers.includes('kro.run/applyset'), `managedFields: ${managers.join(', ')}`);
  });
});
