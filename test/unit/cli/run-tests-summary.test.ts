/** `npm test` ends with its pass/fail summary, after the control-plane log it prints on failure. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';

const runner = resolve(import.meta.dirname, '../../support/runTests.ts');

describe('the test runner', () => {
  it('prints the summary after the server log of a failed run', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kgraph-runner-'));
    try {
      const failing = join(dir, 'failing.test.ts');
      writeFileSync(
        failing,
        "import { it } from 'node:test';\nit('fails', () => { throw new Error('boom'); });\n",
      );
      const log = join(dir, 'server.log');
      writeFileSync(log, 'I1201 server log line\n');
      // Run as `npm test` runs it, not as a child of this test run (NODE_TEST_CONTEXT).
      const { NODE_TEST_CONTEXT: _child, ...env } = process.env;
      const r = spawnSync(process.execPath, ['--import', 'tsx', runner, failing], {
        encoding: 'utf8',
        env: { ...env, KGRAPH_TEST_LOG: log, KGRAPH_TEST_KUBECONFIG: join(dir, 'unused') },
      });
      assert.equal(r.status, 1);
      const out = r.stdout.trimEnd().split('\n');
      const logAt = out.findIndex((l) => l.includes('server log line'));
      assert.ok(logAt > 0, r.stdout);
      const tail = out.slice(logAt + 1).join('\n');
      assert.match(tail, /# tests 1/);
      assert.match(out.at(-1) ?? '', /# (duration_ms|todo|fail)/, 'the summary is the last thing printed');
      assert.match(tail, /# fail 1/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
