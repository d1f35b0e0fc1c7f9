// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the tests quote kgraph ${…} syntax
/**
 * A third-party client: headless Neovim (Debian's package, installed by .ci/run) runs `kgraph lsp`
 * through its built-in LSP client, and reads back the diagnostics and a completion.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

test('headless Neovim shows the diagnostics of kgraph lsp and completes node ids', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kgraph-nvim-'));
  const text = readFileSync(join(ROOT, 'test/unit/lsp/fixtures/webapp-rgd.yaml'), 'utf8').replace(
    'selector: ${deployment.spec',
    'selector: ${deploymnt.spec',
  );
  const file = join(dir, 'webapp.yaml');
  writeFileSync(file, text);
  const out = join(dir, 'out.json');
  const run = spawnSync(
    'nvim',
    ['--headless', '-u', 'NONE', '-i', 'NONE', '-c', `luafile ${ROOT}/test/unit/lsp/neovim.lua`],
    {
      env: {
        ...process.env,
        KGRAPH_LSP_FILE: file,
        KGRAPH_LSP_OUT: out,
        KGRAPH_ROOT: ROOT,
        KGRAPH_SOURCES: '1',
      },
      encoding: 'utf8',
      timeout: 60_000,
    },
  );
  assert.equal(run.error, undefined, 'nvim runs (Debian package neovim)');
  const result = JSON.parse(readFileSync(out, 'utf8')) as {
    diagnostics: { code: string; lnum: number; col: number; end_col: number; message: string }[];
    completion: string[];
    error: string | null;
  };
  assert.equal(result.error, null);
  const line = text.split('\n').findIndex((l) => l.includes('${deploymnt'));
  const col = text.split('\n')[line]!.indexOf('deploymnt');
  assert.deepEqual(
    result.diagnostics.map((d) => [d.code, d.lnum, d.col, d.end_col]),
    [['KG2082', line, col, col + 'deploymnt'.length]],
  );
  assert.ok(
    result.completion.includes('service') && result.completion.includes('deployment'),
    String(result.completion),
  );
});
