/**
 * CEL benchmark (not a test): parse + check + evaluate, and pre-planned evaluation (compiled once),
 * for typical kro expressions. Run: node --import tsx bench/cel.bench.ts [--write]
 * With --write the table replaces the `## CEL` section of bench/README.md.
 */

import { baseEnvironment, compile, evaluate, evaluateSource } from '../src/cel/index.ts';
import { loadAverage, measuredBy, median, writeReadmeSection } from './support.ts';

const schema = {
  metadata: { name: 'web', namespace: 'apps', labels: { team: 'a', tier: 'frontend' } },
  spec: {
    name: 'web',
    replicas: 3n,
    image: 'nginx:1.27',
    enabled: true,
    ports: [80n, 443n],
    env: { LOG_LEVEL: 'info', REGION: 'eu' },
    items: Array.from({ length: 5 }, (_, i) => ({
      name: `item-${i}`,
      enabled: i % 2 === 0,
      weight: BigInt(i),
    })),
  },
};
const deployment = { status: { availableReplicas: 3n, conditions: [{ type: 'Available', status: 'True' }] } };
const vars = { schema, deployment };

const expressions: Array<[string, string]> = [
  ['field', 'schema.spec.name'],
  ['template', '"app-" + schema.metadata.name + "-" + schema.spec.name'],
  ['arith+cond', 'schema.spec.replicas > 2 ? schema.spec.replicas * 2 : 1'],
  ['readyWhen', 'deployment.status.availableReplicas == schema.spec.replicas'],
  ['conditions', 'deployment.status.conditions.exists(c, c.type == "Available" && c.status == "True")'],
  [
    'has+filter+map',
    'has(schema.spec.items) && schema.spec.items.filter(x, x.enabled).map(x, x.name).size() > 2',
  ],
  ['optional', 'schema.spec.?missing.orValue("default") + schema.metadata.?labels.team.orValue("")'],
  ['map-transform', 'schema.spec.env.transformList(k, v, k + "=" + v)'],
];

const env = baseEnvironment().extend({ variables: { schema: 'dyn', deployment: 'dyn' } });

/** Median ops/s over `rounds` rounds of `iterations` calls each. */
function measure(fn: () => void, iterations: number, rounds = 7): number {
  for (let i = 0; i < Math.min(iterations, 2000); i++) fn(); // warm-up
  const rates: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const t0 = performance.now();
    for (let i = 0; i < iterations; i++) fn();
    rates.push(iterations / ((performance.now() - t0) / 1000));
  }
  return median(rates);
}

function fmt(n: number): string {
  return n >= 1e6 ? `${(n / 1e6).toFixed(2)} M` : `${(n / 1e3).toFixed(1)} k`;
}

const rows: string[] = [];
for (const [name, source] of expressions) {
  const check = evaluateSource(source, env, vars);
  if (!check.ok) throw new Error(`${name}: ${check.error.message}`);
  const program = compile(source, env);
  if (!program.ok) throw new Error(`${name}: ${program.error.message}`);
  const p = program.value;
  const full = measure(() => void evaluateSource(source, env, vars), 5_000);
  const planned = measure(() => void evaluate(p, vars), 50_000);
  const plannedNoLimits = measure(() => void evaluate(p, vars, { limits: false }), 50_000);
  rows.push(
    `| ${name} | \`${source.replace(/\|/g, '\\|')}\` | ${fmt(full)} | ${fmt(planned)} | ${fmt(plannedNoLimits)} | ${(planned / full).toFixed(1)}× |`,
  );
}

const section = [
  '## CEL',
  '',
  measuredBy(
    'cel.bench.ts',
    `load average ${loadAverage()} at the end of the run; medians of 7 rounds, ops/s`,
  ),
  'Full = parse + check + evaluate per call; pre-planned = `compile()` once, `evaluate()` per call (default limits on);',
  'the last column disables the cost/time instrumentation to show its overhead. Variables are `dyn`.',
  'Absolute numbers move by 2-3× with the machine load; compare columns within one run.',
  '',
  '| name | expression | full | pre-planned | pre-planned, no limits | planned/full |',
  '|---|---|---|---|---|---|',
  ...rows,
  '',
].join('\n');

process.stdout.write(`${section}\n`);

if (process.argv.includes('--write')) writeReadmeSection(section);
