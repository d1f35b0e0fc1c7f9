/**
 * `kgraph synth` + `kgraph deploy` on the example package (examples/sdk/webapp.ts):
 * the dry-run plan, a deploy, and an idempotent second deploy.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { repoRoot } from '../../../src/localplane/localControlPlane.ts';
import { sharedControlPlane, uniqueName } from '../../support/controlPlane.ts';
import { adminClient } from '../../support/kube.ts';

const cli = join(repoRoot, 'bin', 'kgraph.js');
let kubeconfig = '';

function kgraph(...args: string[]) {
  const r = spawnSync(process.execPath, [cli, ...args], {
    encoding: 'utf8',
    timeout: 180_000,
    env: { ...process.env, CI: 'true' },
  });
  return { status: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
}

describe('kgraph deploy (example package)', () => {
  before(async () => {
    kubeconfig = (await sharedControlPlane()).kubeconfigPath;
  });

  it('plans, deploys the web app in order, and is idempotent', async () => {
    const name = uniqueName('webapp');
    const pkg = join(repoRoot, 'examples', 'sdk', 'webapp.ts');
    const common = ['--kubeconfig', kubeconfig, '--name', name, '--inventory-namespace', 'default'];

    const plan = kgraph('deploy', pkg, ...common, '--dry-run');
    assert.equal(plan.status, 0, plan.stderr);
    assert.match(plan.stdout, /create\s+customresourcedefinition\.apiextensions\.k8s\.io\/dashboards/);
    assert.match(plan.stdout, /wave 0\s+create\s+namespace\/webapp\n/);

    // The shared plane runs the workload controllers and scheduler over simulated nodes: the deploy
    // waits for the migration Job to complete and the Deployment to roll out, as on a real cluster.
    const first = kgraph('deploy', pkg, ...common, '--timeout', '90s');
    assert.equal(first.status, 0, first.stdout + first.stderr);
    assert.match(first.stdout, /deployed: \d+ applied/);
    const lines = first.stdout.split('\n');
    const at = (re: RegExp) => lines.findIndex((l) => re.test(l));
    assert.ok(
      at(/ready\s+customresourcedefinition\.apiextensions.*dashboards/) <
        at(/applied\s+dashboard\.example\.kgraph\.dev\/webapp -n webapp/),
      first.stdout,
    );
    assert.ok(
      at(/applied\s+namespace\/webapp/) < at(/applied\s+configmap\/webapp-config -n webapp/),
      first.stdout,
    );

    assert.ok(
      at(/ready\s+job\.batch\/webapp-migrate-\S+ -n webapp/) <
        at(/applied\s+deployment\.apps\/webapp -n webapp/),
      first.stdout,
    );
    assert.ok(at(/ready\s+deployment\.apps\/webapp -n webapp/) >= 0, first.stdout);

    const client = await adminClient();
    const deployment = await client.get({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      namespace: 'webapp',
      name: 'webapp',
    });
    const replicas = (deployment.spec as { replicas: number }).replicas;
    assert.equal((deployment.status as { availableReplicas?: number }).availableReplicas, replicas);
    const dash = await client.get({
      apiVersion: 'example.kgraph.dev/v1',
      kind: 'Dashboard',
      namespace: 'webapp',
      name: 'webapp',
    });
    assert.ok(dash.metadata.annotations?.['kix.run/hash']);

    const second = kgraph('deploy', pkg, ...common, '--no-wait');
    assert.equal(second.status, 0, second.stdout + second.stderr);
    assert.match(second.stdout, /deployed: 0 applied, \d+ unchanged, 0 pruned, 0 drifted, 0 failed/);
  });
});
