/**
 * `kgraph up --planes --consumers 1` end to end: three local control planes (management, host with
 * workloads, one consumer), the planes controller in the background, HostedDatabase converged; the
 * output names each object's plane, shows the host Deployment Available (the host plane runs
 * workloads), and the kubectl command of every plane works.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { connect } from '../../../src/kube/connect.ts';
import { repoRoot } from '../../../src/localplane/localControlPlane.ts';

const cli = join(repoRoot, 'bin', 'kgraph.js');
const dataDir = mkdtempSync(join(tmpdir(), 'kgraph-up-planes-'));
const PLANES = ['management', 'host', 'consumer-1'];

describe('kgraph up --planes', () => {
  let stdout = '';

  after(() => {
    const pid = /planes controller started \(pid (\d+)/.exec(stdout)?.[1];
    if (pid) {
      try {
        process.kill(Number(pid), 'SIGTERM');
      } catch {
        // already gone
      }
    }
    for (const p of PLANES)
      spawnSync(process.execPath, [cli, 'cluster', 'down', '--data-dir', join(dataDir, p)], {
        timeout: 60_000,
      });
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('converges HostedDatabase on three planes and reports the host Deployment Available', async () => {
    const r = spawnSync(
      process.execPath,
      [cli, 'up', '--planes', '--consumers', '1', '--data-dir', dataDir, '--timeout', '5m'],
      { encoding: 'utf8', timeout: 420_000 },
    );
    stdout = r.stdout ?? '';
    assert.equal(r.status, 0, `${stdout}\n${r.stderr}`);
    assert.match(
      stdout,
      /consumer-1 \(cluster ID (c[0-9a-f]{15})\): hosteddatabase\.krop\.opendefense\.cloud\/db -n team-a Ready/,
    );
    const id = /cluster ID (c[0-9a-f]{15})/.exec(stdout)?.[1] ?? '';
    assert.match(
      stdout,
      new RegExp(`host {7}host: deployment\\.apps/${id}-db -n databases Available \\(1/1\\)`),
    );
    assert.match(
      stdout,
      /consumer {3}consumer-1: vpc\.ec2\.services\.k8s\.aws\/db-vpc -n team-a \(read only\)/,
    );
    assert.match(stdout, /provider {3}management: configmap\/\S+ -n default\n/);
    // The printed kubeconfig of the host plane reads the rolled-out Deployment.
    const hostKc = /host {8}kubectl --kubeconfig (\S+) get/.exec(stdout)?.[1];
    assert.ok(hostKc, stdout);
    const host = connect(hostKc);
    try {
      const d = await host.get({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        namespace: 'databases',
        name: `${id}-db`,
      });
      assert.equal((d.status as { availableReplicas?: number }).availableReplicas, 1);
      const nodes = await host.list({ apiVersion: 'v1', kind: 'Node' });
      assert.equal(nodes.items.length, 1);
    } finally {
      host.close();
    }
    // The controller's /metrics carries the planes series (per-plane requests, ready instances).
    const url = /metrics: (http:\S+)/.exec(stdout)?.[1];
    assert.ok(url, stdout);
    const text = await (await fetch(url)).text();
    assert.match(text, /kgraph_planes_instances_ready\{blueprint="hosteddatabase",cluster="consumer-1"\} 1/);
    assert.match(text, /kgraph_planes_api_requests_total\{plane="host",verb="apply"\} [1-9]/);
    assert.match(
      text,
      /kgraph_planes_api_requests_total\{plane="consumer",cluster="consumer-1",verb="get"\} [1-9]/,
    );
    assert.match(text, /kgraph_planes_sweeper_leader 1/);
  });
});
