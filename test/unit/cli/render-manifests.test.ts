/** `kgraph render` for pipes: -o manifests, no folding, required fields named. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';
import YAML from 'yaml';
import { requiredWithoutDefaults } from '../../../src/cli/commands/render.ts';

const root = resolve(import.meta.dirname, '../../..');
const bin = join(root, 'bin', 'kgraph.js');
const rgd = join(root, 'examples', 'graphs', 'webapp-rgd.yaml');
const dir = mkdtempSync(join(tmpdir(), 'kgraph-render-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const render = (...args: string[]) =>
  spawnSync(process.execPath, [bin, 'render', rgd, ...args], { encoding: 'utf8' });

describe('kgraph render for pipes', () => {
  it('-o manifests prints only the desired objects, as a YAML stream kubectl apply -f - takes', () => {
    const instance = join(dir, 'shop.yaml');
    writeFileSync(
      instance,
      'apiVersion: kro.run/v1alpha1\nkind: WebApp\nmetadata: {name: shop, namespace: default}\nspec: {name: shop}\n',
    );
    const r = render('--instance', instance, '-o', 'manifests');
    const docs = YAML.parseAllDocuments(r.stdout).map((d) => d.toJS() as Record<string, unknown>);
    assert.ok(docs.length >= 2, r.stdout);
    for (const d of docs) {
      assert.equal(typeof d.apiVersion, 'string');
      assert.equal(typeof d.kind, 'string');
      assert.equal(typeof (d.metadata as { name?: unknown }).name, 'string');
      assert.equal(d.nodes, undefined, 'objects, not the simulation report');
    }
    assert.deepEqual(
      docs.filter((d) => d.kind === 'Deployment').map((d) => (d.metadata as { name: string }).name),
      ['shop'],
    );
  });

  it('without --instance names the required fields without defaults; reasons are not folded', () => {
    const r = render();
    assert.match(
      r.stderr,
      /rendering WebApp with an empty spec, which lacks the required field\(s\) without a default: spec\.name; pass --instance FILE/,
    );
    const reasons = r.stdout
      .split('\n')
      .filter((l) => /^\s+reason: /.test(l) && l.includes('schema.spec.name'));
    assert.ok(reasons.length > 0, r.stdout);
    for (const l of reasons)
      assert.ok(l.length > 80 && /\)"?$/.test(l.trimEnd()), `one line, not folded: ${l}`);
  });

  it('finds required fields inside required or defaulted objects', () => {
    const schema = {
      type: 'object',
      properties: {
        name: { type: 'string' },
        db: {
          type: 'object',
          required: ['host'],
          properties: { host: { type: 'string' }, port: { type: 'integer', default: 5432 } },
        },
        opt: { type: 'object', required: ['x'], properties: { x: { type: 'string' } } },
      },
      required: ['name', 'db'],
    };
    assert.deepEqual(requiredWithoutDefaults(schema), ['spec.name', 'spec.db']);
    assert.deepEqual(
      requiredWithoutDefaults({
        ...schema,
        properties: { ...schema.properties, db: { ...schema.properties.db, default: {} } },
      }),
      ['spec.name', 'spec.db.host'],
    );
  });
});
