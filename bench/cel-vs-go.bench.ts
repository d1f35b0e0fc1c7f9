/**
 * CEL throughput against cel-go, the CEL implementation kro runs: kro's typical
 * expressions (field access, string concatenation, ternaries, readiness comparisons, `exists`,
 * `filter`/`map` over 100 items, `has()` chains), each compiled once and evaluated in 7 timed rounds,
 * by our CEL (src/cel, default limits on) and by bench/cel-go (a Go program built from the Go module
 * proxy on first use into bench/.out/, github.com/google/cel-go v0.31.0), one after the other. The
 * machine is shared, so Go and Node run back to back `--runs` times (default 3) and each side's figure
 * is the median over the runs of its per-run medians.
 *
 * Run: node --import tsx bench/cel-vs-go.bench.ts [--runs N] [--write]
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { baseEnvironment, compile, evaluate } from '../src/cel/index.ts';
import { loadAverage, measuredBy, median, writeReadmeSection } from './support.ts';

const expressions: { name: string; source: string }[] = [
  { name: 'field', source: 'schema.spec.name' },
  { name: 'concat', source: '"app-" + schema.metadata.name + "-" + schema.spec.name' },
  { name: 'ternary', source: 'schema.spec.replicas > 2 ? schema.spec.replicas * 2 : 1' },
  { name: 'readyWhen', source: 'deployment.status.availableReplicas == schema.spec.replicas' },
  {
    name: 'exists',
    source: 'deployment.status.conditions.exists(c, c.type == "Available" && c.status == "True")',
  },
  {
    name: 'has chain',
    source: 'has(schema.metadata.labels) && has(schema.metadata.labels.team) && has(schema.spec.image)',
  },
  { name: 'filter+map 100', source: 'schema.spec.items.filter(x, x.enabled).map(x, x.name).size()' },
  { name: 'map 100', source: 'schema.spec.items.map(x, x.weight * 2)' },
];

const schema = {
  metadata: { name: 'web', namespace: 'apps', labels: { team: 'a', tier: 'frontend' } },
  spec: {
    name: 'web',
    replicas: 3n,
    image: 'nginx:1.27',
    enabled: true,
    ports: [80n, 443n],
    items: Array.from({ length: 100 }, (_, i) => ({
      name: `item-${i}`,
      enabled: i % 2 === 0,
      weight: BigInt(i),
    })),
  },
};
const deployment = { status: { availableReplicas: 3n, conditions: [{ type: 'Available', status: 'True' }] } };
const vars = { schema, deployment };
const env = baseEnvironment().extend({ variables: { schema: 'dyn', deployment: 'dyn' } });

function ours(source: string): number {
  const program = compile(source, env);
  if (!program.ok) throw new Error(`${source}: ${program.error.message}`);
  const p = program.value;
  const run = (n: number): number => {
    const t0 = performance.now();
    for (let i = 0; i < n; i++) {
      const r = evaluate(p, vars);
      if (!r.ok) throw new Error(`${source}: ${r.error.message}`);
    }
    return n / ((performance.now() - t0) / 1000);
  };
  run(2000);
  return median(Array.from({ length: 7 }, () => run(20_000)));
}

const out = join(import.meta.dirname, '.out');
const binary = join(out, 'cel-go-bench');
if (!existsSync(binary)) {
  mkdirSync(out, { recursive: true });
  process.stderr.write('building bench/cel-go (Go module proxy)…\n');
  execFileSync('go', ['build', '-o', binary, '.'], {
    cwd: join(import.meta.dirname, 'cel-go'),
    stdio: 'inherit',
  });
}
const runsArg = process.argv.indexOf('--runs');
const runs = runsArg >= 0 ? Number(process.argv[runsArg + 1]) : 3;
if (!Number.isInteger(runs) || runs < 1) throw new Error('--runs takes a positive integer');
const loads: string[] = [loadAverage()];
const goRuns = new Map<string, number[]>();
const ourRuns = new Map<string, number[]>();
const runGeomeans: number[] = [];
for (let run = 0; run < runs; run++) {
  const go = new Map<string, number>(
    execFileSync(binary, { input: JSON.stringify(expressions), encoding: 'utf8' })
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { name: string; opsPerSec: number })
      .map((r) => [r.name, r.opsPerSec]),
  );
  let logSum = 0;
  for (const { name, source } of expressions) {
    const mine = ours(source);
    const theirs = go.get(name) ?? Number.NaN;
    goRuns.set(name, [...(goRuns.get(name) ?? []), theirs]);
    ourRuns.set(name, [...(ourRuns.get(name) ?? []), mine]);
    logSum += Math.log(mine / theirs);
  }
  runGeomeans.push(Math.exp(logSum / expressions.length));
  loads.push(loadAverage());
}
const rows = expressions.map(({ name, source }) => ({
  name,
  source,
  mine: median(ourRuns.get(name) ?? []),
  go: median(goRuns.get(name) ?? []),
}));
const geomean = Math.exp(rows.reduce((s, r) => s + Math.log(r.mine / r.go), 0) / rows.length);
const fmt = (n: number): string => (n >= 1e6 ? `${(n / 1e6).toFixed(2)} M` : `${(n / 1e3).toFixed(1)} k`);
const lines = [
  measuredBy(
    'cel-vs-go.bench.ts',
    `1-min load ${loads.join(', ')} (before, and after each run); ${runs} runs of Go then Node, each a median of 7 rounds of 20,000 evaluations; the figures are the medians over the runs`,
  ),
  'Each expression compiled once, then evaluated; variables `dyn`, 100 items in `schema.spec.items`, kgraph with its default limits on (cost, size, wall clock). cel-go v0.31.0 (github.com/google/cel-go, built by `go build` in bench/cel-go).',
  '',
  '| name | expression | kgraph (ops/s) | cel-go (ops/s) | kgraph/cel-go |',
  '|---|---|---|---|---|',
  ...rows.map(
    (r) =>
      `| ${r.name} | \`${r.source.replace(/\|/g, '\\|')}\` | ${fmt(r.mine)} | ${fmt(r.go)} | ${(r.mine / r.go).toFixed(2)}× |`,
  ),
  '',
  `Geometric mean kgraph/cel-go: ${geomean.toFixed(2)}× (per run: ${runGeomeans.map((g) => `${g.toFixed(2)}×`).join(', ')}); goal ≥ 0.5×: ${geomean >= 0.5 ? 'met' : 'missed'}.`,
];
process.stdout.write(`${lines.join('\n')}\n`);
if (process.argv.includes('--write')) writeReadmeSection(`## CEL against cel-go\n\n${lines.join('\n')}\n`);
