/** `kgraph synth --out-dir` removes what it wrote before and nothing else; `-o` is a format. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';
import { runSynth } from '../../../src/cli/commands/synth.ts';
import { loadManifests } from '../../../src/deploy/load.ts';

const bin = resolve(import.meta.dirname, '../../../bin/kgraph.js');
const sdk = resolve(import.meta.dirname, '../../../src/sdk/index.ts');
const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'kgraph-synth-out-'));
  dirs.push(d);
  return d;
}

function pkg(dir: string, file: string, name: string, configMaps: string[]): string {
  const parts = configMaps
    .map(
      (cm) =>
        `    ${JSON.stringify(cm)}: () => scope.mkResource({ apiVersion: 'v1', kind: 'ConfigMap', name: ${JSON.stringify(cm)}, data: { k: 'v' } }),`,
    )
    .join('\n');
  const path = join(dir, file);
  writeFileSync(
    path,
    `import { definePackage } from ${JSON.stringify(sdk)};\nexport default definePackage({ name: ${JSON.stringify(name)}, build: ({ scope }) => ({\n${parts}\n}) });\n`,
  );
  return path;
}

describe('kgraph synth --out-dir', () => {
  it("a second synth into the same directory removes the first one's files, keeps other files, and deploy reads only its record", async () => {
    const src = tempDir();
    const out = join(tempDir(), 'out');
    const first = pkg(src, 'a.ts', 'orders', ['orders-a', 'orders-b']);
    const second = pkg(src, 'b.ts', 'billing', ['billing-a']);
    await runSynth(first, { outDir: out });
    writeFileSync(join(out, 'notes.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: mine}\n');
    const before = readdirSync(out).filter((f) => f.includes('orders'));
    assert.equal(before.length, 3, 'the Namespace and two ConfigMaps');

    const r = spawnSync(process.execPath, [bin, 'synth', second, '--out-dir', out], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    for (const f of before)
      assert.equal(existsSync(join(out, f)), false, `${f} was written by the earlier synth`);
    assert.match(r.stderr, /removed .*orders-a\.yaml \(written by an earlier synth\)/);
    assert.ok(existsSync(join(out, 'notes.yaml')), 'a file synth never wrote is left alone');
    const names = loadManifests(out).map((m) => m.metadata.name);
    assert.deepEqual(names, ['billing', 'billing-a'], 'deploy DIR reads what the last synth wrote');
  });

  it('-o is an output format: a directory there says to use --out-dir; -o json prints a List', () => {
    const src = tempDir();
    const file = pkg(src, 'c.ts', 'fmt', ['fmt-a']);
    const bad = spawnSync(process.execPath, [bin, 'synth', file, '-o', 'out/'], { encoding: 'utf8' });
    assert.equal(bad.status, 1);
    assert.match(
      bad.stderr,
      /KG7108: -o is an output format \(yaml or json\), not "out\/"; write files with --out-dir out\//,
    );
    const json = spawnSync(process.execPath, [bin, 'synth', file, '-o', 'json'], { encoding: 'utf8' });
    assert.equal(json.status, 0, json.stderr);
    const list = JSON.parse(json.stdout) as { kind: string; items: { metadata: { name: string } }[] };
    assert.equal(list.kind, 'List');
    assert.deepEqual(
      list.items.map((i) => i.metadata.name),
      ['fmt', 'fmt-a'],
    );
  });
});
