/** `kgraph deploy`: options checked before anything is synthesized or applied; kubectl's namespace default. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  checkDeployOptions,
  defaultNamespaces,
  deployNameFor,
  instanceLabelOf,
} from '../../../src/cli/commands/deploy.ts';
import type { Manifest } from '../../../src/sdk/index.ts';

const bin = join(import.meta.dirname, '../../../bin/kgraph.js');

describe('kgraph deploy options', () => {
  it('parses --timeout durations (ms, s, m, h; bare numbers are seconds)', () => {
    assert.equal(checkDeployOptions({ output: 'text', timeout: '10m' }), 600_000);
    assert.equal(checkDeployOptions({ output: 'json', timeout: '90' }), 90_000);
    assert.equal(checkDeployOptions({ output: 'text', timeout: '250ms' }), 250);
    assert.equal(checkDeployOptions({ output: 'text', timeout: '1h30m' }), 5_400_000, 'compound, as kubectl');
  });

  it('refuses an unknown -o format and a bad --timeout', () => {
    assert.throws(
      () => checkDeployOptions({ output: 'yaml' as 'text', timeout: '10m' }),
      /unknown output format "yaml" \(use text or json\)/,
    );
    assert.throws(
      () => checkDeployOptions({ output: 'text', timeout: 'abc' }),
      /--timeout: invalid duration "abc" \(use e\.g\. 90s, 2m, 1h30m, 1500ms\)/,
    );
  });

  it('the CLI exits 1 with the message, before any cluster access, even with --dry-run', () => {
    // No kubeconfig exists at this path: reaching the cluster would fail differently.
    const r = spawnSync(
      process.execPath,
      [bin, 'deploy', 'examples/sdk/webapp.ts', '--dry-run', '--kubeconfig', '/nonexistent', '-o', 'yaml'],
      { encoding: 'utf8' },
    );
    assert.equal(r.status, 1);
    assert.equal(r.stderr, 'kgraph: unknown output format "yaml" (use text or json)\n');
  });

  it('refuses an input with no objects (it would prune everything) unless --allow-empty', () => {
    const empty = mkdtempSync(join(tmpdir(), 'kgraph-empty-'));
    const r = spawnSync(process.execPath, [bin, 'deploy', empty, '--kubeconfig', '/nonexistent'], {
      encoding: 'utf8',
    });
    assert.equal(r.status, 1);
    assert.match(r.stderr, /KG7103: .* holds no objects; deploying it would prune everything/);
    const allowed = spawnSync(
      process.execPath,
      [bin, 'deploy', empty, '--kubeconfig', '/nonexistent', '--allow-empty', '--name', 'empty'],
      {
        encoding: 'utf8',
      },
    );
    assert.match(
      allowed.stderr,
      /KG6010: cannot load kubeconfig/,
      'with --allow-empty it goes on to the cluster',
    );
  });
});

describe('kgraph deploy: namespace default for manifests', () => {
  const served: Record<string, boolean> = { 'v1/ConfigMap': true, 'v1/Namespace': false };
  const resolveKind = async (apiVersion: string, kind: string) => {
    const namespaced = served[`${apiVersion}/${kind}`];
    if (namespaced === undefined) throw new Error(`no kind ${kind} in ${apiVersion}`);
    return { namespaced };
  };
  const m = (apiVersion: string, kind: string, metadata: Record<string, unknown>, spec?: unknown): Manifest =>
    ({ apiVersion, kind, metadata, ...(spec !== undefined ? { spec } : {}) }) as unknown as Manifest;

  it('puts namespaced objects without a namespace in the given one, and leaves the rest alone', async () => {
    const crd = m(
      'apiextensions.k8s.io/v1',
      'CustomResourceDefinition',
      { name: 'widgets.example.com' },
      { group: 'example.com', names: { kind: 'Widget' }, scope: 'Namespaced' },
    );
    const out = await defaultNamespaces(
      [
        m('v1', 'ConfigMap', { name: 'a' }),
        m('v1', 'ConfigMap', { name: 'b', namespace: 'apps' }),
        m('v1', 'Namespace', { name: 'apps' }),
        crd,
        m('example.com/v1', 'Widget', { name: 'w' }), // not served yet: scope from the CRD above
        m('other.example/v1', 'Thing', { name: 't' }), // unknown: left as it is
      ],
      resolveKind,
      'team',
    );
    assert.deepEqual(
      out.map((o) => [o.kind, o.metadata.namespace]),
      [
        ['ConfigMap', 'team'],
        ['ConfigMap', 'apps'],
        ['Namespace', undefined],
        ['CustomResourceDefinition', undefined],
        ['Widget', 'team'],
        ['Thing', undefined],
      ],
    );
  });
});

describe('kgraph deploy: the release name', () => {
  const cm = (name: string, labels?: Record<string, string>): Manifest =>
    ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, ...(labels ? { labels } : {}) },
    }) as unknown as Manifest;

  it('is --name, else the name the input declares, never the file name', () => {
    assert.equal(deployNameFor('pkg/app.ts', 'billing', 'orders'), 'billing');
    assert.equal(deployNameFor('pkg/app.ts', undefined, 'orders'), 'orders');
    assert.throws(() => deployNameFor('out/', undefined, undefined), /KG7105|pass --name <release>/);
    assert.throws(
      () => deployNameFor('pkg/app.ts', 'Not_A_Label', undefined),
      /must be a lowercase DNS label/,
    );
  });

  it('a manifests directory declares the instance label its objects share (the Namespace carries none)', () => {
    const ns = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'orders' } } as unknown as Manifest;
    assert.equal(instanceLabelOf([ns, cm('a', { 'app.kubernetes.io/instance': 'orders' })]), 'orders');
    assert.equal(instanceLabelOf([cm('a', { release: 'orders' })]), 'orders');
    assert.equal(
      instanceLabelOf([
        cm('a', { 'app.kubernetes.io/instance': 'orders' }),
        cm('b', { 'app.kubernetes.io/instance': 'billing' }),
      ]),
      undefined,
    );
    assert.equal(instanceLabelOf([ns]), undefined);
  });
});
