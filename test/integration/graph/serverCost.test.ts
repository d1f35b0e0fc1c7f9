/**
 * The controllers' writes spare the API server its strict decoding (src/controller/core/writeDefaults.ts):
 * they carry `fieldValidation=Ignore`, user-facing writes (`kgraph deploy`) the server's default. Observed
 * on a real API server: its audit log (a plane of this file's own, started with an audit policy) records
 * every write's request URI; and its answers, which warn about an unknown field under the default and
 * drop it silently under Ignore.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { controllerClient } from '../../../src/controller/core/writeDefaults.ts';
import { installGraphCrd } from '../../../src/controller/graph/crd.ts';
import type { KubeObject } from '../../../src/kube/index.ts';
import { KubeConfig } from '../../../src/kube/kubeconfig.ts';
import { RestClient } from '../../../src/kube/rest.ts';
import {
  type LocalControlPlane,
  repoRoot,
  startLocalControlPlane,
} from '../../../src/localplane/localControlPlane.ts';
import { freePort, spawnController, waitReadyz } from '../../support/controllerProcess.ts';
import { eventually } from '../../support/kube.ts';
import { grantAll } from './support.ts';

interface AuditEvent {
  stage: string;
  verb: string;
  requestURI: string;
  objectRef?: { resource?: string; subresource?: string; namespace?: string; name?: string };
}

describe('API server cost of the controllers’ writes', () => {
  let dir: string;
  let plane: LocalControlPlane;
  let kc: KubeConfig;
  let admin: RestClient;
  let auditLog: string;
  const started: ChildProcess[] = [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kgraph-servercost-'));
    auditLog = join(dir, 'audit.log');
    const policy = join(dir, 'audit-policy.yaml');
    writeFileSync(
      policy,
      [
        'apiVersion: audit.k8s.io/v1',
        'kind: Policy',
        'omitStages: [RequestReceived]',
        'rules:',
        '- level: Metadata',
        '  verbs: [create, update, patch]',
        '- level: None',
        '',
      ].join('\n'),
    );
    plane = await startLocalControlPlane({
      dataDir: join(dir, 'plane'),
      ephemeral: true,
      extraApiserverArgs: [`--audit-policy-file=${policy}`, `--audit-log-path=${auditLog}`],
    });
    kc = new KubeConfig();
    kc.loadFromFile(plane.kubeconfig);
    admin = new RestClient(kc);
  });
  after(async () => {
    for (const p of started) {
      if (p.exitCode === null) {
        p.kill('SIGTERM');
        await once(p, 'exit');
      }
    }
    admin?.close();
    await plane?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The audit log's finished writes of `resource` named `name`. */
  function writesOf(resource: string, name: string): AuditEvent[] {
    if (!existsSync(auditLog)) return [];
    return readFileSync(auditLog, 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as AuditEvent)
      .filter(
        (e) =>
          e.stage === 'ResponseComplete' && e.objectRef?.resource === resource && e.objectRef.name === name,
      );
  }
  const ignores = (e: AuditEvent) => /[?&]fieldValidation=Ignore(&|$)/.test(e.requestURI);

  it('kgraph controller sends fieldValidation=Ignore on its applies; kgraph deploy the server default', async () => {
    // A user-facing write first: `kgraph deploy` of an SDK package with one ConfigMap.
    const pkgDir = join(dir, 'pkg');
    mkdirSync(pkgDir);
    const pkg = join(pkgDir, 'app.ts');
    writeFileSync(
      pkg,
      `import { definePackage } from ${JSON.stringify(join(repoRoot, 'src', 'sdk', 'index.ts'))};\n` +
        `export default definePackage({ name: 'costpkg', build: ({ scope }) => ({ cm: () => scope.mkResource({ apiVersion: 'v1', kind: 'ConfigMap', name: 'from-deploy', data: { k: 'v' } }) }) });\n`,
    );
    const deployed = spawnSync(
      process.execPath,
      [join(repoRoot, 'bin', 'kgraph.js'), 'deploy', pkg, '--no-wait', '--kubeconfig', plane.kubeconfig],
      { encoding: 'utf8', timeout: 180_000, env: { ...process.env, CI: 'true' } },
    );
    assert.equal(deployed.status, 0, `${deployed.stdout}${deployed.stderr}`);
    const deployWrites = await eventually('the deploy in the audit log', async () => {
      const w = writesOf('configmaps', 'from-deploy');
      return w.length > 0 ? w : undefined;
    });
    assert.deepEqual(
      deployWrites.filter(ignores).map((e) => e.requestURI),
      [],
      'kgraph deploy keeps the server default',
    );

    // The controller: one Graph with one ConfigMap child, reconciled by the real binary.
    const ns = 'cost';
    await admin.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    await grantAll(admin, ns, 'default');
    await installGraphCrd(admin);
    const port = await freePort();
    const proc = spawnController(plane.kubeconfig, port, ['--no-rgds', '--namespace', ns]);
    started.push(proc);
    await waitReadyz(port);
    await admin.apply(
      {
        apiVersion: 'kro.run/v1alpha1',
        kind: 'Graph',
        metadata: { name: 'cost', namespace: ns },
        spec: {
          nodes: [
            {
              id: 'child',
              template: {
                apiVersion: 'v1',
                kind: 'ConfigMap',
                metadata: { name: 'rendered' },
                data: { k: 'v' },
              },
            },
          ],
        },
      },
      { fieldManager: 'test', force: true },
    );
    await eventually(
      'the Graph Ready',
      async () => {
        const g = await admin.getOrUndefined({
          apiVersion: 'kro.run/v1alpha1',
          kind: 'Graph',
          namespace: ns,
          name: 'cost',
        });
        const conds = (g?.status as { conditions?: { type: string; status: string }[] } | undefined)
          ?.conditions;
        return conds?.some((c) => c.type === 'Ready' && c.status === 'True') ? true : undefined;
      },
      60_000,
    );
    const child = await eventually('the child apply in the audit log', async () => {
      const w = writesOf('configmaps', 'rendered');
      return w.length > 0 ? w : undefined;
    });
    assert.deepEqual(
      child.filter((e) => !ignores(e)).map((e) => e.requestURI),
      [],
      'every controller write of the child carries fieldValidation=Ignore',
    );
    const status = writesOf('graphs', 'cost').filter((e) => e.objectRef?.subresource === 'status');
    assert.ok(status.length > 0, 'the controller wrote the Graph status');
    assert.deepEqual(
      status.filter((e) => !ignores(e)).map((e) => e.requestURI),
      [],
      'and every status write of it',
    );
  });

  it('a controller client and its impersonating copies write with Ignore; a plain client gets the server default', async () => {
    const warnings: string[] = [];
    const plain = new RestClient(kc, { onWarning: (w) => warnings.push(w) });
    const ctrl = controllerClient(plain);
    const asOther = ctrl.withImpersonation({ user: 'cost-tester', groups: ['system:masters'] });
    try {
      const obj = (name: string): KubeObject =>
        ({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name, namespace: 'default' },
          data: { k: 'v' },
          bogus: 1,
        }) as KubeObject;
      // Default (Warn): the server drops the unknown field and says so.
      const a = await plain.create(obj('plain-write'));
      assert.equal((a as Record<string, unknown>).bogus, undefined);
      assert.ok(
        warnings.some((w) => w.includes('bogus')),
        `a warning about the field: ${warnings.join('; ')}`,
      );
      // Ignore: dropped without a word, also as another identity.
      warnings.length = 0;
      const b = await ctrl.create(obj('controller-write'));
      const c = await asOther.create(obj('impersonated-write'));
      assert.equal((b as Record<string, unknown>).bogus, undefined);
      assert.equal((c as Record<string, unknown>).bogus, undefined);
      assert.deepEqual(warnings, [], 'no warning under fieldValidation=Ignore');
      // A call may still ask for more.
      const strict = await ctrl
        .create(obj('strict-write'), { fieldValidation: 'Strict' })
        .catch((e: unknown) => e);
      assert.ok(strict instanceof Error && /bogus/.test(strict.message), String(strict));
    } finally {
      plain.close();
    }
  });
});
