import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { runCel } from '../../../src/cli/commands/cel.ts';
import { runValidate } from '../../../src/cli/commands/validate.ts';

const dir = mkdtempSync(join(tmpdir(), 'kgraph-robust-'));

function graphWithDef(name: string, value: string): string {
  const file = join(dir, `${name}.yaml`);
  const text = [
    'apiVersion: kro.run/v1alpha1',
    'kind: Graph',
    'metadata:',
    `  name: ${name}`,
    'spec:',
    '  nodes:',
    '    - id: d',
    '      def:',
    `        v: ${value}`,
    '',
  ].join('\n');
  writeFileSync(file, text);
  return file;
}

interface JsonDiagnostic {
  code: string;
  line?: number;
  column?: number;
}
interface JsonReport {
  objects: { file: string; accepted: boolean; diagnostics: JsonDiagnostic[] }[];
}

async function validateJson(files: string[]): Promise<{ exitCode: number; report: JsonReport }> {
  const out = await runValidate(files, { crd: [], output: 'json' });
  return { exitCode: out.exitCode, report: JSON.parse(out.stdout) as JsonReport };
}

describe('kgraph validate survives hostile expressions', () => {
  const ok = graphWithDef('fine', `\${1 + 1}`);
  const inputs = {
    sum: graphWithDef('sum', `\${${Array(5000).fill('1').join(' + ')}}`),
    minus: graphWithDef('minus', `\${${'-'.repeat(5000)}1}`),
    brackets: graphWithDef('brackets', `"\${${'['.repeat(2000)}}"`),
  };
  for (const [name, file] of Object.entries(inputs)) {
    it(`${name}: JSON with a located KG1133 cause, and the other file keeps its result`, async () => {
      const { exitCode, report } = await validateJson([file, ok]);
      assert.equal(exitCode, 1);
      const bad = report.objects.find((o) => o.file === file);
      const good = report.objects.find((o) => o.file === ok);
      assert.ok(bad && good, JSON.stringify(report).slice(0, 300));
      assert.equal(bad.accepted, false);
      assert.equal(good.accepted, true);
      const error = bad.diagnostics[0];
      assert.ok(error);
      assert.match(JSON.stringify(bad.diagnostics), /KG1133|nested too deeply/);
      assert.equal(error.line, 9);
      assert.ok((error.column ?? 0) > 0);
    });
  }
});

describe('kgraph cel input handling', () => {
  it('2,000 nested [ is a JSON error with a code and a position', () => {
    const out = runCel('['.repeat(2000), { output: 'json' });
    assert.equal(out.exitCode, 1);
    const parsed = JSON.parse(out.stdout) as { error: { code: string; position: number } };
    assert.equal(parsed.error.code, 'KG1133');
    assert.equal(typeof parsed.error.position, 'number');
  });

  it('an unreadable --vars file is an error result, not an exception', () => {
    const out = runCel('1', { output: 'json', vars: join(dir, 'missing.yaml') });
    assert.equal(out.exitCode, 1);
    assert.match(JSON.parse(out.stdout).error.message, /missing\.yaml/);
  });
});
