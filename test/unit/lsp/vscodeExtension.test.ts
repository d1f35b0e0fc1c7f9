/**
 * The VS Code extension's settings logic (editors/vscode/settings.js), run in Node: the server's command
 * line and the kubeconfig contexts that `kgraph: Pick the cluster` offers.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

const require = createRequire(import.meta.url);
const settings = require('../../../editors/vscode/settings.js') as {
  serverCommand(s: {
    path?: string;
    crdFiles?: string[];
    kubeconfig?: string | null;
    context?: string | null;
  }): {
    command: string;
    args: string[];
  };
  contextsOf(file: string): { name: string; cluster: string; current: boolean }[];
};
const manifest = JSON.parse(
  readFileSync(new URL('../../../editors/vscode/package.json', import.meta.url), 'utf8'),
);

test('the server command line follows the settings', () => {
  assert.deepEqual(settings.serverCommand({}), { command: 'kgraph', args: ['lsp', '--stdio'] });
  assert.deepEqual(
    settings.serverCommand({
      path: '/k/bin/kgraph.js',
      crdFiles: ['a.yaml'],
      kubeconfig: '/kc',
      context: 'dev',
    }),
    {
      command: '/k/bin/kgraph.js',
      args: ['lsp', '--stdio', '--crd', 'a.yaml', '--kubeconfig', '/kc', '--context', 'dev'],
    },
  );
});

test('the cluster picker lists the contexts of a kubeconfig, the current one marked', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kgraph-vscode-'));
  const file = join(dir, 'config');
  writeFileSync(
    file,
    'apiVersion: v1\nkind: Config\ncurrent-context: dev\ncontexts:\n- name: dev\n  context: {cluster: c1}\n- name: prod\n  context: {cluster: c2}\n',
  );
  assert.deepEqual(settings.contextsOf(file), [
    { name: 'dev', cluster: 'c1', current: true },
    { name: 'prod', cluster: 'c2', current: false },
  ]);
  assert.deepEqual(settings.contextsOf(join(dir, 'missing')), []);
});

test('the manifest declares the commands the extension registers', () => {
  const source = readFileSync(new URL('../../../editors/vscode/extension.js', import.meta.url), 'utf8');
  for (const c of manifest.contributes.commands as { command: string }[])
    assert.ok(source.includes(`'${c.command}'`), c.command);
});
