/**
 * Written by hand what a library does (issue #17 item 14), and docs the code points at (the completion
 * command's "see docs/cli.md" named a missing page): checks over the sources.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';

const root = resolve(import.meta.dirname, '../../..');
const sources = readdirSync(join(root, 'src'), { recursive: true, withFileTypes: true })
  .filter((e) => e.isFile() && e.name.endsWith('.ts'))
  .map((e) => join(e.parentPath, e.name));

describe('library parts and doc references', () => {
  it('no hand-rolled ANSI escape sequences: colours come from colorette', () => {
    const escapes = /\\u001b\[|\\x1b\[|\\033\[|\\e\[/;
    const offenders = sources.filter((f) => escapes.test(readFileSync(f, 'utf8')));
    assert.deepEqual(offenders, []);
  });

  it('every docs/*.md page the sources mention exists', () => {
    const missing: string[] = [];
    for (const f of sources)
      for (const m of readFileSync(f, 'utf8').matchAll(/\bdocs\/([\w.-]+\.md)\b/g))
        if (!existsSync(join(root, 'docs', m[1] ?? '')))
          missing.push(`${f.slice(root.length + 1)}: docs/${m[1]}`);
    assert.deepEqual(missing, []);
  });
});
