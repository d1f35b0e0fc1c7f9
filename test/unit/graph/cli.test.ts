/** `kgraph validate` and `kgraph graph`, run as the user runs them (bin/kgraph.js). */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';

const bin = join(import.meta.dirname, '../../../bin/kgraph.js');
const fixtures = join(import.meta.dirname, '../../fixtures/graph');

function kgraph(...args: string[]) {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('kgraph validate', () => {
  test('--kubeconfig with a missing file: the KG6010 code and the path, exit 1, no stack trace', () => {
    const r = kgraph(
      'validate',
      join(fixtures, 'seeds/000-nodes-graph.yaml'),
      '--kubeconfig',
      '/nonexistent/kubeconfig',
    );
    assert.equal(r.code, 1);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /^kgraph: KG6010: cannot load kubeconfig \/nonexistent\/kubeconfig: ENOENT/);
    assert.doesNotMatch(r.stderr, /\n\s+at /);
  });

  test('exit 0 on the seeds (CRD fixtures via --crd), with the accepted summary', () => {
    const crds = join(fixtures, 'seeds/crds');
    const r = kgraph(
      'validate',
      join(fixtures, 'seeds/000-nodes-patch.yaml'),
      join(fixtures, 'seeds/001-blueprint-hosteddatabase.yaml'),
      '--crd',
      join(crds, 'apps.example.com-WebApp.yaml'),
      '--crd',
      join(crds, 'ec2.services.k8s.aws-VPC.yaml'),
    );
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /✓ accepted graph\.kro\.run\/seed-patch \(/);
    assert.match(r.stdout, /✓ accepted resourcegraphdefinition\.krop\.opendefense\.cloud\/hosteddatabase \(/);
    assert.match(r.stdout, /2\/2 accepted, 0 error\(s\), 2 warning\(s\)/);
  });

  test('exit 0 on the seeds directory: CRD documents among the inputs are schema sources', () => {
    const r = kgraph('validate', join(fixtures, 'seeds'), '-o', 'json');
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const out = JSON.parse(r.stdout) as {
      files: { accepted: boolean; diagnostics: { severity: string }[] }[];
      objects: { kind: string; accepted: boolean }[];
    };
    // Every entry of objects is a document: the seeds' file-level warnings are in files.
    assert.equal(out.objects.length, 7);
    assert.ok(out.objects.every((o) => o.kind !== '' && o.accepted));
    assert.ok(out.files.every((f) => f.accepted && f.diagnostics.every((d) => d.severity !== 'error')));
  });

  test('exit 1 and the JSON shape (docs/cli/validate.md) on an invalid file', () => {
    const file = join(fixtures, 'invalid/cycles.yaml');
    const r = kgraph('validate', file, '-o', 'json');
    assert.equal(r.code, 1);
    const out = JSON.parse(r.stdout) as unknown;
    assert.deepEqual(out, {
      files: [],
      objects: [
        {
          file,
          apiVersion: 'kro.run/v1alpha1',
          kind: 'Graph',
          name: 'cycles',
          accepted: false,
          diagnostics: [
            {
              severity: 'error',
              code: 'KG2083',
              message: 'graph contains a cycle: a → b → a',
              node: 'a',
              path: 'spec.nodes[0]',
              line: 7,
              column: 11,
            },
            {
              severity: 'error',
              code: 'KG2083',
              message: 'graph contains a cycle: c → d → e → c',
              node: 'c',
              path: 'spec.nodes[2]',
              line: 11,
              column: 11,
            },
          ],
        },
      ],
    });
  });

  test('a directory is searched recursively; text output shows the caret line', () => {
    const r = kgraph('validate', join(fixtures, 'invalid'), '--no-color');
    assert.equal(r.code, 1);
    assert.match(r.stdout, /graph-id-reserved\.yaml:7:11 - error KG2013: id is reserved: "each"/);
    assert.match(r.stdout, /\n7 {5}- id: each\n {12}~~~~\n/);
  });
});

describe('kgraph graph', () => {
  const nesting = join(fixtures, 'valid/nesting.yaml');

  test('dot: clusters for nested graphs, shapes per kind, labelled edges', () => {
    const r = kgraph('graph', nesting);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /subgraph "cluster_backend" \{/);
    assert.match(r.stdout, /"shared" \[shape=note/);
    assert.match(r.stdout, /"backend\.deployment" \[shape=box/);
    assert.match(r.stdout, /"backend\.deployment" -> "backend\.service" \[label="metadata\.name"\]/);
    assert.match(
      r.stdout,
      /"shared" -> "backend\.cfg" \[label="deployment\.metadata\.name", lhead="cluster_backend"\]/,
    );
  });

  test('mermaid and json', () => {
    const m = kgraph('graph', nesting, '-o', 'mermaid');
    assert.equal(m.code, 0, m.stderr);
    assert.match(m.stdout, /^flowchart LR\n/);
    assert.match(m.stdout, /subgraph n_backend\["graph backend"\]/);
    const j = kgraph('graph', nesting, '-o', 'json');
    assert.equal(j.code, 0, j.stderr);
    // The documented graph (docs/cli.md): nodes of each frame in topological order.
    const g = JSON.parse(j.stdout) as { nodes: { id: string; parent: string | null }[] };
    assert.deepEqual(
      g.nodes.filter((n) => n.parent === null).map((n) => n.id),
      ['shared', 'cfg', 'backend', 'reader'],
    );
  });

  test('svg through Graphviz WASM', () => {
    const r = kgraph('graph', nesting, '-o', 'svg');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /<svg[\s\S]*<\/svg>/);
    assert.match(r.stdout, /cluster_backend/);
  });
});

describe('kgraph validate -o json with file-level problems', () => {
  test('a YAML syntax error is an entry of its file in files, not accepted, and no object', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kgraph-validate-'));
    const file = join(dir, 'broken.yaml');
    writeFileSync(file, 'apiVersion: kro.run/v1alpha1\nkind: Graph\nmetadata: {name: x\n');
    const r = kgraph('validate', file, '-o', 'json');
    assert.equal(r.code, 1);
    const out = JSON.parse(r.stdout) as {
      files: { file: string; accepted: boolean; diagnostics: { code: string }[] }[];
      objects: unknown[];
    };
    assert.deepEqual(out.objects, []);
    assert.equal(out.files.length, 1);
    assert.equal(out.files[0]!.file, file);
    assert.equal(out.files[0]!.accepted, false);
    assert.ok(out.files[0]!.diagnostics.every((d) => d.code === 'KG2001'));
  });
});
