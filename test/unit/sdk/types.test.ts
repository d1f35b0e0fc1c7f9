/**
 * Types that catch mistakes: builder arguments are typed with the Kubernetes API
 * types, so `tsc` rejects `replicas: 'two'`; docs/sdk.md's snippet compiles as written; a part-name
 * typo says which part is unknown and lists the known ones; SDK errors carry the package file's line.
 * The compiler runs in-process (TypeScript's API) over files written to a temporary folder.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';
import ts from 'typescript';
import { definePackage, SdkCode, SdkError, synth } from '../../../src/sdk/index.ts';

const root = resolve(import.meta.dirname, '../../..');
const sdk = join(root, 'src/sdk/index.ts');
const dir = mkdtempSync(join(tmpdir(), 'kgraph-sdk-types-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Type-checks `files` (name → source, `kgraph/sdk` mapped to our sources); the errors per file. */
function typeErrors(files: Record<string, string>): Record<string, { line: number; text: string }[]> {
  const names = Object.entries(files).map(([name, text]) => {
    const file = join(dir, name);
    writeFileSync(file, text.replaceAll("'kgraph/sdk'", `'${sdk}'`));
    return file;
  });
  const program = ts.createProgram(names, {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    allowImportingTsExtensions: true,
    types: ['node'],
    typeRoots: [join(root, 'node_modules/@types')],
  });
  const out: Record<string, { line: number; text: string }[]> = {};
  for (const d of ts.getPreEmitDiagnostics(program)) {
    const file = d.file?.fileName ?? '';
    const key = Object.keys(files).find((n) => file === join(dir, n)) ?? file;
    const line = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line + 1 : 0;
    out[key] = [...(out[key] ?? []), { line, text: ts.flattenDiagnosticMessageText(d.messageText, '\n') }];
  }
  return out;
}

const deployment = (replicas: string) => `import { definePackage } from 'kgraph/sdk';
export default definePackage({
  name: 'shop',
  build: ({ scope }) => ({
    web: () =>
      scope.mkDeployment({
        name: 'web',
        spec: {
          replicas: ${replicas},
          selector: { matchLabels: { app: 'web' } },
          template: { spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } },
        },
      }),
  }),
});
`;

describe('SDK types', () => {
  it("rejects replicas: 'two' at compile time, accepts replicas: 2, and docs/sdk.md's snippet compiles", () => {
    const md = readFileSync(join(root, 'docs/sdk.md'), 'utf8');
    const snippet = /```ts\n([\s\S]*?)```/.exec(md)?.[1];
    assert.ok(snippet, 'docs/sdk.md has a ts snippet');
    const errors = typeErrors({
      'bad.ts': deployment("'two'"),
      'good.ts': deployment('2'),
      'wrongField.ts': deployment('2').replace(
        "image: 'nginx:1.27'",
        "image: 'nginx:1.27', containerPort: 80",
      ),
      'docs.ts': snippet,
    });
    assert.deepEqual(errors['good.ts'], undefined, JSON.stringify(errors['good.ts']));
    assert.deepEqual(errors['docs.ts'], undefined, JSON.stringify(errors['docs.ts']));
    const bad = errors['bad.ts'] ?? [];
    assert.equal(bad.length, 1, JSON.stringify(bad));
    assert.equal(bad[0]?.line, 9);
    assert.match(bad[0]?.text ?? '', /Type 'string' is not assignable to type 'Authored<number/);
    // An unknown field of a container (containerPort belongs in ports[]) is an error too.
    assert.match(JSON.stringify(errors['wrongField.ts']), /'containerPort' does not exist in type/);
  });

  it('a part-name typo says which part is unknown and lists the known ones', () => {
    const pkg = definePackage<Record<string, unknown>>({
      name: 'shop',
      build: ({ scope, self }) => ({
        config: () => scope.mkResource({ apiVersion: 'v1', kind: 'ConfigMap', name: 'c', data: { a: '1' } }),
        user: () =>
          scope.mkResource({
            apiVersion: 'v1',
            kind: 'ConfigMap',
            name: 'u',
            data: { from: (self.confg as { out: { name: string } }).out.name },
          }),
      }),
    });
    assert.throws(
      () => synth({ instances: { shop: { package: pkg, namespace: 'shop' } } }),
      (e: unknown) =>
        e instanceof SdkError &&
        e.code === SdkCode.unknownPart &&
        e.message ===
          'self.confg: package shop has no part "confg" (did you mean "config"?); its parts: config, user',
    );
  });

  it("an SDK error carries the package file's line where the object was built", () => {
    const line = Number(new Error().stack?.split('\n')[1]?.match(/:(\d+):\d+\)?$/)?.[1]) + 3;
    const pkg = definePackage({
      name: 'shop',
      build: ({ scope }) => ({ bad: () => scope.mkDeployment({ name: 'web', spec: { template: {} } }) }),
    });
    try {
      synth({ instances: { shop: { package: pkg, namespace: 'shop' } } });
      assert.fail('synth should throw');
    } catch (e) {
      assert.ok(e instanceof SdkError, String(e));
      const at = e.diagnostics[0]?.location;
      assert.equal(at?.file, import.meta.filename);
      assert.equal(at?.line, line);
    }
  });
});
