/**
 * `-f -` and `-` read standard input, as kubectl does: validate, render and crd,
 * through the real binary; diagnostics name the input `<stdin>`.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';

const root = resolve(import.meta.dirname, '../../..');
const webapp = readFileSync(join(root, 'examples/rgd/10-webapp.yaml'), 'utf8');
const typos = readFileSync(join(import.meta.dirname, 'fixtures/typo-fields.yaml'), 'utf8');
const kgraph = (input: string, ...args: string[]) =>
  spawnSync(process.execPath, [join(root, 'bin/kgraph.js'), ...args, '--no-color'], {
    input,
    encoding: 'utf8',
  });

describe('standard input', () => {
  it('validate -f - and validate -', () => {
    const ok = kgraph(webapp, 'validate', '-f', '-');
    assert.equal(ok.status, 0, ok.stdout + ok.stderr);
    assert.match(ok.stdout, /accepted resourcegraphdefinition\.kro\.run\/webapplication \(<stdin>\)/);
    const bad = kgraph(typos, 'validate', '-');
    assert.equal(bad.status, 1);
    assert.match(bad.stdout, /^<stdin>:11:17 - error KG4002: unknown type: integr/m);
  });

  it('render -f - -o manifests, and crd - (and -f -)', () => {
    const r = kgraph(
      webapp.replace('name: string | required=true', 'name: string | default=shop'),
      'render',
      '-f',
      '-',
      '-o',
      'manifests',
    );
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^kind: Deployment$/m);
    for (const args of [
      ['crd', '-'],
      ['crd', '-f', '-'],
    ]) {
      const c = kgraph(webapp, ...args);
      assert.equal(c.status, 0, c.stderr);
      assert.match(c.stdout, /^kind: CustomResourceDefinition$/m);
    }
  });

  it('without an input, says how to give one', () => {
    const r = kgraph('', 'render');
    assert.equal(r.status, 1);
    assert.match(r.stderr, /KG6086: no input: name a file or directory, or `-f -` to read standard input/);
  });
});
