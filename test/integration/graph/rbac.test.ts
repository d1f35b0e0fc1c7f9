// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * The controller running as the ServiceAccount of deploy/rbac/rbac.yaml (a real token from the
 * TokenRequest API): the least-privilege role is enough to install the CRD, watch, write Graph status
 * and finalizers, and impersonate Graph ServiceAccounts — which do the writes (design/graph.md §24).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { parseAllDocuments } from 'yaml';
import { GraphController } from '../../../src/controller/graph/controller.ts';
import { isApiError, type KubeObject, type RestClient } from '../../../src/kube/index.ts';
import { adminClient } from '../../support/kube.ts';
import {
  applyGraph,
  cm,
  ensureCrd,
  eventually,
  getCm,
  getGraph,
  graph,
  graphNamespace,
  leastPrivilegeClient,
  waitCondition,
} from './support.ts';

describe('least-privilege controller identity', () => {
  let client: RestClient;
  let ns: string;
  let controller: GraphController | undefined;

  before(async () => {
    client = await adminClient();
    await ensureCrd();
    ns = await graphNamespace('gc-rbac');
  });
  after(async () => {
    await controller?.stop();
    controller?.client.close();
  });

  it('reconciles and deletes a Graph with only the deploy/ RBAC', async () => {
    const asController = await leastPrivilegeClient();
    // The identity really is restricted: it cannot write a ConfigMap itself.
    await assert.rejects(
      asController.create({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'direct', namespace: ns },
      }),
      (e) => isApiError(e) && e.code === 403,
    );
    controller = new GraphController({
      client: asController,
      namespaces: [ns],
      installCrd: true,
      log: pino({ level: process.env.KGRAPH_TEST_LOG_LEVEL ?? 'silent' }),
    });
    await controller.start();
    await client.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'rb-src', namespace: ns },
      data: { v: 'x' },
    });
    await applyGraph(
      client,
      graph(ns, 'rb', [
        { id: 'src', ref: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'rb-src' } } },
        { id: 'out', template: cm('rb-out', { copy: '${src.data.v}' }) },
        {
          id: 'p',
          patch: {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: 'rb-src', labels: { seen: 'yes' } },
          },
        },
      ]),
    );
    await waitCondition(client, ns, 'rb', 'Ready', 'True');
    assert.deepEqual((await getCm(client, ns, 'rb-out'))?.data, { copy: 'x' });
    assert.equal((await getCm(client, ns, 'rb-src'))?.metadata.labels?.seen, 'yes');
    await client.delete({ apiVersion: 'kro.run/v1alpha1', kind: 'Graph', namespace: ns, name: 'rb' });
    await eventually('graph gone', async () => ((await getGraph(client, ns, 'rb')) ? undefined : true));
    assert.equal(await getCm(client, ns, 'rb-out'), undefined);
    assert.equal((await getCm(client, ns, 'rb-src'))?.metadata.labels?.seen, undefined);
  });

  it('deploy/controller.yaml is accepted by the API server (server-side dry run)', async () => {
    for (const doc of parseAllDocuments(readFileSync('deploy/controller.yaml', 'utf8'))) {
      const obj = doc.toJS() as KubeObject;
      const res = await client.apply(obj, { fieldManager: 'test', dryRun: true });
      assert.equal(res.kind, obj.kind);
    }
  });
});
