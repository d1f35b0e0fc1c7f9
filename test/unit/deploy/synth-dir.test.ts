/**
 * `kgraph deploy DIR` reads what `kgraph synth --out-dir` wrote through its record:
 * the recorded files in the recorded order (so the waves are those of deploying the package), a
 * missing recorded file refused before anything is applied, a manifest synth did not write left out
 * with a warning, a file edited by hand deployed with a warning; a directory without a record is read
 * as kubectl reads one.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';
import { runSynth } from '../../../src/cli/commands/synth.ts';
import { readManifests } from '../../../src/deploy/load.ts';
import { SYNTH_RECORD } from '../../../src/deploy/outDir.ts';
import { planWaves } from '../../../src/deploy/plan.ts';
import { KgraphError } from '../../../src/diag/diagnostic.ts';
import { type Manifest, planOrder } from '../../../src/sdk/index.ts';

const root = resolve(import.meta.dirname, '../../..');
const bin = join(root, 'bin', 'kgraph.js');
const webapp = join(root, 'examples', 'sdk', 'webapp.ts');
const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function synthDir(): Promise<{ dir: string; bodies: Manifest[] }> {
  const dir = join(mkdtempSync(join(tmpdir(), 'kgraph-deploy-dir-')), 'out');
  dirs.push(dir);
  const r = await runSynth(webapp, { outDir: dir });
  return { dir, bodies: r.bodies as Manifest[] };
}

/** Each object's wave, by name, as the plan shows them. */
function waves(manifests: readonly Manifest[]): Record<string, number> {
  const plan = planOrder(manifests);
  const w = planWaves(plan);
  return Object.fromEntries(plan.map((p) => [`${p.kind}/${p.manifest.metadata.name}`, w.get(p.key) ?? -1]));
}

const record = (dir: string) =>
  JSON.parse(readFileSync(join(dir, SYNTH_RECORD), 'utf8')) as {
    files: string[];
    sha256?: Record<string, string>;
  };

function throwsCode(f: () => unknown, code: string): KgraphError {
  try {
    f();
  } catch (e) {
    assert.ok(e instanceof KgraphError, String(e));
    assert.equal(e.code, code, e.message);
    return e;
  }
  assert.fail(`expected ${code}`);
}

describe('deploy DIR: the reader of synth output directories', () => {
  it('reads exactly what synth wrote, in its order, with the same waves as the package', async () => {
    const { dir, bodies } = await synthDir();
    const r = readManifests(dir);
    assert.equal(r.source, 'synth');
    assert.deepEqual(r.warnings, []);
    assert.deepEqual(r.manifests, bodies);
    assert.deepEqual(
      r.files.map((f) => f.slice(dir.length + 1)),
      record(dir).files,
    );
    const w = waves(r.manifests);
    assert.deepEqual(w, waves(bodies));
    assert.ok(new Set(Object.values(w)).size >= 3, `several waves: ${JSON.stringify(w)}`);
    assert.ok(w['Deployment/webapp']! > w['ConfigMap/webapp-config']!);
  });

  it("follows the record's order, not the file names", async () => {
    const { dir, bodies } = await synthDir();
    const rec = record(dir);
    writeFileSync(join(dir, SYNTH_RECORD), JSON.stringify({ ...rec, files: [...rec.files].reverse() }));
    const r = readManifests(dir);
    assert.deepEqual(
      r.manifests.map((m) => m.metadata.name),
      [...bodies].reverse().map((m) => m.metadata.name),
    );
    assert.deepEqual(
      waves(r.manifests),
      waves(bodies),
      'waves come from the dependencies, whatever the order',
    );
  });

  it('leaves out, with a warning, manifest files synth did not write; other files and subdirectories are ignored', async () => {
    const { dir, bodies } = await synthDir();
    const extra = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: stray, namespace: webapp}\n';
    writeFileSync(join(dir, 'stray.yaml'), extra);
    writeFileSync(join(dir, 'kustomization.yml'), 'resources: []\n');
    writeFileSync(join(dir, 'README.md'), 'notes\n');
    mkdirSync(join(dir, 'sub'));
    writeFileSync(join(dir, 'sub', 'nested.yaml'), extra);
    const r = readManifests(dir);
    assert.deepEqual(r.manifests, bodies, 'nothing synth did not write is deployed');
    assert.deepEqual(
      r.warnings.map((w) => [w.severity, w.code, w.location?.file]),
      [
        ['warning', 'KG7110', join(dir, 'kustomization.yml')],
        ['warning', 'KG7110', join(dir, 'stray.yaml')],
      ],
    );
    assert.match(
      r.warnings[1]!.message,
      /not deployed: kgraph synth did not write it .*kgraph deploy .*stray\.yaml --name/,
    );
  });

  it('refuses a directory missing a recorded file (its objects would be pruned)', async () => {
    const { dir } = await synthDir();
    const gone = record(dir).files.find((f) => f.includes('deployment'))!;
    unlinkSync(join(dir, gone));
    const e = throwsCode(() => readManifests(dir), 'KG7109');
    assert.match(e.message, new RegExp(`${gone} is listed in \\.kgraph-synth\\.json but missing; .*prune`));
  });

  it('deploys a file edited since synth as it is, with a warning; a record without digests warns of none', async () => {
    const { dir } = await synthDir();
    const file = record(dir).files.find((f) => f.includes('configmap'))!;
    const text = readFileSync(join(dir, file), 'utf8').replace('\ndata:\n', '\ndata:\n  edited: "yes"\n');
    assert.match(text, /edited/);
    writeFileSync(join(dir, file), text);
    const r = readManifests(dir);
    assert.deepEqual(
      r.warnings.map((w) => [w.code, w.location?.file]),
      [['KG7111', join(dir, file)]],
    );
    assert.equal(
      (r.manifests.find((m) => m.kind === 'ConfigMap')?.data as { edited?: string } | undefined)?.edited,
      'yes',
    );

    const { sha256: _digests, ...older } = record(dir);
    writeFileSync(join(dir, SYNTH_RECORD), JSON.stringify(older));
    assert.deepEqual(readManifests(dir).warnings, []);
  });

  it('refuses a record that is not one', async () => {
    const { dir } = await synthDir();
    writeFileSync(join(dir, SYNTH_RECORD), JSON.stringify({ files: ['../escape.yaml'] }));
    throwsCode(() => readManifests(dir), 'KG7107');
    writeFileSync(join(dir, SYNTH_RECORD), JSON.stringify({ files: ['a.yaml', 'a.yaml'] }));
    throwsCode(() => readManifests(dir), 'KG7107');
  });

  it('reads a directory without a record as kubectl does: .yaml/.yml/.json, sorted, not recursively', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kgraph-deploy-plain-'));
    dirs.push(dir);
    const cm = (name: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${name}}\n`;
    writeFileSync(join(dir, 'b.yaml'), cm('b'));
    writeFileSync(join(dir, 'a.yml'), cm('a'));
    writeFileSync(
      join(dir, 'c.json'),
      JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } }),
    );
    writeFileSync(join(dir, 'notes.txt'), cm('no'));
    mkdirSync(join(dir, 'sub'));
    writeFileSync(join(dir, 'sub', 'd.yaml'), cm('d'));
    const r = readManifests(dir);
    assert.equal(r.source, 'directory');
    assert.deepEqual(
      r.manifests.map((m) => m.metadata.name),
      ['a', 'b', 'c'],
    );
  });

  it('kgraph deploy DIR prints the warnings and refuses a missing file before it connects', async () => {
    const { dir } = await synthDir();
    writeFileSync(join(dir, 'stray.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: stray}\n');
    const env = { ...process.env, KGRAPH_SOURCES: '1', KUBECONFIG: join(dir, 'no-such-kubeconfig') };
    const warned = spawnSync(process.execPath, [bin, 'deploy', dir, '--dry-run'], { encoding: 'utf8', env });
    assert.match(warned.stderr, /stray\.yaml - warning KG7110: not deployed: kgraph synth did not write it/);
    unlinkSync(join(dir, record(dir).files[0]!));
    const refused = spawnSync(process.execPath, [bin, 'deploy', dir, '--dry-run'], { encoding: 'utf8', env });
    assert.equal(refused.status, 1, refused.stderr);
    assert.match(refused.stderr, /KG7109.*is listed in \.kgraph-synth\.json but missing/);
  });
});
