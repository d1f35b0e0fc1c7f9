// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * kro's validation scenarios (kro validation_test.go), ported: the API server refuses RGDs with invalid
 * short names, categories or kind names (the RGD CRD's schema), and an RGD left Inactive by a bad
 * expression can be deleted.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RestClient } from '../../../src/kube/index.ts';
import { getRgd, type RgdFixture, rgd, rgdFixture, stopRgdController } from '../rgd/support.ts';
import { absent, present } from './support.ts';

describe('kro conformance: validation', () => {
  let f: RgdFixture;
  let client: RestClient;

  before(async () => {
    f = await rgdFixture('kro-valid');
    client = f.client;
  });
  after(() => stopRgdController(f.controller));

  const refused = async (what: string, schema: Record<string, unknown>) => {
    const name = `kro-valid-${Math.random().toString(36).slice(2, 7)}`;
    await assert.rejects(
      client.create(rgd(f, name, { spec: { name: 'string' }, ...schema }, [])),
      (e: unknown) => e instanceof Error,
      `${what} should be refused at admission`,
    );
  };

  it('refuses invalid short names and categories at admission', async () => {
    await refused('uppercase short name', { kind: 'AliasValidation', shortNames: ['WA'] });
    await refused('duplicate short name', { kind: 'AliasValidation', shortNames: ['wa', 'wa'] });
    await refused('too long short name', { kind: 'AliasValidation', shortNames: ['a'.repeat(64)] });
    await refused('uppercase category', { kind: 'AliasValidation', categories: ['Kro'] });
    await refused('duplicate category', { kind: 'AliasValidation', categories: ['platform', 'platform'] });
  });

  it('refuses invalid kind names at admission', async () => {
    for (const kind of [
      'testResource',
      'Test_Resource',
      'Test-Resource',
      '123Test',
      'Test.Resource',
      'Test!',
      'TestThisIsAValidButReallyLongNameSoLongThatItIsGreaterThan63Characters',
    ]) {
      await refused(`kind ${kind}`, { kind });
    }
  });

  it('deletes an RGD left Inactive by a bad expression', async () => {
    const name = 'kro-valid-cleanup';
    await client.create(
      rgd(f, name, { kind: 'TestCleanup', spec: { name: 'string' } }, [
        {
          id: 'testResource',
          template: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: '${Bad expression}' } },
        },
      ]),
    );
    const ref = { apiVersion: 'kro.run/v1alpha1', kind: 'ResourceGraphDefinition', name };
    await present(client, ref, (o) => {
      const s = o.status as { state?: string; topologicalOrder?: string[] } | undefined;
      return s?.state === 'Inactive' && (s.topologicalOrder ?? []).length === 0;
    });
    assert.ok(await getRgd(client, name));
    await client.delete(ref);
    await absent(client, ref);
  });
});
