/**
 * The command pages (docs/cli/*.md) say what the commands print: every `--help`
 * block and every example's output is the real binary's, run again here (scripts/cli-docs.ts; offline,
 * a few seconds), and every command has a page, listed in docs/cli.md's index.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, it } from 'node:test';
import { blocksOf, fill, outputsOf, pages, root } from '../../../scripts/cli-docs.ts';
import { buildProgram } from '../../../src/cli/main.ts';

describe('docs/cli pages', () => {
  it('each block is what the command prints now (run `node --import tsx scripts/cli-docs.ts` to update)', async () => {
    const files = pages();
    assert.ok(files.length >= 8, 'the command pages exist');
    const outputs = await outputsOf(files);
    for (const f of files) {
      const page = readFileSync(f, 'utf8');
      assert.ok(blocksOf(page).length > 0, `${f} has examples`);
      // A failed fill would leave a marker without its block: each must be followed by one.
      assert.doesNotMatch(
        page,
        /<!-- kgraph: [^\n]+ -->\n(?!```console\n\$ npx kgraph )/,
        `${f}: a marker without its output`,
      );
      assert.equal(fill(page, outputs), page, `${basename(f)} drifted from the command's output`);
    }
  });

  it('each command page documents every option of its command (the --help block)', async () => {
    const program = await buildProgram(['node', 'kgraph', 'completion']);
    for (const f of pages()) {
      const name = basename(f, '.md');
      const cmd = program.commands.find((c) => c.name() === name);
      assert.ok(cmd, `docs/cli/${name}.md names a command`);
      const page = readFileSync(f, 'utf8');
      assert.ok(page.includes(`<!-- kgraph: ${name} --help -->`), `${name}.md shows ${name} --help`);
      for (const sub of [cmd, ...cmd.commands]) {
        for (const o of sub.options)
          assert.ok(page.includes(o.flags), `${name}.md: ${sub.name()} ${o.flags}`);
      }
    }
  });

  it("every command has a page, and docs/cli.md's index links it", async () => {
    const program = await buildProgram(['node', 'kgraph', 'completion']);
    const index = readFileSync(join(root, 'docs/cli.md'), 'utf8');
    const table = index.slice(
      index.indexOf('## Commands'),
      index.indexOf('\n## ', index.indexOf('## Commands') + 3),
    );
    for (const c of program.commands) {
      if (c.name() === 'help') continue;
      assert.ok(table.includes(`\`${c.name()}\``), `docs/cli.md's index lists ${c.name()}`);
    }
    for (const f of pages())
      assert.ok(table.includes(`(cli/${basename(f)})`), `the index links cli/${basename(f)}`);
  });
});
