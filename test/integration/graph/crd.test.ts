// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
/**
 * The Graph CRD on a real API server: installed and Established, and its validation rules
 * (design/graph.md §2) enforced at admission.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { EXACTLY_ONE_KIND_MESSAGE, installGraphCrd } from '../../../src/controller/graph/crd.ts';
import { isApiError, type KubeObject, type RestClient } from '../../../src/kube/index.ts';
import { sharedControlPlane } from '../../support/controlPlane.ts';
import { adminClient, testNamespace } from '../../support/kube.ts';

function graph(ns: string, name: string, nodes: unknown[], extra: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: 'kro.run/v1alpha1',
    kind: 'Graph',
    metadata: { name, namespace: ns },
    spec: { nodes, ...extra },
  };
}

const cm = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } });

async function rejected(client: RestClient, obj: KubeObject): Promise<string> {
  try {
    await client.create(obj);
  } catch (e) {
    assert.ok(isApiError(e), String(e));
    assert.equal(e.code, 422, e.message);
    return e.message;
  }
  assert.fail(`${obj.metadata.name} was accepted`);
}

describe('Graph CRD', () => {
  let client: RestClient;
  let ns: string;

  before(async () => {
    client = await adminClient();
    ns = await testNamespace('graph-crd');
  });
  after(() => client?.close());

  it('installs and becomes Established with printer columns READY and AGE', async () => {
    const crd = await installGraphCrd(client);
    const conds = (crd.status as { conditions: { type: string; status: string }[] }).conditions;
    assert.ok(conds.some((c) => c.type === 'Established' && c.status === 'True'));
    const version = (crd.spec as { versions: { additionalPrinterColumns: { name: string }[] }[] })
      .versions[0];
    assert.deepEqual(
      version?.additionalPrinterColumns.map((c) => c.name),
      ['READY', 'AGE'],
    );
    // Installing again is a no-op apply, not an error.
    await installGraphCrd(client);
  });

  it('`kgraph install --kubeconfig` applies the Graph, RGD, GraphRevision and GraphRollout CRDs and reports them established', async () => {
    const cp = await sharedControlPlane();
    const { stdout } = await promisify(execFile)(process.execPath, [
      'bin/kgraph.js',
      'install',
      '--kubeconfig',
      cp.kubeconfigPath,
    ]);
    assert.equal(
      stdout,
      'customresourcedefinition.apiextensions.k8s.io/graphs.kro.run established\n' +
        'customresourcedefinition.apiextensions.k8s.io/resourcegraphdefinitions.kro.run established\n' +
        'customresourcedefinition.apiextensions.k8s.io/graphrevisions.internal.kro.run established\n' +
        'customresourcedefinition.apiextensions.k8s.io/graphrollouts.kgraph.dev established\n',
    );
  });

  it('accepts a valid Graph', async () => {
    const created = await client.create(graph(ns, 'ok', [{ id: 'cm', template: cm('x') }]));
    assert.equal(created.metadata.name, 'ok');
  });

  it('rejects duplicate node ids', async () => {
    const msg = await rejected(
      client,
      graph(ns, 'dup', [
        { id: 'a', template: cm('x') },
        { id: 'a', def: { v: 1 } },
      ]),
    );
    assert.match(msg, /Duplicate value/);
  });

  it('rejects an id that does not match the pattern', async () => {
    const msg = await rejected(client, graph(ns, 'badid', [{ id: 'my-node', def: { v: 1 } }]));
    assert.match(msg, /spec\.nodes\[0\]\.id/);
  });

  it('rejects a node with zero or two kinds', async () => {
    const none = await rejected(client, graph(ns, 'none', [{ id: 'a' }]));
    assert.ok(none.includes(EXACTLY_ONE_KIND_MESSAGE), none);
    const two = await rejected(client, graph(ns, 'two', [{ id: 'a', def: { v: 1 }, template: cm('y') }]));
    assert.ok(two.includes(EXACTLY_ONE_KIND_MESSAGE), two);
  });

  it('rejects an empty node list, a bad forEach entry and a bad serviceAccountName', async () => {
    await rejected(client, graph(ns, 'empty', []));
    await rejected(
      client,
      graph(ns, 'foreach', [{ id: 'a', def: { v: 1 }, forEach: [{ x: '${[1]}', y: '${[2]}' }] }]),
    );
    await rejected(client, graph(ns, 'sa', [{ id: 'a', def: { v: 1 } }], { serviceAccountName: 'Bad_SA' }));
    await rejected(
      client,
      graph(ns, 'ref', [{ id: 'a', ref: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: '' } } }]),
    );
  });
});
