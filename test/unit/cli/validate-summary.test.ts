/**
 * `kgraph validate`'s closing summary when a file cannot be validated at all, through the real binary:
 * a file holding only a YAML syntax error (or a path that does not exist) is counted as a rejected
 * file — `1 file rejected`, as kubeconform and `helm lint` count what they could not check — and not
 * summed up as `0/0 accepted`; beside objects, both counts stand in the summary.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';

const root = resolve(import.meta.dirname, '../../..');
const dir = mkdtempSync(join(tmpdir(), 'kgraph-validate-summary-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const validate = (args: string[], input?: string) =>
  spawnSync(process.execPath, [join(root, 'bin/kgraph.js'), 'validate', ...args, '--no-color'], {
    encoding: 'utf8',
    env: { ...process.env, KGRAPH_SOURCES: '1' },
    ...(input !== undefined ? { input } : {}),
  });

/** The `✓ accepted …` / `✗ rejected …` lines and the summary (the last line). */
const verdicts = (out: string) => out.split('\n').filter((l) => /^(✓ accepted|✗ rejected) /.test(l));
const summary = (out: string) => out.trimEnd().split('\n').at(-1);

const BROKEN = 'apiVersion: kro.run/v1alpha1\nkind: Graph\nmetadata:\n  name: "shop\n';

describe('validate: files that could not be validated are counted as rejected files', () => {
  it('a file with only a YAML syntax error: the error, `✗ rejected file`, `1 file rejected`, exit 1', () => {
    const r = validate(['-f', '-'], BROKEN);
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stdout, /^<stdin>:4:9 - error KG2001: YAML: Missing closing "quote/m);
    assert.deepEqual(verdicts(r.stdout), ['✗ rejected file <stdin>']);
    assert.equal(summary(r.stdout), '1 file rejected, 1 error(s), 0 warning(s)');
    assert.equal(r.stderr, '');
  });

  it('beside valid objects and a missing path: objects and rejected files are counted apart', () => {
    const broken = join(dir, 'broken.yaml');
    writeFileSync(broken, BROKEN);
    const missing = join(dir, 'missing.yaml');
    const r = validate([broken, join(root, 'examples/graphs/webshop.yaml'), missing]);
    assert.equal(r.status, 1, r.stderr);
    assert.deepEqual(verdicts(r.stdout), [
      `✓ accepted graph.kro.run/webshop (${join(root, 'examples/graphs/webshop.yaml')})`,
      // A path that does not exist is found missing while the inputs are listed, before any is read.
      `✗ rejected file ${missing}`,
      `✗ rejected file ${broken}`,
    ]);
    assert.equal(summary(r.stdout), '1/1 accepted, 2 files rejected, 2 error(s), 0 warning(s)');
  });

  it('with every file validated the summary is as before', () => {
    const r = validate([join(root, 'examples/graphs/webshop.yaml')]);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(summary(r.stdout), '1/1 accepted, 0 error(s), 0 warning(s)');
  });
});
