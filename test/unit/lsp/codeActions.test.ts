// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the tests quote kgraph ${…} syntax
/** Quick fixes from the compiler's diagnostics, applied to the text they were reported on. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compileYaml, parseYamlFile } from '../../../src/graph/index.ts';
import { fixesFor } from '../../../src/lsp/codeActions.ts';

function applyFirstFix(text: string, code: string): string {
  const d = [
    ...parseYamlFile('f.yaml', text).diagnostics,
    ...compileYaml('f.yaml', text).flatMap((r) => r.diagnostics),
  ].find((x) => x.code === code);
  assert.ok(d?.location?.offset !== undefined, `a located ${code}`);
  const start = d.location.offset;
  const [fix] = fixesFor(text, {
    code: d.code,
    message: d.message,
    start,
    end: start + (d.location.length ?? 0),
  });
  assert.ok(fix, `a fix for ${code}`);
  let out = text;
  for (const e of [...fix.edits].sort((a, b) => b.start - a.start))
    out = out.slice(0, e.start) + e.text + out.slice(e.end);
  return out;
}

const graph = (data: string) => `apiVersion: kro.run/v1alpha1
kind: Graph
metadata: {name: g, namespace: default}
spec:
  nodes:
    - id: cfg
      def: {name: x}
    - id: cm
      template:
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: cm}
        data: ${data}
`;

test('an unquoted ${…} in a flow collection gets its quotes', () => {
  const fixed = applyFirstFix(graph('{ app: ${cfg.name} }'), 'KG2002');
  assert.ok(fixed.includes('{ app: "${cfg.name}" }'), fixed);
  assert.deepEqual(
    compileYaml('f.yaml', fixed).flatMap((r) => r.diagnostics.map((d) => d.code)),
    [],
  );
});

test('"did you mean" replaces the misspelt node id', () => {
  const fixed = applyFirstFix(graph('{ app: "${cgf.name}" }'), 'KG2082');
  assert.ok(fixed.includes('{ app: "${cfg.name}" }'), fixed);
});
