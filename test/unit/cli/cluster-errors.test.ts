/** Cluster errors name the kubeconfig, the context and the server, and say what to do. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';

const bin = resolve(import.meta.dirname, '../../../bin/kgraph.js');
const home = mkdtempSync(join(tmpdir(), 'kgraph-cluster-errors-'));
after(() => rmSync(home, { recursive: true, force: true }));

// Port 1 on loopback: nothing listens there, so the connection is refused at once.
const kubeconfig = join(home, 'dead.kubeconfig');
writeFileSync(
  kubeconfig,
  `apiVersion: v1
kind: Config
clusters: [{ name: dead, cluster: { server: "https://127.0.0.1:1", insecure-skip-tls-verify: true } }]
users: [{ name: u, user: { token: abc } }]
contexts: [{ name: dead, context: { cluster: dead, user: u } }]
current-context: dead
`,
);

function kgraph(args: string[], env: NodeJS.ProcessEnv = process.env) {
  return spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', env, timeout: 120_000 });
}

describe('cluster errors', () => {
  it('an unknown --context lists the contexts the kubeconfig has', () => {
    const r = kgraph(['install', '--kubeconfig', kubeconfig, '--context', 'nosuch']);
    assert.equal(r.status, 1);
    assert.equal(
      r.stderr,
      `kgraph: KG6012: kubeconfig ${kubeconfig} has no context "nosuch" (it has: dead); pick one with --context\n`,
    );
  });

  it('no kubeconfig at all says so and how to get one', () => {
    const { KUBECONFIG: _k, KUBERNETES_SERVICE_HOST: _s, ...env } = process.env;
    const r = kgraph(['install'], { ...env, HOME: home });
    assert.equal(r.status, 1);
    assert.match(
      r.stderr,
      /^kgraph: KG6011: no kubeconfig: KUBECONFIG is not set and ~\/\.kube\/config does not exist; pass --kubeconfig FILE, set KUBECONFIG, or start a local control plane with `npx kgraph cluster up`\n$/,
    );
  });

  it('an unreachable server names kubeconfig, context and server', () => {
    const r = kgraph(['install', '--kubeconfig', kubeconfig]);
    assert.equal(r.status, 1);
    assert.match(
      r.stderr,
      new RegExp(
        `^kgraph: KG6014: cannot reach the API server \\(kubeconfig ${kubeconfig}, context dead, server https://127\\.0\\.0\\.1:1\\): connect ECONNREFUSED 127\\.0\\.0\\.1:1; check that the cluster is running`,
      ),
    );
  });
});
