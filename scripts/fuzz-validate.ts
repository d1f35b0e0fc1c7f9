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
import { mulberry32 } from '../test/support/prng.ts';
import { celProblems, mutator, NASTY, validateProblems } from '../test/support/validateFuzz.ts';

const count = Number(process.argv[2] ?? 10_000);
const rnd = mulberry32(Number(process.argv[3] ?? 1));
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
const mutate = mutator(rnd);
const dir = mkdtempSync(join(tmpdir(), 'kgraph-fuzz-'));
const examples = join(import.meta.dirname, '../examples/graphs');
const seeds = readdirSync(examples)
  .filter((f) => f.endsWith('.yaml'))
  .map((f) => readFileSync(join(examples, f), 'utf8'));

let crashes = 0;
const samples: string[] = [];
const crash = (what: string, detail: string): void => {
  crashes++;
  if (samples.length < 10) samples.push(`${what}: ${detail.slice(0, 300)}`);
};

for (let i = 0; i < count; i++) {
  const file = join(dir, `d${i % 50}.yaml`);
  const text = mutate(pick(seeds));
  const problems = await validateProblems(file, text);
  if (problems.length > 0) writeFileSync(join(dir, `crash-${crashes}.yaml`), text);
  for (const p of problems) crash(file, p);
  if (i % 500 === 499) process.stdout.write(`fuzz: ${i + 1} documents, ${crashes} crashes so far\n`);
  if (i % 10 === 0) {
    const expr = pick(NASTY).replace(/^"?\$\{|\}"?$/g, '');
    for (const p of celProblems(expr)) crash(`cel ${expr.slice(0, 40)}`, p);
  }
}
process.stdout.write(
  `fuzz: ${count} documents, ${crashes} crashes (inputs kept in ${dir})\n${samples.join('\n')}\n`,
);
