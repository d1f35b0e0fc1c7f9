// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the tests quote kgraph ${…} syntax
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Diagnostic } from '../../../src/diag/diagnostic.ts';
import { extractReferences } from '../../../src/graph/celRefs.ts';
import { formatDiagnostic, toJsonReport } from '../../../src/graph/format.ts';
import { parseYamlFile, quoteFlowExpressions, toJson } from '../../../src/graph/yamlTree.ts';

describe('YAML with positions', () => {
  test('multi-document files keep each document and 1-based positions', () => {
    const text = 'a: 1\n---\nb:\n  c: x\n';
    const parsed = parseYamlFile('f.yaml', text);
    assert.deepEqual(parsed.diagnostics, []);
    assert.equal(parsed.documents.length, 2);
    const second = parsed.documents[1]!;
    assert.deepEqual(toJson(second.root!), { b: { c: 'x' } });
    const root = second.root!;
    assert.ok(root.t === 'map');
    const inner = root.entries[0]!.value;
    assert.ok(inner.t === 'map');
    const loc = second.source.location(inner.entries[0]!.keyPos.offset, 1);
    assert.deepEqual([loc.line, loc.column], [4, 3]);
  });

  test('syntax errors are KG2001 with file:line:column', () => {
    const parsed = parseYamlFile('bad.yaml', 'a: [1, 2\nb: 3\n');
    assert.ok(parsed.diagnostics.length > 0);
    assert.equal(parsed.diagnostics[0]!.code, 'KG2001');
    assert.equal(parsed.diagnostics[0]!.location?.file, 'bad.yaml');
    assert.equal(parsed.documents.length, 0);
  });

  test('unquoted ${…} in a flow collection is read as a string with a KG2002 warning at its position', () => {
    const text = 'x:\n  sel: { app: ${schema.spec.name} }\n';
    const parsed = parseYamlFile('f.yaml', text);
    assert.deepEqual(
      parsed.diagnostics.map((d) => [d.code, d.severity, d.location?.line, d.location?.column]),
      [['KG2002', 'warning', 2, 15]],
    );
    assert.deepEqual(toJson(parsed.documents[0]!.root!), { x: { sel: { app: '${schema.spec.name}' } } });
    // Positions after the rewrite map back to the original text.
    const root = parsed.documents[0]!.root!;
    assert.ok(root.t === 'map' && root.entries[0]!.value.t === 'map');
    const sel = root.entries[0]!.value.entries[0]!;
    assert.deepEqual(parsed.documents[0]!.source.location(sel.keyPos.offset).column, 3);
  });

  test('quoteFlowExpressions leaves block context, quoted strings and comments alone', () => {
    const text = "a: ${x}\nb: '{ ${y} }'\n# { ${z} }\nc: [${w}]\n";
    const r = quoteFlowExpressions(text);
    assert.equal(r.text, 'a: ${x}\nb: \'{ ${y} }\'\n# { ${z} }\nc: ["${w}"]\n');
    assert.deepEqual(r.rewrites, [text.indexOf('${w}')]);
  });
});

describe('diagnostic formatting', () => {
  const parsed = parseYamlFile('g.yaml', 'spec:\n  nodes:\n    - id: each\n');
  const d = {
    severity: 'error' as const,
    code: 'KG2013',
    message: 'id is reserved: "each" cannot be used as a node id',
    node: 'each',
    path: 'spec.nodes[0].id',
    location: parsed.documents[0]!.source.location(parsed.documents[0]!.source.text.indexOf('each'), 4),
  };

  test('text: file:line:column, code, message, node and path, the line with a caret', () => {
    assert.equal(
      formatDiagnostic(d, parsed.documents[0]!.source),
      'g.yaml:3:11 - error KG2013: id is reserved: "each" cannot be used as a node id\n' +
        '  node each · spec.nodes[0].id\n' +
        '\n' +
        '3     - id: each\n' +
        '            ~~~~\n',
    );
  });

  test('json: the shape of `kgraph validate -o json`', () => {
    assert.deepEqual(
      toJsonReport([
        {
          file: 'g.yaml',
          apiVersion: 'kro.run/v1alpha1',
          kind: 'Graph',
          name: 'g',
          accepted: false,
          diagnostics: [d],
        },
      ]),
      {
        files: [],
        objects: [
          {
            file: 'g.yaml',
            apiVersion: 'kro.run/v1alpha1',
            kind: 'Graph',
            name: 'g',
            accepted: false,
            diagnostics: [
              {
                severity: 'error',
                code: 'KG2013',
                message: 'id is reserved: "each" cannot be used as a node id',
                node: 'each',
                path: 'spec.nodes[0].id',
                line: 3,
                column: 11,
              },
            ],
          },
        ],
      },
    );
  });

  test('json: file-level diagnostics belong to their file, never to a phantom object', () => {
    const warning: Diagnostic = {
      severity: 'warning',
      code: 'KG2002',
      message: 'a flow expression was quoted',
      location: { file: 'w.yaml', line: 2, column: 5, offset: 0, length: 1 },
    };
    const error: Diagnostic = {
      severity: 'error',
      code: 'KG2001',
      message: 'YAML: unexpected end',
      location: { file: 'b.yaml', line: 1, column: 1, offset: 0, length: 1 },
    };
    const object = {
      file: 'w.yaml',
      apiVersion: 'kro.run/v1alpha1',
      kind: 'Graph',
      name: 'w',
      accepted: true,
    };
    const report = toJsonReport([{ ...object, diagnostics: [] }], [warning, error]);
    assert.deepEqual(report.objects, [{ ...object, diagnostics: [] }]);
    assert.deepEqual(
      report.files.map((f) => [f.file, f.accepted, f.diagnostics.map((d) => [d.code, d.line])]),
      [
        ['w.yaml', true, [['KG2002', 2]]],
        ['b.yaml', false, [['KG2001', 1]]],
      ],
    );
  });
});

describe('called functions (for omit() and runtime.* rules)', () => {
  test('global and namespaced calls, not methods or strings', () => {
    assert.deepEqual(
      extractReferences("omit() + runtime.newCondition({'a': 1}) + x.map(v, v.size()) + 'omit()'").functions,
      ['omit', 'runtime.newCondition'],
    );
  });
});
