/** The write fence of a client (kube/fence.ts): writes refused locally with a typed error, reads go on. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { isWriteFenced, WRITE_FENCED } from '../../../src/kube/fence.ts';
import type { RestClient } from '../../../src/kube/rest.ts';
import { testClient, testNamespace } from '../../support/kube.ts';

let client: RestClient;
let ns: string;
before(async () => {
  client = await testClient();
  ns = await testNamespace('fence');
});
after(() => client.close());

describe('write fence', () => {
  it('refuses every write of the client and its copies while the fence says so; reads are never fenced', async () => {
    let refusal: string | undefined;
    client.setWriteFence({ refusal: () => refusal });
    const cm = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'f', namespace: ns },
      data: { a: '1' },
    };
    await client.create(cm);
    refusal = 'lease too old';
    const copy = client.withImpersonation({ user: 'system:serviceaccount:x:y' });
    for (const write of [
      () => client.apply(cm, { fieldManager: 't' }),
      () => copy.create({ ...cm, metadata: { name: 'g', namespace: ns } }),
      () => client.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'f' }),
    ]) {
      await assert.rejects(
        write(),
        (e: unknown) => isWriteFenced(e) && e.code === WRITE_FENCED && /lease too old/.test(e.message),
      );
    }
    assert.ok(await client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'f' }));
    refusal = undefined;
    client.setWriteFence(undefined);
    await client.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: ns, name: 'f' });
  });
});
