// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { ExprCodes } from '../../../src/expr/codes.ts';
import { findExpressions, formatPath } from '../../../src/expr/walk.ts';

const deployment = parse(`
apiVersion: apps/v1
kind: Deployment
metadata:
  name: \${schema.spec.name}
  labels:
    app.kubernetes.io/name: \${schema.spec.name}
    "\${dynamic}": literal
spec:
  replicas: \${schema.spec.replicas}
  template:
    spec:
      containers:
        - name: app
          image: "\${schema.spec.image}:\${schema.spec.tag}"
          args: ["--port", "\${string(schema.spec.port)}"]
`) as unknown;

describe('findExpressions', () => {
  it('finds every expression with its field path and classification', () => {
    const r = findExpressions(deployment);
    assert.deepEqual(
      r.fields.map((f) => [f.path, f.scanned.kind]),
      [
        ['metadata.name', 'standalone'],
        ['metadata.labels["app.kubernetes.io/name"]', 'standalone'],
        ['spec.replicas', 'standalone'],
        ['spec.template.spec.containers[0].image', 'template'],
        ['spec.template.spec.containers[0].args[1]', 'standalone'],
      ],
    );
    assert.deepEqual(r.fields[3]?.segments, ['spec', 'template', 'spec', 'containers', 0, 'image']);
  });

  it('never evaluates map keys and warns about ${ in a key', () => {
    const r = findExpressions(deployment);
    assert.equal(
      r.fields.some((f) => f.path.includes('dynamic')),
      false,
    );
    assert.equal(r.diagnostics.length, 1);
    assert.equal(r.diagnostics[0]?.code, ExprCodes.keyNotEvaluated);
    assert.equal(r.diagnostics[0]?.severity, 'warning');
    assert.equal(r.diagnostics[0]?.path, 'metadata.labels["${dynamic}"]');
  });

  it('skips data regions chosen by the caller', () => {
    const instance = { spec: { note: '${not.evaluated}' }, status: { x: '${a}' } };
    const r = findExpressions(instance, { skip: (s) => s.length === 1 && s[0] === 'spec' });
    assert.deepEqual(
      r.fields.map((f) => f.path),
      ['status.x'],
    );
  });

  it('prefixes paths with basePath', () => {
    const r = findExpressions({ name: '${a}' }, { basePath: ['spec', 'nodes', 2, 'template'] });
    assert.equal(r.fields[0]?.path, 'spec.nodes[2].template.name');
  });

  it('reports scanner errors with their path and value offset', () => {
    const r = findExpressions({ spec: { items: ['ok', 'x ${broken'] } });
    assert.equal(r.fields.length, 0);
    assert.equal(r.diagnostics[0]?.code, ExprCodes.unterminated);
    assert.equal(r.diagnostics[0]?.path, 'spec.items[1]');
    assert.equal(r.diagnostics[0]?.location?.offset, 2);
  });

  it('ignores non-string scalars and literal strings', () => {
    const r = findExpressions({ a: 1, b: true, c: null, d: 'plain $ text', e: [1.5, { f: 'x' }] });
    assert.deepEqual(r, { fields: [], diagnostics: [] });
  });

  it('a top-level string is scanned with an empty path', () => {
    const r = findExpressions('${a}');
    assert.equal(r.fields[0]?.path, '');
  });
});

describe('formatPath', () => {
  it('renders identifiers with dots, indices with brackets and odd keys quoted', () => {
    assert.equal(formatPath(['spec', 'containers', 0, 'image']), 'spec.containers[0].image');
    assert.equal(formatPath(['data', 'config.yaml']), 'data["config.yaml"]');
    assert.equal(formatPath(['metadata', 'labels', 'my-label']), 'metadata.labels.my-label');
    assert.equal(formatPath([0, 'a']), '[0].a');
    assert.equal(formatPath([]), '');
  });
});
