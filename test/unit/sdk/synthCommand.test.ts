import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import YAML from 'yaml';
import { runSynth } from '../../../src/cli/commands/synth.ts';
import type { Manifest } from '../../../src/sdk/index.ts';

const example = 'examples/sdk/webapp.ts';
const cluster = 'examples/sdk/cluster.yaml';

/** A kro expression `${p}`. */
const ex = (p: string): string => ['$', '{', p, '}'].join('');

describe('kgraph synth', () => {
  it('synthesizes the example web app: ConfigMap, Secret, Deployment, Service, migration Job, CRD and CR, in dependency order', async () => {
    const r = await runSynth(example, { cluster });
    const docs = r.documents.map((d) => YAML.parse(d) as Manifest);
    const kinds = docs.map((d) => d.kind);
    for (const kind of [
      'Namespace',
      'ConfigMap',
      'Secret',
      'ServiceAccount',
      'Job',
      'Deployment',
      'Service',
      'CustomResourceDefinition',
      'Dashboard',
      'PodDisruptionBudget',
    ]) {
      assert.ok(kinds.includes(kind), `missing ${kind}`);
    }
    const idx = (kind: string) => kinds.indexOf(kind);
    assert.ok(idx('Job') < idx('Deployment'), 'the migration Job comes before the Deployment (requires)');
    assert.ok(idx('Deployment') < idx('Service'));
    assert.ok(idx('CustomResourceDefinition') < idx('Dashboard'));
    const dep = docs[idx('Deployment')]!;
    assert.ok(dep.metadata.annotations?.['kix.run/depends-on']?.includes('requires:'));
    const cr = docs[idx('Dashboard')]!;
    // The example's CRD declares no readiness predicate (no controller reports Dashboard status), so
    // `kgraph deploy` treats the instance as ready once it exists; predicates are covered in services.test.ts.
    assert.equal(cr.metadata.annotations?.['kix.run/readiness'], undefined);
    assert.deepEqual(r.diagnostics, []);
  });

  it('--out-dir DIR writes one YAML file per object, numbered in apply order, and its record', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kgraph-synth-'));
    try {
      const r = await runSynth(example, { cluster, outDir: dir });
      const files = readdirSync(dir)
        .filter((f) => f !== '.kgraph-synth.json')
        .sort();
      assert.equal(files.length, r.documents.length);
      assert.deepEqual(
        (JSON.parse(readFileSync(join(dir, '.kgraph-synth.json'), 'utf8')) as { files: string[] }).files,
        files,
      );
      assert.match(files[0]!, /^001-namespace-shop\.yaml$/);
      assert.equal((YAML.parse(readFileSync(join(dir, files[0]!), 'utf8')) as Manifest).kind, 'Namespace');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('--as graph emits one kro Graph', async () => {
    const r = await runSynth(example, { cluster, as: 'graph' });
    assert.equal(r.documents.length, 1);
    const g = YAML.parse(r.documents[0]!) as {
      kind: string;
      metadata: { name: string };
      spec: { nodes: { id: string }[] };
    };
    assert.equal(g.kind, 'Graph');
    assert.equal(g.metadata.name, 'webapp');
    assert.ok(g.spec.nodes.some((n) => n.id === 'deployment'));
    assert.ok(r.documents[0]!.includes(ex('config.metadata.name')));
  });

  it('without --cluster the package runs as one instance in a namespace named after it', async () => {
    const r = await runSynth(example);
    const docs = r.documents.map((d) => YAML.parse(d) as Manifest);
    assert.equal(docs.find((m) => m.kind === 'Namespace')?.metadata.name, 'webapp');
    assert.equal(docs.find((m) => m.kind === 'Deployment')?.metadata.namespace, 'webapp');
    // The default cluster has no failure-domain keys: no spread, no PodDisruptionBudget.
    assert.equal(
      docs.some((m) => m.kind === 'PodDisruptionBudget'),
      false,
    );
  });

  it('a module without a package or cluster export is an error', async () => {
    await assert.rejects(runSynth('examples/sdk/cluster.yaml'), /cannot load|default export/);
  });

  it('the CLI loads a package that lives outside an ESM package (no package.json), as a user project may', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kgraph-synth-'));
    try {
      const sdk = pathToFileURL(resolve('src/sdk/index.ts')).href;
      writeFileSync(
        join(dir, 'app.ts'),
        `import { definePackage } from '${sdk}';
export default definePackage({
  name: 'outside',
  build: ({ scope }) => ({
    config: () => scope.mkResource({ apiVersion: 'v1', kind: 'ConfigMap', name: 'outside-config', data: { a: 'b' } }),
  }),
});
`,
      );
      const r = spawnSync(
        process.execPath,
        [resolve('bin/kgraph.js'), 'synth', join(dir, 'app.ts'), '-o', '-'],
        {
          encoding: 'utf8',
        },
      );
      assert.equal(r.status, 0, r.stderr);
      const docs = YAML.parseAllDocuments(r.stdout).map((d) => d.toJS() as Manifest);
      assert.ok(docs.some((d) => d.kind === 'ConfigMap' && d.metadata.name === 'outside-config'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
