/**
 * Hostile CEL (not a test): CPU time of each expression of the hostile corpus and of a
 * seeded fuzz corpus under the default limits (wall clock off, as in the controller).
 * Run: node --import tsx bench/hostile-cel.bench.ts [--write]
 */
import { baseEnvironment, compile, evaluate } from '../src/cel/index.ts';
import { fuzzHostileExpressions, HOSTILE_EXPRESSIONS } from '../test/support/hostileCel.ts';
import { loadAverage, measuredBy, median, writeReadmeSection } from './support.ts';

const env = baseEnvironment().extend({ undeclaredAreDyn: true });

function cpuOf(source: string): { ms: number; outcome: string } {
  const program = compile(source, env);
  if (!program.ok) return { ms: 0, outcome: program.error.code };
  const before = process.cpuUsage();
  const r = evaluate(program.value, {}, { limits: { maxDurationMs: Number.POSITIVE_INFINITY } });
  const used = process.cpuUsage(before);
  return { ms: (used.user + used.system) / 1000, outcome: r.ok ? 'value' : r.error.code };
}

const rows: { source: string; ms: number; outcome: string }[] = [];
for (const source of HOSTILE_EXPRESSIONS) rows.push({ source, ...cpuOf(source) });
const fuzz = fuzzHostileExpressions(10, 1000).map((source) => ({ source, ...cpuOf(source) }));
rows.sort((a, b) => b.ms - a.ms);
fuzz.sort((a, b) => b.ms - a.ms);
const short = (s: string): string => (s.length > 90 ? `${s.slice(0, 87)}…` : s).replace(/\|/g, '\\|');
const lines = [
  '## Hostile CEL',
  '',
  `${measuredBy('hostile-cel.bench.ts', `load average ${loadAverage()}`)}`,
  `CPU time (user + system) per evaluation under the default limits (1,000,000 cost units, wall clock off).`,
  `Corpus: ${rows.length} expressions (test/support/hostileCel.ts); fuzz: 1,000 expressions, seed 10.`,
  '',
  '| set | median CPU | max CPU | outcomes |',
  '|---|---|---|---|',
  ...[
    ['corpus', rows],
    ['fuzz', fuzz],
  ].map(([name, xs]) => {
    const list = xs as typeof rows;
    const counts = new Map<string, number>();
    for (const r of list) counts.set(r.outcome, (counts.get(r.outcome) ?? 0) + 1);
    const outcomes = [...counts].map(([k, v]) => `${k} ${v}`).join(', ');
    return `| ${name} | ${median(list.map((r) => r.ms)).toFixed(1)} ms | ${(list[0]?.ms ?? 0).toFixed(1)} ms | ${outcomes} |`;
  }),
  '',
  'Slowest five of the corpus:',
  '',
  '| CPU | outcome | expression |',
  '|---|---|---|',
  ...rows.slice(0, 5).map((r) => `| ${r.ms.toFixed(1)} ms | ${r.outcome} | \`${short(r.source)}\` |`),
];
const section = `${lines.join('\n')}\n`;
process.stdout.write(section);
if (process.argv.includes('--write')) writeReadmeSection(section);
