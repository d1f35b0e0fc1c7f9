// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the inputs hold kgraph ${…} syntax
/**
 * Every `-o json` output is checked against the JSON Schema its command page documents (docs/cli/*.md):
 * the real binary runs on the examples, the schema is read from the page. The commands that need a
 * cluster (`deploy`, `get`, `fleet diff`) are checked the same way by their cluster tests
 * (test/integration/cli/deploy-safety.test.ts, test/integration/rgd/examples.test.ts,
 * test/integration/cli/fleetDiff.test.ts).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { documentedSchema, documentedSchemas, schemaViolations } from '../../support/jsonSchema.ts';

const root = resolve(import.meta.dirname, '../../..');

function kgraphJson(...args: string[]): { status: number; value: unknown } {
  const r = spawnSync(process.execPath, [join(root, 'bin/kgraph.js'), ...args, '-o', 'json'], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, KGRAPH_SOURCES: '1', NO_COLOR: '1' },
  });
  assert.notEqual(r.stdout, '', `kgraph ${args.join(' ')} printed nothing: ${r.stderr}`);
  return { status: r.status ?? -1, value: JSON.parse(r.stdout) as unknown };
}

function assertFits(schema: string, value: unknown): void {
  assert.deepEqual(
    schemaViolations(value, documentedSchema(schema)),
    [],
    `${schema}: ${JSON.stringify(value).slice(0, 400)}`,
  );
}

describe('-o json matches the schema on the command page', () => {
  it('the checker rejects what a schema does not allow', () => {
    const schema = documentedSchema('version');
    assert.deepEqual(schemaViolations({ kgraph: '1', node: '20' }, schema), []);
    assert.deepEqual(schemaViolations({ kgraph: 1, node: '20', extra: true }, schema), [
      '$.kgraph: number is not string',
      '$: extra is not documented',
    ]);
  });

  it('validate: objects are documents, file-level diagnostics are under files', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kgraph-json-'));
    const broken = join(dir, 'broken.yaml');
    writeFileSync(broken, 'apiVersion: kro.run/v1alpha1\nkind: Graph\nmetadata: {name: x\n');
    const flow = join(dir, 'flow.yaml');
    writeFileSync(
      flow,
      'apiVersion: kro.run/v1alpha1\nkind: Graph\nmetadata:\n  name: flow\nspec:\n  nodes:\n' +
        '    - id: cm\n      template:\n        apiVersion: v1\n        kind: ConfigMap\n' +
        '        metadata: {name: flow}\n        data: {a: ${"x"}}\n',
    );
    const good = kgraphJson('validate', 'examples/graphs');
    assert.equal(good.status, 0);
    assertFits('validate', good.value);
    const bad = kgraphJson('validate', broken, flow);
    assert.equal(bad.status, 1);
    assertFits('validate', bad.value);
    const report = bad.value as {
      files: { file: string; accepted: boolean; diagnostics: { severity: string }[] }[];
      objects: { file: string; kind: string; name: string; accepted: boolean }[];
    };
    // The flow file's warning is its file's, and its one Graph is the only object.
    assert.deepEqual(
      report.objects.map((o) => [o.file, o.kind, o.name, o.accepted]),
      [[flow, 'Graph', 'flow', true]],
    );
    assert.deepEqual(
      report.files.map((f) => [f.file, f.accepted, f.diagnostics.map((d) => d.severity)]),
      [
        [broken, false, ['error']],
        [flow, true, ['warning']],
      ],
    );
  });

  it('cel: a value and an error', () => {
    assertFits('cel', kgraphJson('cel', '[1, 2].map(x, x * 2)').value);
    const error = kgraphJson('cel', '1 +');
    assert.equal(error.status, 1);
    assertFits('cel', error.value);
  });

  it('graph: a Graph and an RGD', () => {
    assertFits('graph', kgraphJson('graph', 'examples/graphs/webshop.yaml').value);
    assertFits('graph', kgraphJson('graph', 'examples/graphs/webapp-rgd.yaml').value);
  });

  it('render: one pass of a Graph, an RGD instance until converged', () => {
    assertFits('render', kgraphJson('render', 'examples/graphs/webshop.yaml').value);
    const rgd = kgraphJson(
      'render',
      'examples/graphs/webapp-rgd.yaml',
      '--instance',
      'examples/state/webapp-instance.yaml',
      '--until-converged',
    );
    assertFits('render', rgd.value);
    assert.ok('status' in (rgd.value as object) && 'passes' in (rgd.value as object));
  });

  it('crd, synth, version', () => {
    assertFits('crd', kgraphJson('crd', 'examples/graphs/webapp-rgd.yaml').value);
    assertFits(
      'synth',
      kgraphJson('synth', 'examples/sdk/webapp.ts', '--cluster', 'examples/sdk/cluster.yaml').value,
    );
    assertFits('version', kgraphJson('version').value);
  });

  it('every documented schema is one a test checks', () => {
    assert.deepEqual([...documentedSchemas().keys()].sort(), [
      'cel',
      'crd',
      'deploy-plan',
      'deploy-result',
      'fleet-diff',
      'get',
      'graph',
      'render',
      'synth',
      'validate',
      'version',
    ]);
  });
});
