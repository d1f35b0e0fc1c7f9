// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the fixtures hold kgraph ${…} expressions
/**
 * Diagnostics polish, through the real binary: "did you mean" for field names and
 * SimpleSchema types, one code and no doubled text per message, a KG code for every missing file
 * (without Node's ENOENT wording, our source paths or a stack), one `file:line:col - severity`
 * format, and `crd` failing for an RGD that does not compile.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';

const root = resolve(import.meta.dirname, '../../..');
const fixtures = join(import.meta.dirname, 'fixtures');
const kgraph = (...args: string[]) =>
  spawnSync(process.execPath, [join(root, 'bin/kgraph.js'), ...args, '--no-color'], {
    cwd: fixtures,
    encoding: 'utf8',
  });

describe('diagnostics polish', () => {
  it('suggests field names and SimpleSchema types, and says a type mismatch once', () => {
    const r = kgraph('validate', 'typo-fields.yaml');
    assert.equal(r.status, 1);
    const lines = r.stdout.split('\n');
    const has = (re: RegExp) =>
      assert.ok(
        lines.some((l) => re.test(l)),
        `${re} in\n${r.stdout}`,
      );
    has(/^typo-fields\.yaml:11:17 - error KG4002: unknown type: integr \(did you mean "integer"\?\)$/);
    has(
      /^typo-fields\.yaml:18:11 - error KG2032: template requires metadata\.name \(metadata has "nmae": did you mean "name"\?\)$/,
    );
    has(
      /^typo-fields\.yaml:18:\d+ - error KG3008: field metadata\.nmae is not declared by the schema of ConfigMap \(did you mean "name"\?\)$/,
    );
    has(
      /^typo-fields\.yaml:29:11 - error KG3008: field spec\.selectr is not declared by the schema of Deployment \(did you mean "selector"\?\)$/,
    );
    has(
      /^typo-fields\.yaml:28:21 - error KG3005: type mismatch at spec\.replicas: expected int, got string$/,
    );
    assert.doesNotMatch(r.stdout, /kind mismatch/);
    // No hint to declare a type that is a typo of a built-in one.
    assert.doesNotMatch(r.stdout, /declare it under spec\.schema\.types/);
  });

  it('a missing file is KG6085 (or KG2007 in a report) at the file, for every command', () => {
    const rgd = join(root, 'examples/rgd/10-webapp.yaml');
    const cases: [string[], RegExp][] = [
      [
        ['render', rgd, '--instance', 'nope.yaml'],
        /^nope\.yaml - error KG6085: --instance: cannot read: no such file or directory$/m,
      ],
      [
        ['render', rgd, '--state', 'nope.yaml'],
        /^nope\.yaml - error KG6085: --state: cannot read: no such file or directory$/m,
      ],
      [
        ['deploy', 'nope.ts', '--dry-run'],
        /^nope\.ts - error KG6085: cannot read: no such file or directory$/m,
      ],
      [['synth', 'nope.ts'], /^nope\.ts - error KG6085: cannot read: no such file or directory$/m],
      [['crd', 'nope.yaml'], /^nope\.yaml - error KG6085: cannot read: no such file or directory$/m],
      [['render', 'nope.yaml'], /^nope\.yaml - error KG2007: cannot read: no such file or directory$/m],
      [['graph', 'nope.yaml'], /^nope\.yaml - error KG2007: cannot read: no such file or directory$/m],
    ];
    for (const [args, expected] of cases) {
      const r = kgraph(...args);
      assert.equal(r.status, 1, args.join(' '));
      assert.match(r.stderr, expected, `${args.join(' ')}:\n${r.stderr}`);
      assert.equal(r.stderr.trim().split('\n').length, 1, `one line for ${args.join(' ')}:\n${r.stderr}`);
      assert.doesNotMatch(r.stderr, /ENOENT|src\/|bin\/kgraph|\n\s+at /, args.join(' '));
    }
    const v = kgraph('validate', 'nope.yaml');
    assert.equal(v.status, 1);
    assert.match(v.stdout, /^nope\.yaml - error KG2007: cannot read: no such file or directory$/m);
  });

  it("synth's SDK warnings: the same format, at the package line that caused them", () => {
    const dir = mkdtempSync(join(tmpdir(), 'kgraph-warn-'));
    const sdk = join(root, 'src/sdk/index.ts');
    writeFileSync(
      join(dir, 'pkg.ts'),
      `import { definePackage } from ${JSON.stringify(sdk)};\nexport default definePackage({\n  name: 'warned',\n  build: ({ scope }) => ({\n    hpa: scope.mkResource({ apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', name: 'h' }),\n  }),\n});\n`,
    );
    writeFileSync(join(dir, 'cluster.yaml'), 'name: dev\ncapabilities:\n  metricsApi: unknown\n');
    const r = spawnSync(
      process.execPath,
      [join(root, 'bin/kgraph.js'), 'synth', 'pkg.ts', '--cluster', 'cluster.yaml'],
      { cwd: dir, encoding: 'utf8' },
    );
    rmSync(dir, { recursive: true, force: true });
    assert.equal(r.status, 0, r.stderr);
    assert.match(
      r.stderr,
      /^pkg\.ts:5:16 - warning KG7051: HorizontalPodAutoscaler h needs metrics\.k8s\.io; whether the cluster serves it is unknown$/m,
    );
  });

  it('crd: the diagnostics format of validate, and exit 1 when the RGD does not compile', () => {
    const r = kgraph('crd', 'rgd-not-compiling.yaml');
    assert.equal(r.status, 1, r.stderr);
    assert.match(
      r.stderr,
      /^rgd-not-compiling\.yaml:19:\d+ - error KG2082: references unknown identifiers: \[confg\] \(did you mean "config"\?\)$/m,
    );
    assert.match(r.stderr, /^rgd-not-compiling\.yaml - error: broken does not compile \(1 error\)/m);
    // The CRD is still printed (its schema is fine); --no-compile does not look at the resources.
    assert.match(r.stdout, /kind: CustomResourceDefinition/);
    assert.equal(kgraph('crd', 'rgd-not-compiling.yaml', '--no-compile').status, 0);
    const bad = kgraph('crd', 'typo-fields.yaml');
    assert.equal(bad.status, 1);
    assert.match(bad.stderr, /^typo-fields\.yaml:11:\d+ - error KG4002: unknown type: integr/m);
  });
});
