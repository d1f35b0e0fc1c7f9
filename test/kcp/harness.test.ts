// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the blueprint quotes a kgraph ${…} expression
/**
 * The kcp harness (tools/kcp-testenv, src/localplane/kcpControlPlane.ts) on a real kcp v0.30.0: it starts on
 * loopback with ports of its own, creates the workspaces asked for, each a logical cluster of its own
 * reached through its /clusters/<path> URL, and serves the kcp APIs the planes backend needs.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { waitForCrd } from '../../src/controller/core/crdReady.ts';
import { blueprintCrd } from '../../src/controller/planes/crds.ts';
import { APIS_KCP_V1ALPHA2 } from '../../src/kube/kcp.ts';
import { RestClient } from '../../src/kube/rest.ts';
import { type KcpControlPlane, kcpBinary, startKcp } from '../../src/localplane/kcpControlPlane.ts';
import { freePort, spawnController, waitReadyz } from '../support/controllerProcess.ts';
import { eventually } from '../support/kube.ts';

describe('kcp harness', () => {
  let kcp: KcpControlPlane;
  before(async () => {
    kcp = await startKcp({
      dataDir: mkdtempSync(join(tmpdir(), 'kgraph-kcp-')),
      binary: kcpBinary({ build: true, log: (l) => process.stderr.write(`${l}\n`) }),
    });
  });
  after(async () => {
    await kcp?.stop();
    if (kcp) rmSync(kcp.dataDir, { recursive: true, force: true });
  });

  it('creates provider and consumer workspaces, each its own logical cluster', async () => {
    const provider = await kcp.workspace('provider');
    const consumers = [await kcp.workspace('consumer-a'), await kcp.workspace('consumer-b')];
    assert.equal(provider.path, 'root:provider');
    const clusters = new Set([provider.cluster, ...consumers.map((c) => c.cluster)]);
    assert.equal(clusters.size, 3, 'three distinct logical clusters');
    // Asking again returns the same workspace.
    assert.equal((await kcp.workspace('consumer-a')).cluster, consumers[0]?.cluster);

    // An object written in one workspace is not visible in another.
    const a = new RestClient(consumers[0]!.kc);
    const b = new RestClient(consumers[1]!.kc);
    try {
      await a.create({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'only-in-a', namespace: 'default' },
        data: { k: 'v' },
      });
      const inA = await a.getOrUndefined({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        namespace: 'default',
        name: 'only-in-a',
      });
      const inB = await b.getOrUndefined({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        namespace: 'default',
        name: 'only-in-a',
      });
      assert.deepEqual(inA?.data, { k: 'v' });
      assert.equal(inB, undefined);
    } finally {
      a.close();
      b.close();
    }
  });

  it('serves the API-export machinery in a workspace: apiexports, apibindings, apiresourceschemas, endpoint slices', async () => {
    const provider = new RestClient((await kcp.workspace('provider')).kc);
    try {
      const list = (await provider.request({ method: 'GET', path: '/apis/apis.kcp.io/v1alpha1' })) as {
        resources: { name: string }[];
      };
      const names = new Set(list.resources.map((r) => r.name));
      for (const r of ['apiexports', 'apibindings', 'apiresourceschemas', 'apiexportendpointslices'])
        assert.ok(names.has(r), `${r} served (got ${[...names].join(', ')})`);
    } finally {
      provider.close();
    }
  });

  it('kgraph controller --planes --planes-kcp publishes a blueprint of the provider workspace as an APIExport', async () => {
    const ws = await kcp.workspace('provider');
    const provider = new RestClient(ws.kc);
    const port = await freePort();
    const child = spawnController(ws.kubeconfigPath, port, [
      '--no-graphs',
      '--no-rgds',
      '--planes',
      '--planes-kcp',
    ]);
    try {
      const crd = blueprintCrd();
      await provider.apply(crd, { fieldManager: 'test', force: true });
      await waitForCrd(provider, crd.metadata.name ?? '', 60_000);
      await waitReadyz(port, 'kcp planes controller ready', 60_000);
      await provider.apply(
        {
          apiVersion: 'krop.opendefense.cloud/v1alpha1',
          kind: 'ResourceGraphDefinition',
          metadata: { name: 'note' },
          spec: {
            schema: { apiVersion: 'v1alpha1', kind: 'Note', spec: { text: 'string' } },
            resources: [
              {
                id: 'record',
                target: 'provider',
                template: {
                  apiVersion: 'v1',
                  kind: 'ConfigMap',
                  metadata: { name: 'note', namespace: 'default' },
                  data: { text: '${schema.spec.text}' },
                },
              },
            ],
          },
        },
        { fieldManager: 'test', force: true },
      );
      await eventually(
        'note Published',
        async () => {
          const bp = await provider.get({
            apiVersion: 'krop.opendefense.cloud/v1alpha1',
            kind: 'ResourceGraphDefinition',
            name: 'note',
          });
          const conds = (bp.status as { conditions?: { type: string; reason: string }[] } | undefined)
            ?.conditions;
          return conds?.find((c) => c.type === 'Ready')?.reason === 'Published' || undefined;
        },
        60_000,
      );
      const exp = await provider.get({
        apiVersion: APIS_KCP_V1ALPHA2,
        plural: 'apiexports',
        name: 'notes.krop.opendefense.cloud',
      });
      assert.deepEqual((exp.spec as { permissionClaims?: unknown[] }).permissionClaims ?? [], []);
    } finally {
      child.kill('SIGTERM');
      provider.close();
    }
  });
});
