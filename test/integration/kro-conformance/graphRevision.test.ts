// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * kro's GraphRevision scenarios about instances (kro graphrevision_test.go and graphrevision_isolated_test.go),
 * ported: instances are reconciled from the current revision's graph, an RGD spec change reaches them, a later
 * invalid RGD edit keeps them served by the last good revision, and a live instance keeps following the
 * latest revision while retention deletes the old ones. kro's invalid edit is a VPC/Subnet cycle over the ACK
 * EC2 kinds its envtest carries; we install stand-ins of the two on the plane without workload controllers
 * (the Deployments here are only read back, never waited on).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { isAlreadyExists } from '../../../src/kube/errors.ts';
import type { KubeObject, RestClient } from '../../../src/kube/index.ts';
import { waitCrdEstablished } from '../../support/kube.ts';
import {
  applyInstance,
  applyRgd,
  cmData,
  conditionOf,
  eventually,
  getRgd,
  instance,
  rgd,
  startRgdController,
  stopRgdController,
  waitRgd,
} from '../rgd/support.ts';
import { ACK_GROUP, ackCrd, handStatusFixture, holdsFor, planeWithoutWorkloads } from './support.ts';

type Hand = Awaited<ReturnType<typeof handStatusFixture>>;

const str = { type: 'string' };
const ACK_CRDS = [
  ackCrd('VPC', { cidrBlocks: { type: 'array', items: str } }, { vpcID: str }),
  ackCrd('Subnet', { vpcID: str, cidrBlock: str }, { subnetID: str }),
];
const GR = { apiVersion: 'internal.kro.run/v1alpha1', kind: 'GraphRevision' };

const lastIssued = (r: KubeObject | undefined): unknown =>
  (r?.status as { lastIssuedRevision?: number } | undefined)?.lastIssuedRevision;
const stateOf = (r: KubeObject | undefined): unknown => (r?.status as { state?: string } | undefined)?.state;

describe('kro conformance: GraphRevisions serving instances', () => {
  let h: Hand;
  let client: RestClient;

  before(async () => {
    h = await handStatusFixture('kro-gr');
    client = h.client;
    for (const crd of ACK_CRDS) {
      try {
        await client.create(crd);
      } catch (e) {
        if (!isAlreadyExists(e)) throw e;
      }
      await waitCrdEstablished(client, crd.metadata.name ?? '');
    }
    client.discovery.invalidate(GR.apiVersion);
  });
  // `h.controller` may be replaced by a test (a restart): stop whichever runs.
  after(async () => {
    await stopRgdController(h.controller);
    client.close();
  });

  /** The revision numbers of an RGD, found by kro's label. */
  const revisionNumbers = async (rgdName: string): Promise<number[]> =>
    (await client.list(GR, { labelSelector: `kro.run/resource-graph-definition-name=${rgdName}` })).items
      .filter((r) => !r.metadata.deletionTimestamp)
      .map((r) => (r.spec as { revision: number }).revision)
      .sort((a, b) => a - b);

  /** kro's configmapRGD; `label` is the revision label its template-label edits set. */
  const configmapRgd = (name: string, kind: string, label?: string) =>
    rgd(h, name, { kind, spec: { data: 'string | default=hello' } }, [
      {
        id: 'configmap',
        template: {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: {
            name: 'cm-${schema.metadata.name}',
            ...(label ? { labels: { revision: label } } : {}),
          },
          data: { key: '${schema.spec.data}' },
        },
      },
    ]);

  /** kro's invalidConfigmapRGD: the ConfigMap replaced by a VPC and a Subnet that need each other (a cycle). */
  const invalidConfigmapRgd = (name: string, kind: string) =>
    rgd(h, name, { kind, spec: { data: 'string | default=hello' } }, [
      {
        id: 'vpc',
        template: {
          apiVersion: `${ACK_GROUP}/v1alpha1`,
          kind: 'VPC',
          metadata: { name: '${subnet.status.subnetID}' },
          spec: { cidrBlocks: ['192.168.0.0/16'] },
        },
      },
      {
        id: 'subnet',
        template: {
          apiVersion: `${ACK_GROUP}/v1alpha1`,
          kind: 'Subnet',
          metadata: { name: 'test-subnet' },
          spec: { vpcID: '${vpc.status.vpcID}', cidrBlock: '192.168.1.0/24' },
        },
      },
    ]);

  /** kro's simpleDeploymentRGD; `image` is the schema's default image. */
  const deploymentRgd = (name: string, kind: string, image = 'nginx:latest') =>
    rgd(h, name, { kind, spec: { replicas: 'integer | default=1', image: `string | default=${image}` } }, [
      {
        id: 'deployment',
        template: {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name: 'deploy-${schema.metadata.name}' },
          spec: {
            replicas: '${schema.spec.replicas}',
            selector: { matchLabels: { app: 'test' } },
            template: {
              metadata: { labels: { app: 'test' } },
              spec: { containers: [{ name: 'app', image: '${schema.spec.image}' }] },
            },
          },
        },
      },
    ]);

  const deployment = (name: string) =>
    client.getOrUndefined({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: h.ns, name });
  const deploymentShape = (d: KubeObject | undefined): [unknown, unknown] => {
    const spec = d?.spec as
      | { replicas?: number; template: { spec: { containers: { image?: string }[] } } }
      | undefined;
    return [spec?.replicas, spec?.template.spec.containers[0]?.image];
  };
  const cmHas = (name: string, key: string, value: string) =>
    eventually(`ConfigMap ${name} ${key}=${value}`, async () =>
      (await cmData(client, h.ns, name))?.[key] === value ? true : undefined,
    );

  // kro graphrevision_test.go:65
  it('keeps serving the last good revision when a later RGD update is invalid', async () => {
    const name = 'gv-invalid';
    const kind = 'GvInvalid';
    await applyRgd(client, configmapRgd(name, kind));
    await waitRgd(client, name, 'Ready', 'True');
    await applyInstance(client, instance(h, kind, 'inst-a', { data: 'hello' }));
    await cmHas('cm-inst-a', 'key', 'hello');

    await applyRgd(client, invalidConfigmapRgd(name, kind));
    const rejected = await eventually(
      'the invalid edit refused, the kind still served',
      async () => {
        const r = await getRgd(client, name);
        const gen = r?.metadata.generation;
        const c = (type: string) => conditionOf(r, type);
        const ok =
          lastIssued(r) === 1 &&
          stateOf(r) === 'Inactive' &&
          c('GraphAccepted')?.status === 'False' &&
          c('GraphAccepted')?.observedGeneration === gen &&
          c('GraphRevisionsResolved')?.status === 'True' &&
          c('GraphRevisionsResolved')?.observedGeneration === gen &&
          c('KindReady')?.status === 'True' &&
          c('ControllerReady')?.status === 'True' &&
          c('Ready')?.status === 'False' &&
          c('Ready')?.observedGeneration === gen;
        return ok ? r : undefined;
      },
      20_000,
    );
    assert.ok(rejected);
    await holdsFor('one revision', async () => JSON.stringify(await revisionNumbers(name)) === '[1]', 5_000);

    // The instance is still reconciled, by revision 1's graph.
    await applyInstance(client, instance(h, kind, 'inst-a', { data: 'world' }));
    await cmHas('cm-inst-a', 'key', 'world');
  });

  // kgraph: kro serves its revision registry's last good graph after a restart too; we read the newest GraphRevision.
  it('a controller restarted while the RGD is invalid serves the newest revision', async () => {
    const name = 'gv-restart';
    const kind = 'GvRestart';
    await applyRgd(client, configmapRgd(name, kind, 'v1'));
    await waitRgd(client, name, 'Ready', 'True');
    await applyInstance(client, instance(h, kind, 'inst-r', { data: 'hello' }));
    await cmHas('cm-inst-r', 'key', 'hello');
    await applyRgd(client, invalidConfigmapRgd(name, kind));
    await waitRgd(client, name, 'GraphAccepted', 'False');

    // A new controller process: nothing in memory, the spec invalid.
    await stopRgdController(h.controller);
    h.controller = await startRgdController(h.suite, h.ns, { plane: await planeWithoutWorkloads() });
    await applyInstance(client, instance(h, kind, 'inst-r', { data: 'after-restart' }));
    await cmHas('cm-inst-r', 'key', 'after-restart');
    const r = await getRgd(client, name);
    assert.equal(conditionOf(r, 'GraphAccepted')?.status, 'False');
    assert.equal(conditionOf(r, 'ControllerReady')?.status, 'True');
    assert.equal(lastIssued(r), 1);
    // Served at revision 1: the instance says so.
    const inst = await client.get({
      apiVersion: `${h.group}/v1alpha1`,
      kind,
      namespace: h.ns,
      name: 'inst-r',
    });
    assert.equal(inst.metadata.labels?.['kgraph.dev/revision'], '1');
  });

  // kro graphrevision_test.go:192
  it('resolves the compiled graph from the registry and reconciles instances', async () => {
    const kind = 'GvResolve';
    await applyRgd(client, deploymentRgd('gv-resolve', kind));
    await waitRgd(client, 'gv-resolve', 'Ready', 'True');
    await applyInstance(client, instance(h, kind, 'inst-r', { image: 'nginx:1.25', replicas: 2 }));
    await eventually('the Deployment from the revision', async () => {
      const shape = deploymentShape(await deployment('deploy-inst-r'));
      return shape[0] === 2 && shape[1] === 'nginx:1.25' ? true : undefined;
    });
  });

  // kro graphrevision_test.go:246
  it('serves the updated graph to instances after an RGD spec change', async () => {
    const name = 'gv-update';
    const kind = 'GvUpdate';
    await applyRgd(client, deploymentRgd(name, kind));
    await waitRgd(client, name, 'Ready', 'True');
    await applyInstance(client, instance(h, kind, 'inst-u', { image: 'nginx:1.25', replicas: 1 }));
    await eventually('the first Deployment', async () => deployment('deploy-inst-u'));

    await applyRgd(client, deploymentRgd(name, kind, 'nginx:1.26-updated'));
    await eventually('revision 2, active', async () => {
      const r = await getRgd(client, name);
      return stateOf(r) === 'Active' && Number(lastIssued(r)) >= 2 ? true : undefined;
    });
    await applyInstance(client, instance(h, kind, 'inst-u', { image: 'nginx:1.26-updated', replicas: 1 }));
    await eventually(
      'the Deployment updated',
      async () =>
        deploymentShape(await deployment('deploy-inst-u'))[1] === 'nginx:1.26-updated' ? true : undefined,
      60_000,
    );
  });

  // kro graphrevision_test.go:384
  it('serves instances using the compiled graph from the current revision', async () => {
    const name = 'gr-serve';
    const kind = 'GrServe';
    await applyRgd(client, configmapRgd(name, kind));
    await eventually('active', async () =>
      stateOf(await getRgd(client, name)) === 'Active' ? true : undefined,
    );
    await applyInstance(client, instance(h, kind, 'inst-s', { data: 'v1-value' }));
    await cmHas('cm-inst-s', 'key', 'v1-value');
    await eventually('revision 1', async () =>
      JSON.stringify(await revisionNumbers(name)) === '[1]' ? true : undefined,
    );
    await applyInstance(client, instance(h, kind, 'inst-s', { data: 'v2-value' }));
    await cmHas('cm-inst-s', 'key', 'v2-value');
  });

  // kro graphrevision_isolated_test.go:160 (kro's retention limit there is 5, kgraph's default)
  it('keeps migrating a live instance while old graph revisions are garbage-collected', async () => {
    const name = 'gv-live-gc';
    const kind = 'GvLiveGC';
    const retained = 5;
    await applyRgd(client, configmapRgd(name, kind));
    await waitRgd(client, name, 'Ready', 'True');
    await applyInstance(client, instance(h, kind, 'inst-g', { data: 'sticky-value' }));
    await cmHas('cm-inst-g', 'key', 'sticky-value');

    const latest = retained + 5;
    for (let revision = 2; revision <= latest; revision++) {
      await applyRgd(client, configmapRgd(name, kind, `rev-${revision}`));
      const first = Math.max(1, revision - retained + 1);
      const expected = Array.from({ length: revision - first + 1 }, (_, i) => first + i);
      await eventually(
        `revision ${revision} served, revisions ${expected}`,
        async () => {
          const r = await getRgd(client, name);
          if (stateOf(r) !== 'Active' || lastIssued(r) !== revision) return undefined;
          const c = await client.getOrUndefined({
            apiVersion: 'v1',
            kind: 'ConfigMap',
            namespace: h.ns,
            name: 'cm-inst-g',
          });
          if ((c?.data as Record<string, string> | undefined)?.key !== 'sticky-value') return undefined;
          if (c?.metadata.labels?.revision !== `rev-${revision}`) return undefined;
          return JSON.stringify(await revisionNumbers(name)) === JSON.stringify(expected) ? true : undefined;
        },
        60_000,
      );
    }
  });
});
