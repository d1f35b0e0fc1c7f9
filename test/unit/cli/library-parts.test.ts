/**
 * Written by hand what a library does, and docs the code points at (the completion
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

  it('one quantity implementation (the exact CEL one, used by the SDK), one duration parser, no hand-written Prometheus text', () => {
    const rel = (f: string) => f.slice(root.length + 1);
    const holding = (re: RegExp) => sources.filter((f) => re.test(readFileSync(f, 'utf8'))).map(rel);
    // Quantity suffix tables (Ki…Ei).
    assert.deepEqual(holding(/\bKi: 10\b/), ['src/cel/lib/quantity.ts']);
    // Duration unit parsing (90s, 2m, 1h30m).
    assert.deepEqual(holding(/\(ms\|h\|m\|s\)|\(h\|m\|s\)/), ['src/cli/duration.ts']);
    // Directories of inputs are walked by one function (graph/validate.ts expandInputs, also `up`'s);
    // deploy reads a synth output directory by its record, and the control plane hashes its Go sources.
    assert.deepEqual(holding(/\breaddirSync\(/).sort(), [
      'src/deploy/load.ts',
      'src/graph/validate.ts',
      'src/localplane/localControlPlane.ts',
    ]);
    // Exposition lines are prom-client's.
    assert.deepEqual(holding(/['`]# (TYPE|HELP) /), []);
  });

  it("the SDK's quantities are the CEL library's", async () => {
    const sdk = await import('../../../src/sdk/index.ts');
    const { Quantity } = await import('../../../src/cel/lib/quantity.ts');
    const q = sdk.parseQuantity('1Gi');
    assert.ok(q instanceof Quantity);
    assert.equal(sdk.compareQuantity(q, sdk.parseQuantity('1024Mi')!), 0);
    assert.equal(sdk.compareQuantity(sdk.parseQuantity('250m')!, sdk.parseQuantity('0.5')!), -1);
    assert.equal(sdk.parseQuantity('lots'), undefined);
    // Kubernetes' own reading, which a second implementation got wrong: "+" and ".5" are quantities.
    assert.ok(sdk.parseQuantity('.5') instanceof Quantity);
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
