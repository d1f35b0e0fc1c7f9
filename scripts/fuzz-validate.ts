// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the corpus quotes kgraph ${…} expressions
/**
 * One-off fuzz of `kgraph validate` and `kgraph cel` (issue #10 item 4; not run in CI):
 * node --import tsx scripts/fuzz-validate.ts [count=10000] [seed=1]
 * Mutates the example Graphs (random deletions, duplications, type swaps, deep nesting, hostile
 * expressions), validates each document in-process and counts crashes: an exception, an exit code
 * other than 0/1, stdout that is not JSON, or an error diagnostic without a code and a location.
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCel } from '../src/cli/commands/cel.ts';
import { runValidate } from '../src/cli/commands/validate.ts';
import { mulberry32 } from '../test/support/prng.ts';

const count = Number(process.argv[2] ?? 10_000);
const rnd = mulberry32(Number(process.argv[3] ?? 1));
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
const dir = mkdtempSync(join(tmpdir(), 'kgraph-fuzz-'));
const examples = join(import.meta.dirname, '../examples/graphs');
const seeds = readdirSync(examples)
  .filter((f) => f.endsWith('.yaml'))
  .map((f) => readFileSync(join(examples, f), 'utf8'));

const NASTY = [
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

function mutate(text: string): string {
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
}

let crashes = 0;
const samples: string[] = [];
const crash = (what: string, detail: string): void => {
  crashes++;
  if (samples.length < 10) samples.push(`${what}: ${detail.slice(0, 300)}`);
};

for (let i = 0; i < count; i++) {
  const file = join(dir, `d${i % 50}.yaml`);
  const text = mutate(pick(seeds));
  writeFileSync(file, text);
  try {
    const out = await runValidate([file], { crd: [], output: 'json' });
    if (out.exitCode !== 0 && out.exitCode !== 1) crash(file, `exit ${out.exitCode}`);
    const report = JSON.parse(out.stdout) as {
      objects: { diagnostics: { severity: string; code?: string; line?: number; file?: string }[] }[];
    };
    for (const o of report.objects)
      for (const d of o.diagnostics)
        if (d.severity === 'error' && (!d.code || d.line === undefined))
          crash(file, `error without code/location: ${JSON.stringify(d)}`);
  } catch (err) {
    writeFileSync(join(dir, `crash-${crashes}.yaml`), text);
    crash(file, err instanceof Error ? (err.stack ?? err.message) : String(err));
  }
  if (i % 500 === 499) process.stdout.write(`fuzz: ${i + 1} documents, ${crashes} crashes so far\n`);
  if (i % 10 === 0) {
    const expr = pick(NASTY).replace(/^"?\$\{|\}"?$/g, '');
    try {
      const out = runCel(expr, { output: 'json' });
      const parsed = JSON.parse(out.stdout) as { error?: { code?: string; position?: number } };
      if (out.exitCode === 1 && (parsed.error?.code === undefined || parsed.error.position === undefined))
        crash(`cel ${expr.slice(0, 40)}`, out.stdout);
    } catch (err) {
      crash(`cel ${expr.slice(0, 40)}`, String(err));
    }
  }
}
process.stdout.write(
  `fuzz: ${count} documents, ${crashes} crashes (inputs kept in ${dir})\n${samples.join('\n')}\n`,
);
