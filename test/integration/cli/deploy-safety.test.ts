/**
 * `kgraph deploy` never prunes another project's objects, and `--dry-run` is what the
 * run does, through the real `kgraph` binary.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import YAML from 'yaml';
import type { RestClient } from '../../../src/kube/rest.ts';
import { repoRoot } from '../../../src/localplane/localControlPlane.ts';
import { sharedControlPlane, uniqueName } from '../../support/controlPlane.ts';
import { documentedSchema, schemaViolations } from '../../support/jsonSchema.ts';
import { adminClient } from '../../support/kube.ts';

const cli = join(repoRoot, 'bin', 'kgraph.js');
const sdk = join(repoRoot, 'src', 'sdk', 'index.ts');
let kubeconfig = '';
let client: RestClient;

function kgraph(...args: string[]) {
  const r = spawnSync(process.execPath, [cli, ...args, '--kubeconfig', kubeconfig], {
    encoding: 'utf8',
    timeout: 180_000,
    env: { ...process.env, CI: 'true' },
  });
  return { status: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '', all: `${r.stdout}${r.stderr}` };
}

/** A package with ConfigMaps, named `name`, in `<dir>/app.ts`: every package file has the same base name. */
function writePackage(dir: string, name: string, configMaps: string[]): string {
  mkdirSync(dir, { recursive: true });
  const parts = configMaps
    .map(
      (cm) =>
        `    ${JSON.stringify(cm)}: () => scope.mkResource({ apiVersion: 'v1', kind: 'ConfigMap', name: ${JSON.stringify(cm)}, data: { k: 'v' } }),`,
    )
    .join('\n');
  const file = join(dir, 'app.ts');
  writeFileSync(
    file,
    `import { definePackage } from ${JSON.stringify(sdk)};\nexport default definePackage({\n  name: ${JSON.stringify(name)},\n  build: ({ scope }) => ({\n${parts}\n  }),\n});\n`,
  );
  return file;
}

const cm = (namespace: string, name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name });

describe('kgraph deploy: release names and ownership', () => {
  before(async () => {
    kubeconfig = (await sharedControlPlane()).kubeconfigPath;
    client = await adminClient();
  });
  after(() => client?.close());

  it('two packages from files of the same name keep their own inventories; a reused name asks before pruning', async () => {
    const root = mkdtempSync(join(tmpdir(), 'kgraph-deploy-names-'));
    const orders = uniqueName('orders');
    const billing = uniqueName('billing');
    const ordersPkg = writePackage(join(root, 'pkg'), orders, ['orders-a', 'orders-b']);
    const billingPkg = writePackage(join(root, 'pkg2'), billing, ['billing-a']);

    const first = kgraph('deploy', ordersPkg, '--no-wait');
    assert.equal(first.status, 0, first.all);
    const second = kgraph('deploy', billingPkg, '--no-wait');
    assert.equal(second.status, 0, second.all);
    assert.match(second.stdout, /0 pruned/, second.all);
    assert.ok(await client.getOrUndefined(cm(orders, 'orders-a')), "billing's deploy left orders alone");
    assert.ok(await client.getOrUndefined(cm(orders, 'orders-b')));
    for (const n of [orders, billing]) {
      const inv = await client.getOrUndefined(cm('default', `kix-inventory-${n}`));
      assert.ok(inv, `inventory kix-inventory-${n} named after the package`);
    }
    const applied = await client.get(cm(orders, 'orders-a'));
    assert.equal(applied.metadata.labels?.['kix.run/inventory'], orders);
    assert.equal(applied.metadata.annotations?.['kix.run/inventory'], `default/${orders}`);

    // The mistake the names guard against: billing deployed under orders' name.
    const reused = kgraph('deploy', billingPkg, '--no-wait', '--name', orders);
    assert.equal(reused.status, 1, reused.all);
    assert.match(reused.stderr, new RegExp(`would prune 2 object\\(s\\)[^]*configmap/orders-a -n ${orders}`));
    assert.match(reused.stderr, /KG7106: this is the first prune under the name .* --yes/);
    assert.ok(await client.getOrUndefined(cm(orders, 'orders-a')), 'nothing pruned without confirmation');
    assert.equal(
      await client
        .getOrUndefined(cm(billing, 'billing-a'))
        .then((o) => o?.metadata.annotations?.['kix.run/inventory']),
      `default/${billing}`,
      'nothing applied either',
    );
  });
});

describe('kgraph deploy --dry-run is what the run does', () => {
  before(async () => {
    kubeconfig = (await sharedControlPlane()).kubeconfigPath;
    client ??= await adminClient();
  });

  it('same protection, no false drift, waves in order, and a conflict exits non-zero', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kgraph-deploy-plan-'));
    const ns = uniqueName('plan');
    const extraNs = uniqueName('plan-extra');
    const role = uniqueName('plan-role');
    const objects = (withExtra: boolean) => [
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } },
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'settings', namespace: ns },
        data: { level: 'info' },
      },
      {
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: { name: 'migrate', namespace: ns },
        spec: {
          template: { spec: { restartPolicy: 'Never', containers: [{ name: 'm', image: 'busybox' }] } },
        },
      },
      // Cluster-scoped and without dependencies: wave 0, although it sorts after the ConfigMap.
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name: role },
        rules: [],
      },
      ...(withExtra
        ? [
            { apiVersion: 'v1', kind: 'Namespace', metadata: { name: extraNs } },
            {
              apiVersion: 'v1',
              kind: 'ConfigMap',
              metadata: { name: 'extra', namespace: ns },
              data: { k: 'v' },
            },
          ]
        : []),
    ];
    const write = (name: string, withExtra: boolean) => {
      const file = join(dir, name);
      writeFileSync(
        file,
        objects(withExtra)
          .map((o) => `---\n${YAML.stringify(o)}`)
          .join(''),
      );
      return file;
    };
    const v1 = write('v1.yaml', true);
    const v2 = write('v2.yaml', false);
    const common = ['--name', ns, '--no-wait'];

    const plan0 = kgraph('deploy', v1, ...common, '--dry-run');
    assert.equal(plan0.status, 0, plan0.all);
    const waves = [...plan0.stdout.matchAll(/wave (\d+)/g)].map((m) => Number(m[1]));
    assert.deepEqual(
      waves,
      [...waves].sort((a, b) => a - b),
      `waves printed in order:\n${plan0.stdout}`,
    );

    assert.equal(kgraph('deploy', v1, ...common).status, 0);
    const again = kgraph('deploy', v1, ...common, '--dry-run', '-o', 'json');
    assert.equal(again.status, 0, again.all);
    assert.deepEqual(schemaViolations(JSON.parse(again.stdout), documentedSchema('deploy-plan')), []);
    const steps = (JSON.parse(again.stdout) as { steps: { key: string; action: string }[] }).steps;
    assert.deepEqual(
      steps.filter((s) => s.action !== 'unchanged'),
      [],
      'the run calls everything unchanged, so does the plan (the Job included)',
    );

    const plan = kgraph('deploy', v2, ...common, '--dry-run', '-o', 'json');
    assert.equal(plan.status, 0, plan.all);
    const planned = JSON.parse(plan.stdout) as { prune: { key: string; action: string }[] };
    const planPruned = planned.prune.filter((p) => p.action === 'prune').map((p) => p.key);
    assert.deepEqual(
      planPruned,
      [`v1/ConfigMap/${ns}/extra`],
      'the protected Namespace is not planned for pruning',
    );
    assert.ok(planned.prune.some((p) => p.key === `v1/Namespace//${extraNs}` && p.action === 'protected'));
    const run = kgraph('deploy', v2, ...common, '--yes', '-o', 'json');
    assert.equal(run.status, 0, run.all);
    assert.deepEqual(schemaViolations(JSON.parse(run.stdout), documentedSchema('deploy-result')), []);
    assert.deepEqual((JSON.parse(run.stdout) as { pruned: string[] }).pruned, planPruned);

    await client.patch(cm(ns, 'settings'), { data: { level: 'debug' } }, { fieldManager: 'kubectl-edit' });
    const conflicted = kgraph('deploy', v2, ...common, '--dry-run');
    assert.equal(conflicted.status, 1, conflicted.all);
    assert.match(conflicted.stdout, new RegExp(`conflict\\s+configmap/settings -n ${ns}.*kubectl-edit`));
    await client.delete({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', name: role });
  });
});
