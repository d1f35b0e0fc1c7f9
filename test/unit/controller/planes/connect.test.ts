/**
 * A registered consumer kubeconfig (design/planes.md §3.3) carries its credentials inline: one that names a
 * file on the controller's machine or a credential plugin is refused before anything is read or run,
 * so whoever may write a registration Secret cannot make the controller read its own token or run a
 * command. Inline credentials are accepted (they fail later here only because nothing listens).
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { connectConsumer } from '../../../../src/controller/planes/connect.ts';

const dir = mkdtempSync(join(tmpdir(), 'kgraph-connect-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function kubeconfig(cluster: string, user: string): string {
  return `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster:
    server: https://127.0.0.1:1
${cluster}
users:
- name: u
  user:
${user}
contexts:
- name: ctx
  context: {cluster: c, user: u}
current-context: ctx
`;
}

describe('registered consumer kubeconfigs', () => {
  it('refuses files and credential plugins, naming each, and runs nothing', async () => {
    const marker = join(dir, 'exec-ran');
    const cases: [string, string, RegExp][] = [
      [
        '    certificate-authority: /etc/ssl/ca.pem',
        '    token: t',
        /certificate-authority file \(\/etc\/ssl\/ca.pem\)/,
      ],
      ['', '    tokenFile: /var/run/secrets/kubernetes.io/serviceaccount/token', /tokenFile/],
      [
        '',
        '    client-certificate: /tmp/c.pem\n    client-key: /tmp/k.pem',
        /client-certificate file.*client-key file/,
      ],
      [
        '',
        `    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: /bin/sh\n      args: ["-c", "touch ${marker}"]`,
        /exec credential plugin \(\/bin\/sh\)/,
      ],
    ];
    for (const [cluster, user, named] of cases) {
      const r = await connectConsumer(kubeconfig(cluster, user), '1');
      assert.equal(r.ok, false);
      if (r.ok) continue;
      assert.equal(r.reason, 'KubeconfigInvalid', r.message);
      assert.match(r.message, named);
      assert.match(r.message, /must carry its credentials inline/);
    }
    assert.equal(existsSync(marker), false, 'the exec plugin never ran');
  });

  it('accepts inline credentials (the connection itself then fails: nothing listens)', async () => {
    const r = await connectConsumer(
      kubeconfig('    certificate-authority-data: ""\n    insecure-skip-tls-verify: true', '    token: abc'),
      '1',
    );
    assert.equal(r.ok, false);
    if (!r.ok) assert.equal(r.reason, 'Unreachable', r.message);
  });
});
