// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the tests quote kgraph ${…} syntax
/**
 * Expressions inside block scalars and multi-line quoted scalars are located at their exact range
 * (editors underline the expression, not the whole value or the document's first line).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compileYaml } from '../../../src/graph/index.ts';
import { typecheckGraph } from '../../../src/graph/typecheck.ts';
import { offlineResolver } from './support.ts';

const rgd = (data: string) => `apiVersion: kro.run/v1alpha1
kind: ResourceGraphDefinition
metadata:
  name: demo
spec:
  schema:
    apiVersion: v1alpha1
    kind: Demo
    spec:
      name: string
  resources:
    - id: cm
      template:
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: cm
        data:
${data}`;

function located(text: string): [string, number | undefined, number | undefined, string][] {
  const [r] = compileYaml('f.yaml', text, { resolver: offlineResolver(), typecheck: typecheckGraph });
  return r!.diagnostics.map((d) => {
    const o = d.location?.offset ?? 0;
    return [d.code, d.location?.line, d.location?.column, text.slice(o, o + (d.location?.length ?? 0))];
  });
}

test('an undefined field inside a literal block scalar points at the field', () => {
  const text = rgd('          script: |\n            echo hello\n            echo ${schema.spec.nmae}\n');
  assert.deepEqual(located(text), [['KG3004', 21, 32, 'nmae']]);
});

test('an undefined field inside a folded block scalar points at the field', () => {
  const text = rgd('          script: >\n            echo hello\n            ${schema.spec.nmae} end\n');
  assert.deepEqual(located(text), [['KG3004', 21, 27, 'nmae']]);
});

test('a CEL syntax error inside a double-quoted scalar over two lines points into the expression', () => {
  const text = rgd('          x: "a\n            ${schema.spec.name +}"\n');
  const [d] = located(text);
  assert.equal(d?.[1], 20, JSON.stringify(d));
  assert.equal(d?.[3], '}');
});
