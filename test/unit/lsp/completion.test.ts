// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the tests quote kgraph ${…} syntax
/**
 * Completion in-process on half-typed text (what the server answers between two compiles): SimpleSchema
 * types and markers, node fields, forEach iterators, and the fields of a collection's item.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyse } from '../../../src/lsp/analysis.ts';
import { complete } from '../../../src/lsp/completion.ts';
import { SchemaSet } from '../../../src/lsp/schemas.ts';
import { linesOf } from '../../../src/lsp/yamlPath.ts';

const schemas = new SchemaSet();

const base = `apiVersion: kro.run/v1alpha1
kind: ResourceGraphDefinition
metadata:
  name: demo
spec:
  schema:
    apiVersion: v1alpha1
    kind: Demo
    spec:
      names: "[]string"
      size: integer
  resources:
    - id: cms
      forEach:
        - item: \${schema.spec.names}
      template:
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: \${item}
        data:
          size: \${string(schema.spec.size)}
`;

/** Completion at the end of the last line that starts with `marker` in `typed`, compiled from `base`. */
function labelsAt(typed: string, marker: string): string[] {
  const parsed = analyse('f.yaml', base, schemas);
  const lines = linesOf(typed);
  const line = lines.findLastIndex((l) => l.startsWith(marker));
  assert.ok(line >= 0, marker);
  const character = lines[line]!.length;
  const offset = lines.slice(0, line).reduce((n, l) => n + l.length + 1, 0) + character;
  const analysis = { ...parsed, text: typed };
  return complete({ analysis, parsed, schemas, lines }, offset, line, character).map((i) => String(i.label));
}

test('SimpleSchema: types after a field, markers after |', () => {
  const types = labelsAt(
    base.replace('      size: integer\n', '      size: integer\n      color: \n'),
    '      color: ',
  );
  assert.ok(
    types.includes('string') && types.includes('integer') && types.includes('[]string'),
    String(types),
  );
  const markers = labelsAt(
    base.replace('      size: integer\n', '      size: integer\n      color: string | \n'),
    '      color: string | ',
  );
  assert.ok(markers.includes('default=') && markers.includes('required='), String(markers));
});

test('a new node item offers the node fields of its flavor', () => {
  const typed = `${base}    - \n`;
  const fields = labelsAt(typed, '    - ');
  assert.deepEqual(fields, ['id', 'template', 'externalRef', 'includeWhen', 'readyWhen', 'forEach']);
});

test('inside a collection: its iterator, and the item fields of a collection read elsewhere', () => {
  const typed = base.replace('          name: ${item}', '          name: ${it');
  assert.ok(labelsAt(typed, '          name: ${it').includes('item'));
  const each = `${base}    - id: reader
      template:
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: reader
        data:
          first: \${cms[0].
`;
  const fields = labelsAt(each, '          first: ${cms[0].');
  assert.ok(fields.includes('data') && fields.includes('metadata'), String(fields));
});
