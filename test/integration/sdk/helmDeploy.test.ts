/**
 * End to end: a package importing a Helm chart (fixtures/chartPackage.ts) deployed by `kgraph deploy` on
 * the local control plane, in Helm's install order: the chart's CRD is ready before its custom resource is
 * applied, pre-install hooks before the manifests, post-install hooks after them.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { buildHelmRender } from '../../../src/helm/renderChart.ts';
import { repoRoot } from '../../../src/localplane/localControlPlane.ts';
import { sharedControlPlane, uniqueName } from '../../support/controlPlane.ts';
import { adminClient } from '../../support/kube.ts';

const cli = join(repoRoot, 'bin', 'kgraph.js');

describe('kgraph deploy of a package that imports a Helm chart', () => {
  let kubeconfig = '';
  before(async () => {
    buildHelmRender();
    kubeconfig = (await sharedControlPlane()).kubeconfigPath;
  });

  it('applies the chart’s objects in Helm’s install order and they are live', async () => {
    const ns = uniqueName('shopchart');
    const clusterFile = join(mkdtempSync(join(tmpdir(), 'kgraph-chart-')), 'cluster.json');
    writeFileSync(clusterFile, JSON.stringify({ instances: { shop: { namespace: ns } } }));
    const r = spawnSync(
      process.execPath,
      [
        cli,
        'deploy',
        join(import.meta.dirname, 'fixtures', 'chartPackage.ts'),
        '--cluster',
        clusterFile,
        '--kubeconfig',
        kubeconfig,
        '--name',
        ns,
        '--inventory-namespace',
        'default',
        '--no-wait',
        '--timeout',
        '90s',
      ],
      { encoding: 'utf8', timeout: 240_000, env: { ...process.env, CI: 'true' } },
    );
    assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
    const lines = r.stdout.split('\n');
    const at = (re: RegExp) => {
      const i = lines.findIndex((l) => re.test(l));
      assert.ok(i >= 0, `no line ${re} in:\n${r.stdout}`);
      return i;
    };
    const applied = (what: string) => at(new RegExp(`applied\\s+${what}`));
    assert.ok(
      at(/ready\s+customresourcedefinition\.apiextensions\.k8s\.io\/widgets\.shop\.example\.com\s/) <
        applied(`widget\\.shop\\.example\\.com/shop-default -n ${ns}`),
    );
    assert.ok(
      applied(`configmap/shop-schema -n ${ns}`) < applied(`configmap/shop-seed -n ${ns}`),
      'pre-install hooks by weight',
    );
    assert.ok(applied(`configmap/shop-seed -n ${ns}`) < applied(`deployment\\.apps/shop -n ${ns}`));
    assert.ok(applied(`configmap/shop-seed -n ${ns}`) < applied(`service/shop -n ${ns}`));
    assert.ok(
      applied(`deployment\\.apps/shop -n ${ns}`) < applied(`configmap/shop-announce -n ${ns}`),
      'post-install hook last',
    );

    const client = await adminClient();
    const cm = await client.get({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace: ns,
      name: 'shop-settings',
    });
    assert.deepEqual(cm.data, { debug: 'no', featureFlag: 'on', mode: 'yes', 'release-namespace': ns });
    const dep = await client.get({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: ns, name: 'shop' });
    assert.equal((dep.spec as { replicas: number }).replicas, 2);
    const widget = await client.get({
      apiVersion: 'shop.example.com/v1',
      kind: 'Widget',
      namespace: ns,
      name: 'shop-default',
    });
    assert.equal((widget.spec as { size: number }).size, 3);
  });
});
