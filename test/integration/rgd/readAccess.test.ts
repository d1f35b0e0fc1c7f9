// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * RGD instances read and write as the RGD's ServiceAccount (docs/rgd.md
 * "Trust model"). The RGD controller runs as the cluster admin, which may read every Secret. An RGD whose
 * instances run as `app` (spec.defaultServiceAccounts) has an externalRef to a Secret in team-b and a
 * ConfigMap template carrying its password: the read is refused (ReadForbidden naming node, verb and
 * resource) and nothing is written. The same RGD without the field reads with the controller's identity,
 * as kro does. Granting step by step shows that observed children are checked too, that children are
 * written impersonating the ServiceAccount, and that each grant reaches the instance through the RBAC
 * watch.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RgdController } from '../../../src/controller/rgd/controller.ts';
import type { KubeObject, RestClient } from '../../../src/kube/index.ts';
import { grantServiceAccount, testNamespace } from '../../support/kube.ts';
import {
  applyInstance,
  applyRgd,
  cm,
  cmData,
  conditionOf,
  eventually,
  getCm,
  getInstance,
  instance,
  type RgdFixture,
  rgd,
  rgdFixture,
  stopRgdController,
  waitRgd,
  waitState,
} from './support.ts';

const SA = 'app';
const PASSWORD = 'hunter2';
/** Secret data as stored; string() of it in a template decodes it (the schema says format: byte, as kro reads it). */
const b64 = (p: string) => Buffer.from(p).toString('base64');

const grant = (c: RestClient, ns: string, name: string, resources: string[], verbs: string[], saNs: string) =>
  grantServiceAccount(c, ns, name, resources, verbs, { name: SA, namespace: saNs });

describe('RGD instances read and write as spec.defaultServiceAccounts', () => {
  let f: RgdFixture;
  let client: RestClient;
  let controller: RgdController;
  let teamB: string;
  /** When the scoped instance was first seen refused (its retry backoff grows from then on). */
  let refusedAt = 0;

  /** An RGD copying team-b's password into a ConfigMap; `sas` is its defaultServiceAccounts. */
  function leakRgd(name: string, kind: string, sas?: Record<string, string>): KubeObject {
    const r = rgd(f, name, { kind, spec: { name: 'string' }, status: { copied: '${out.metadata.name}' } }, [
      {
        id: 's',
        externalRef: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'db', namespace: teamB } },
      },
      { id: 'out', template: cm('${schema.spec.name}', { password: '${string(s.data.password)}' }) },
    ]);
    if (sas) (r.spec as Record<string, unknown>).defaultServiceAccounts = sas;
    return r;
  }

  before(async () => {
    f = await rgdFixture('rgd-sa');
    ({ client, controller } = f);
    teamB = await testNamespace('team-b');
    await client.create({
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: SA, namespace: f.ns },
    });
    await client.create({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'db', namespace: teamB },
      data: { password: b64(PASSWORD) },
    });
  });
  after(() => stopRgdController(controller));

  it("refuses the RGD ServiceAccount's read of another namespace's Secret and writes nothing", async () => {
    // Without the field: the controller's identity, as kro (docs/rgd.md says so).
    await applyRgd(client, leakRgd('open', 'OpenCopy'));
    await applyRgd(client, leakRgd('scoped', 'ScopedCopy', { [f.ns]: SA }));
    await waitRgd(client, 'open', 'Ready', 'True');
    await waitRgd(client, 'scoped', 'Ready', 'True');
    await applyInstance(client, instance(f, 'OpenCopy', 'open', { name: 'open-out' }));
    await applyInstance(client, instance(f, 'ScopedCopy', 'scoped', { name: 'scoped-out' }));

    await waitState(client, f, 'OpenCopy', 'open', 'ACTIVE');
    assert.equal((await cmData(client, f.ns, 'open-out'))?.password, PASSWORD);

    const o = await waitState(
      client,
      f,
      'ScopedCopy',
      'scoped',
      'ERROR',
      (x) => conditionOf(x, 'ResourcesReady')?.reason === 'ReadForbidden',
    );
    assert.match(
      conditionOf(o, 'ResourcesReady')?.message ?? '',
      new RegExp(
        `node s: system:serviceaccount:${f.ns}:${SA} may not get secrets "db" in namespace ${teamB}`,
      ),
    );
    refusedAt = Date.now();
    assert.equal(conditionOf(o, 'Ready')?.reason, 'ReadForbidden');
    assert.equal((o.status as { copied?: unknown }).copied, undefined, 'no status field derived');
    assert.equal(await getCm(client, f.ns, 'scoped-out'), undefined, 'the derived ConfigMap is not written');
  });

  it('each grant reaches the instance: the Secret, then its own child, then writing it as the ServiceAccount', async () => {
    // Refused for 10 s, the instance's next retry is at least 11 s away (3, 6, 12 s backoff): a grant
    // must reach it through the RBAC watch instead.
    const heard: string[] = [];
    controller.reads.onChange((users) => heard.push(...users));
    await new Promise((r) => setTimeout(r, Math.max(0, refusedAt + 10_000 - Date.now())));
    const granted = Date.now();
    // The Secret may be read now; the child the ServiceAccount would observe may not.
    await grant(client, teamB, 'secret-reader', ['secrets'], ['get'], f.ns);
    const child = await waitState(client, f, 'ScopedCopy', 'scoped', 'ERROR', (x) =>
      /may not get configmaps "scoped-out"/.test(conditionOf(x, 'ResourcesReady')?.message ?? ''),
    );
    const took = Date.now() - granted;
    assert.ok(
      took < 8_000,
      `the grant reached the instance after ${took} ms (the backoff, not the RBAC watch)`,
    );
    assert.ok(heard.includes(`system:serviceaccount:${f.ns}:${SA}`), 'the recheck named the ServiceAccount');
    assert.equal(conditionOf(child, 'ResourcesReady')?.reason, 'ReadForbidden');
    assert.equal(await getCm(client, f.ns, 'scoped-out'), undefined);

    // Reading its ConfigMaps is not writing them: the apply, impersonating the ServiceAccount, is refused.
    await grant(client, f.ns, 'cm-reader', ['configmaps'], ['get', 'list', 'watch'], f.ns);
    const refused = await waitState(
      client,
      f,
      'ScopedCopy',
      'scoped',
      'ERROR',
      (x) => conditionOf(x, 'ResourcesReady')?.reason === 'NotReady',
    );
    assert.match(
      conditionOf(refused, 'ResourcesReady')?.message ?? '',
      new RegExp(`system:serviceaccount:${f.ns}:${SA}.* cannot (patch|create)`),
    );
    assert.equal(await getCm(client, f.ns, 'scoped-out'), undefined);

    await grant(
      client,
      f.ns,
      'cm-writer',
      ['configmaps'],
      ['get', 'list', 'watch', 'create', 'patch', 'update', 'delete'],
      f.ns,
    );
    const ok = await waitState(client, f, 'ScopedCopy', 'scoped', 'ACTIVE');
    assert.equal((ok.status as { copied?: unknown }).copied, 'scoped-out');
    assert.equal((await cmData(client, f.ns, 'scoped-out'))?.password, PASSWORD);

    // Revoking the Secret read stops further reads: a new password is not copied.
    await client.delete({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      namespace: teamB,
      name: 'secret-reader',
    });
    await waitState(
      client,
      f,
      'ScopedCopy',
      'scoped',
      'ERROR',
      (x) => conditionOf(x, 'ResourcesReady')?.reason === 'ReadForbidden',
    );
    await client.apply(
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'db', namespace: teamB },
        data: { password: b64('second') },
      },
      { fieldManager: 'test', force: true },
    );
    // The instance without the field copies it (so the change was seen); the scoped one reads nothing.
    await eventually('the open instance copies the second password', async () =>
      (await cmData(client, f.ns, 'open-out'))?.password === 'second' ? true : undefined,
    );
    await controller.idle(30_000);
    assert.equal((await cmData(client, f.ns, 'scoped-out'))?.password, PASSWORD, 'nothing new read');

    // Deleting the instance deletes its child as the ServiceAccount (which may delete ConfigMaps).
    await client.delete({
      apiVersion: `${f.group}/v1alpha1`,
      kind: 'ScopedCopy',
      namespace: f.ns,
      name: 'scoped',
    });
    await eventually('the scoped instance and its child are gone', async () =>
      (await getInstance(client, f, 'ScopedCopy', 'scoped')) === undefined &&
      (await getCm(client, f.ns, 'scoped-out')) === undefined
        ? true
        : undefined,
    );
  });
});
