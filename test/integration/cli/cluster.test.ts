/**
 * `kgraph cluster up|down`: a persistent control plane that kubectl can use and
 * whose data survives a restart. Starts its own plane in a temporary data dir.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { repoRoot } from '../../../src/localplane/localControlPlane.ts';

const cli = join(repoRoot, 'bin', 'kgraph.js');
const dataDir = mkdtempSync(join(tmpdir(), 'kgraph-devcluster-'));

function kgraph(...args: string[]): string {
  return execFileSync(process.execPath, [cli, ...args, '--data-dir', dataDir], {
    encoding: 'utf8',
    timeout: 120_000,
  });
}

function kubectl(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const kubeconfig = join(dataDir, 'admin.kubeconfig');
  const r = spawnSync('kubectl', ['--kubeconfig', kubeconfig, ...args], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? (r.error ? String(r.error) : '') };
}

describe('kgraph cluster', () => {
  after(() => {
    spawnSync(process.execPath, [cli, 'cluster', 'down', '--data-dir', dataDir], { timeout: 60_000 });
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('starts a control plane kubectl can use, prints the KUBECONFIG export, and keeps data across restarts', () => {
    // Persistence needs no workloads; --no-workloads keeps this plane small (workloads: workloads/clusterUp.test.ts).
    const up = kgraph('cluster', 'up', '--no-workloads');
    assert.match(up, new RegExp(`export KUBECONFIG=${join(dataDir, 'admin.kubeconfig')}`));
    assert.match(up, /workloads: off/);
    assert.match(up, /stop it with: npx kgraph cluster down/, 'the hint runs as printed after npm ci');
    const nodes = kubectl('get', 'nodes', '-o', 'name');
    assert.equal(nodes.status, 0, nodes.stderr);
    assert.equal(nodes.stdout.trim(), '', 'no simulated nodes without workloads');

    const ns = kubectl('get', 'ns', '-o', 'name');
    assert.equal(ns.status, 0, ns.stderr);
    assert.match(ns.stdout, /namespace\/kube-system/);
    const created = kubectl('create', 'namespace', 'survives-restart');
    assert.equal(created.status, 0, created.stderr);

    assert.match(kgraph('cluster', 'up', '--no-workloads'), /already running/);
    assert.match(kgraph('cluster', 'down'), /stopped/);
    const status = spawnSync(process.execPath, [cli, 'cluster', 'status', '--data-dir', dataDir], {
      encoding: 'utf8',
    });
    assert.equal(status.status, 1);
    assert.match(status.stdout, /not running/);

    kgraph('cluster', 'up', '--no-workloads');
    const again = kubectl('get', 'namespace', 'survives-restart', '-o', 'name');
    assert.equal(again.status, 0, again.stderr);
    assert.equal(again.stdout.trim(), 'namespace/survives-restart');
    assert.match(kgraph('cluster', 'down'), /stopped/);
  });
});
