/**
 * `kgraph cluster up` runs workloads by default, for plain kubectl: the simulated nodes are listed
 * and `kubectl create deployment web --image=nginx --replicas=3` rolls out to 3/3 available.
 * (`--no-workloads` is covered by test/integration/cli/cluster.test.ts.) Starts its own plane in a
 * temporary data dir.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { repoRoot } from '../../../src/localplane/localControlPlane.ts';

const cli = join(repoRoot, 'bin', 'kgraph.js');
const dirs: string[] = [];

function kgraph(dataDir: string, ...args: string[]): string {
  return execFileSync(process.execPath, [cli, ...args, '--data-dir', dataDir], {
    encoding: 'utf8',
    timeout: 120_000,
  });
}

function kubectl(dataDir: string, ...args: string[]) {
  const r = spawnSync('kubectl', ['--kubeconfig', join(dataDir, 'admin.kubeconfig'), ...args], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? (r.error ? String(r.error) : '') };
}

describe('kgraph cluster up with workloads', () => {
  after(() => {
    for (const d of dirs) {
      spawnSync(process.execPath, [cli, 'cluster', 'down', '--data-dir', d], { timeout: 60_000 });
      rmSync(d, { recursive: true, force: true });
    }
  });

  it('kubectl sees 3 Ready nodes in 2 zones, and a 3-replica nginx Deployment becomes 3/3 available', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'kgraph-wl-up-'));
    dirs.push(dataDir);
    const up = kgraph(dataDir, 'cluster', 'up');
    assert.match(
      up,
      /workloads: scheduler, workload controllers, 3 simulated node\(s\) node-1, node-2, node-3/,
    );

    const nodes = kubectl(dataDir, 'get', 'nodes', '-L', 'topology.kubernetes.io/zone', '--no-headers');
    assert.equal(nodes.status, 0, nodes.stderr);
    const rows = nodes.stdout
      .trim()
      .split('\n')
      .map((l) => l.split(/\s+/));
    assert.deepEqual(
      rows.map((r) => [r[0], r[1], r.at(-1)]),
      [
        ['node-1', 'Ready', 'zone-a'],
        ['node-2', 'Ready', 'zone-b'],
        ['node-3', 'Ready', 'zone-a'],
      ],
    );

    const created = kubectl(dataDir, 'create', 'deployment', 'web', '--image=nginx', '--replicas=3');
    assert.equal(created.status, 0, created.stderr);
    const rollout = kubectl(dataDir, 'rollout', 'status', 'deployment/web', '--timeout=60s');
    assert.equal(rollout.status, 0, rollout.stdout + rollout.stderr);
    const ready = kubectl(dataDir, 'get', 'deployment', 'web', '--no-headers');
    assert.match(ready.stdout, /^web\s+3\/3\s+3\s+3\s/);
  });
});
