// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the corpus quotes kgraph ${…} expressions
/**
 * The fuzzer of `kgraph validate` and `kgraph cel`, shared by the seeded unit test
 * (test/unit/graph/fuzz.test.ts, small and fast) and the long run (scripts/fuzz-validate.ts): mutations
 * of the example Graphs (deletions, duplications, type swaps, deep nesting, hostile expressions) and
 * the check that a run is no crash: exit 0 or 1, JSON on stdout, a code and a location on every error.
 */
import { writeFileSync } from 'node:fs';
import { runCel } from '../../src/cli/commands/cel.ts';
import { runValidate } from '../../src/cli/commands/validate.ts';

export const NASTY = [
  `\${${Array(5000).fill('1').join(' + ')}}`,
  `\${${'-'.repeat(5000)}1}`,
  `"\${${'['.repeat(2000)}}"`,
  '${lists.range(100000).distinct().size()}',
  '${',
  '}',
  '"${a.b.c.d}"',
  '${prototype}',
  '__proto__',
  'constructor',
  '"${\'\\u0000\'}"',
  '[[[[[[[[[[]]]]]]]]]]',
  '{a: {b: {c: {d: 1}}}}',
  '!!binary aGVsbG8=',
  '&a [*a]',
  '*undefinedalias',
  '0x1F',
  '1e400',
  '-.inf',
  '~',
  'yes',
  'n',
  '? complex key',
  '"\\ud800"',
  `${'a'.repeat(100000)}`,
];

/** A mutator of YAML text driven by `rnd` (a seeded PRNG in [0, 1)). */
export function mutator(rnd: () => number): (text: string) => string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
  return (text) => {
    const lines = text.split('\n');
    const n = 1 + Math.floor(rnd() * 4);
    for (let k = 0; k < n; k++) {
      const i = Math.floor(rnd() * lines.length);
      const line = lines[i] ?? '';
      switch (Math.floor(rnd() * 7)) {
        case 0:
          lines.splice(i, 1);
          break;
        case 1:
          lines.splice(i, 0, line);
          break;
        case 2:
          lines[i] = line.replace(/:\s.*$/, `: ${pick(NASTY)}`);
          break;
        case 3:
          lines[i] = `${' '.repeat(Math.floor(rnd() * 12))}${line.trimStart()}`;
          break;
        case 4:
          lines[i] = line.replace(
            /[a-z]+/,
            pick(['prototype', '__proto__', 'spec', 'nodes', 'id', '12', 'n', 'yes']),
          );
          break;
        case 5:
          lines[i] = line.slice(0, Math.floor(rnd() * line.length));
          break;
        default:
          lines.splice(
            i,
            0,
            `${line.match(/^\s*/)?.[0] ?? ''}${pick(['extra', 'id', 'forEach', 'template', 'def'])}: ${pick(NASTY)}`,
          );
      }
    }
    return lines.join('\n');
  };
}

/** Validates `text` as `file` in-process; what makes the run a crash (empty: none). */
export async function validateProblems(file: string, text: string): Promise<string[]> {
  writeFileSync(file, text);
  const problems: string[] = [];
  try {
    const out = await runValidate([file], { crd: [], output: 'json' });
    if (out.exitCode !== 0 && out.exitCode !== 1) problems.push(`exit ${out.exitCode}`);
    type Entry = { diagnostics: { severity: string; code?: string; line?: number | null }[] };
    const report = JSON.parse(out.stdout) as { files: Entry[]; objects: Entry[] };
    for (const o of [...report.files, ...report.objects])
      for (const d of o.diagnostics)
        if (d.severity === 'error' && (!d.code || d.line === undefined || d.line === null))
          problems.push(`error without code/location: ${JSON.stringify(d).slice(0, 300)}`);
  } catch (err) {
    problems.push(err instanceof Error ? (err.stack ?? err.message) : String(err));
  }
  return problems;
}

/** Runs `kgraph cel` on `expr` in-process; what makes the run a crash (empty: none). */
export function celProblems(expr: string): string[] {
  try {
    const out = runCel(expr, { output: 'json' });
    if (out.exitCode !== 0 && out.exitCode !== 1) return [`exit ${out.exitCode}`];
    const parsed = JSON.parse(out.stdout) as { error?: { code?: string; position?: number } };
    if (out.exitCode === 1 && (parsed.error?.code === undefined || parsed.error.position === undefined))
      return [`error without code/position: ${out.stdout.slice(0, 300)}`];
    return [];
  } catch (err) {
    return [String(err)];
  }
}
