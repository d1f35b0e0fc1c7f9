/**
 * A YAML syntax error is reported once, at its cause, through the real binary: a tab
 * used as indentation used to bring three more errors the parser made up after it (a block sequence as
 * a key, a multi-line key, a key without a value), and an unclosed quote was reported where the string
 * it swallowed ended (the end of the file) instead of at the opening quote.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';

const root = resolve(import.meta.dirname, '../../..');
const validate = (input: string, ...args: string[]) =>
  spawnSync(process.execPath, [join(root, 'bin/kgraph.js'), 'validate', '-f', '-', ...args, '--no-color'], {
    input,
    encoding: 'utf8',
  });

const head = 'apiVersion: kro.run/v1alpha1\nkind: Graph\nmetadata:\n';

/** The `file:line:col - severity CODE: message` lines of a text report. */
const diagnosticLines = (out: string) =>
  out.split('\n').filter((l) => / - (error|warning) KG\d{4}: /.test(l));

describe('YAML syntax errors: one report, at the cause', () => {
  it('a tab used as indentation: one error at the tab', () => {
    const r = validate(`${head}  name: shop\nspec:\n  nodes:\n\t- id: cm\n`);
    assert.equal(r.status, 1);
    assert.deepEqual(diagnosticLines(r.stdout), [
      '<stdin>:7:1 - error KG2001: YAML: Tabs are not allowed as indentation',
    ]);
    assert.match(r.stdout, /\n1 file rejected, 1 error\(s\), 0 warning\(s\)\n$/);
  });

  it('an unclosed double quote: one error at the opening quote, not at the end of the file', () => {
    const r = validate(`${head}  name: "shop\nspec:\n  nodes: []\n`);
    assert.equal(r.status, 1);
    assert.deepEqual(diagnosticLines(r.stdout), [
      '<stdin>:4:9 - error KG2001: YAML: Missing closing "quote: the string opened here is never closed',
    ]);
    // The caret line shows the line with the quote.
    assert.match(r.stdout, /\n4 {3}name: "shop\n {10}~\n/);
  });

  it('an unclosed single quote in a sequence, in JSON: one located error', () => {
    const r = validate(`${head}  name: shop\nspec:\n  nodes:\n    - id: 'cm\n    - id: b\n`, '-o', 'json');
    assert.equal(r.status, 1);
    type Entry = { diagnostics: { code: string; message: string; line: number; column: number }[] };
    const report = JSON.parse(r.stdout) as { files: Entry[]; objects: Entry[] };
    const all = [...report.files, ...report.objects].flatMap((o) => o.diagnostics);
    assert.deepEqual(
      all.map((d) => [d.code, d.line, d.column]),
      [['KG2001', 7, 11]],
    );
    assert.match(all[0]!.message, /Missing closing 'quote/);
  });

  it('other syntax errors are still all reported', () => {
    const r = validate(`${head}  name: shop\n  name2: [a, b\nspec: {}\n`);
    assert.equal(r.status, 1);
    assert.ok(diagnosticLines(r.stdout).length >= 1, r.stdout);
  });
});
