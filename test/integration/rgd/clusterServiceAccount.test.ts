// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * `spec.defaultServiceAccounts` on a cluster-scoped RGD (docs/rgd.md, "Trust model"): its instances have
 * no namespace, so the RGD maps `*` to `NAMESPACE/NAME`, one ServiceAccount in a namespace the RGD
 * author names, and every instance reads and writes as it. A bare ServiceAccount name there is refused
 * by the compiler, saying why. The instance of the accepted RGD copies another namespace's Secret into
 * a ConfigMap: the read is refused (ReadForbidden naming the ServiceAccount), reading is granted, the
 * write is then refused as the ServiceAccount (so it is impersonated), and writing is granted: ACTIVE.
 * Deleting the instance deletes the child as the ServiceAccount.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RgdController } from '../../../src/controller/rgd/controller.ts';
import type { KubeObject, RestClient } from '../../../src/kube/index.ts';
import { grantServiceAccount, testNamespace } from '../../support/kube.ts';
import {
  applyInstance,
  applyRgd,
  cmData,
  conditionOf,
  eventually,
  getCm,
  type RgdFixture,
  rgd,
  rgdFixture,
  stopRgdController,
  waitRgd,
} from './support.ts';

const SA = 'instances';
const PASSWORD = 'hunter2';
const b64 = (p: string) => Buffer.from(p).toString('base64');

describe('a cluster-scoped RGD whose instances run as a ServiceAccount in a named namespace', () => {
  let f: RgdFixture;
  let client: RestClient;
  let controller: RgdController;
  /** Where the ServiceAccount lives (neither the Secret's namespace nor the child's). */
  let home: string;
  let teamB: string;

  /** A cluster-scoped RGD copying team-b's password into a ConfigMap in the fixture's namespace. */
  function copyRgd(name: string, kind: string, sas: Record<string, string>): KubeObject {
    const r = rgd(
      f,
      name,
      { kind, scope: 'Cluster', spec: { name: 'string' }, status: { copied: '${out.metadata.name}' } },
      [
        {
          id: 's',
          externalRef: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'db', namespace: teamB } },
        },
        {
          id: 'out',
          template: {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: '${schema.spec.name}', namespace: f.ns },
            data: { password: '${string(s.data.password)}' },
          },
        },
      ],
    );
    (r.spec as Record<string, unknown>).defaultServiceAccounts = sas;
    return r;
  }

  const instanceRef = (kind: string, name: string) => ({ apiVersion: `${f.group}/v1alpha1`, kind, name });

  /** Waits until the cluster-scoped instance's `status.state` is `state` and `check` holds. */
  async function waitClusterState(
    kind: string,
    name: string,
    state: string,
    check: (o: KubeObject) => boolean = () => true,
  ): Promise<KubeObject> {
    let last: KubeObject | undefined;
    try {
      return await eventually(
        `${kind} ${name} ${state}`,
        async () => {
          const o = await client.getOrUndefined(instanceRef(kind, name));
          last = o;
          const ready = conditionOf(o, 'Ready');
          if (!o || (o.status as { state?: string } | undefined)?.state !== state) return undefined;
          if (ready && ready.observedGeneration !== o.metadata.generation) return undefined;
          return check(o) ? o : undefined;
        },
        60_000,
      );
    } catch (e) {
      throw new Error(`${(e as Error).message}; last status: ${JSON.stringify(last?.status)}`);
    }
  }

  const grant = (ns: string, name: string, resources: string[], verbs: string[]) =>
    grantServiceAccount(client, ns, name, resources, verbs, { name: SA, namespace: home });

  before(async () => {
    f = await rgdFixture('rgd-csa');
    ({ client, controller } = f);
    home = await testNamespace('csa-home');
    teamB = await testNamespace('csa-team-b');
    await client.create({
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: SA, namespace: home },
    });
    await client.create({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'db', namespace: teamB },
      data: { password: b64(PASSWORD) },
    });
  });
  after(() => stopRgdController(controller));

  it('a bare ServiceAccount name is refused: the instances have no namespace to find it in', async () => {
    await applyRgd(client, copyRgd('bare', 'BareCopy', { '*': SA }));
    const r = await waitRgd(client, 'bare', 'GraphAccepted', 'False', 'InvalidResourceGraph');
    const msg = conditionOf(r, 'GraphAccepted')?.message ?? '';
    assert.match(msg, /KG2008/);
    assert.match(
      msg,
      /spec\.defaultServiceAccounts\["\*"\] "instances" must be NAMESPACE\/NAME, a namespace and the name of a ServiceAccount in it: the instances of a cluster-scoped RGD have no namespace of their own/,
    );
  });

  it('"*": NAMESPACE/NAME: reads checked and writes made as that ServiceAccount, each grant reaching the instance', async () => {
    await applyRgd(client, copyRgd('elsewhere', 'ElsewhereCopy', { '*': `${home}/${SA}` }));
    await waitRgd(client, 'elsewhere', 'Ready', 'True');
    await applyInstance(client, {
      apiVersion: `${f.group}/v1alpha1`,
      kind: 'ElsewhereCopy',
      metadata: { name: 'copy' },
      spec: { name: 'copy-out' },
    });

    const refused = await waitClusterState(
      'ElsewhereCopy',
      'copy',
      'ERROR',
      (x) => conditionOf(x, 'ResourcesReady')?.reason === 'ReadForbidden',
    );
    assert.match(
      conditionOf(refused, 'ResourcesReady')?.message ?? '',
      new RegExp(
        `node s: system:serviceaccount:${home}:${SA} may not get secrets "db" in namespace ${teamB}`,
      ),
    );
    assert.equal((refused.status as { copied?: unknown }).copied, undefined, 'no status field derived');
    assert.equal(await getCm(client, f.ns, 'copy-out'), undefined, 'the derived ConfigMap is not written');

    // Reading is granted (the Secret, and the child it observes); writing is not: the apply,
    // impersonating the ServiceAccount, is refused.
    await grant(teamB, 'secret-reader', ['secrets'], ['get']);
    await grant(f.ns, 'cm-reader', ['configmaps'], ['get', 'list', 'watch']);
    const unwritten = await waitClusterState(
      'ElsewhereCopy',
      'copy',
      'ERROR',
      (x) => conditionOf(x, 'ResourcesReady')?.reason === 'NotReady',
    );
    assert.match(
      conditionOf(unwritten, 'ResourcesReady')?.message ?? '',
      new RegExp(`system:serviceaccount:${home}:${SA}.* cannot (patch|create)`),
    );
    assert.equal(await getCm(client, f.ns, 'copy-out'), undefined);

    await grant(
      f.ns,
      'cm-writer',
      ['configmaps'],
      ['get', 'list', 'watch', 'create', 'patch', 'update', 'delete'],
    );
    const ok = await waitClusterState('ElsewhereCopy', 'copy', 'ACTIVE');
    assert.equal((ok.status as { copied?: unknown }).copied, 'copy-out');
    // string() of a Secret's data decodes it: the schema says format: byte (as kro converts it).
    assert.equal((await cmData(client, f.ns, 'copy-out'))?.password, PASSWORD);

    // Deleting the instance deletes its child as the ServiceAccount (which may delete ConfigMaps).
    // Gone is judged by UID: an object of the same name with another UID is not the one deleted.
    const instanceUid = ok.metadata.uid;
    const childUid = (await getCm(client, f.ns, 'copy-out'))?.metadata.uid;
    assert.ok(instanceUid && childUid, 'the instance and its child have UIDs');
    await client.delete(instanceRef('ElsewhereCopy', 'copy'), { preconditions: { uid: instanceUid } });
    await eventually('the instance and its child (by UID) are gone', async () =>
      (await client.getOrUndefined(instanceRef('ElsewhereCopy', 'copy')))?.metadata.uid !== instanceUid &&
      (await getCm(client, f.ns, 'copy-out'))?.metadata.uid !== childUid
        ? true
        : undefined,
    );
  });
});
