import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { runConformance, type SuiteTally } from './conformance/runner.ts';

/**
 * Conformance gate: google/cel-spec's conformance suites (as shipped by @bufbuild/cel-spec) against
 * kgraph's environment, every library included. Cases that need protobuf message types or unknowns
 * are counted apart ("n/a"); a suite fails the gate when its passes drop below the recorded floor.
 * Raise a floor when the pass count goes up (floors.json); never lower one without a reason.
 */
interface Floors {
  core: { suites: string[]; minRatio: number };
  floors: Record<string, number>;
}

const floors = JSON.parse(
  readFileSync(join(import.meta.dirname, 'conformance/floors.json'), 'utf8'),
) as Floors;
const suites = Object.keys(floors.floors);
const { tallies, cases } = runConformance(suites);

function line(t: SuiteTally): string {
  const applicable = t.pass + t.fail;
  const pct = applicable === 0 ? 100 : (100 * t.pass) / applicable;
  return `${t.suite.padEnd(14)} ${String(t.pass).padStart(4)}/${String(applicable).padEnd(4)} ${pct.toFixed(1).padStart(5)}%  (n/a ${t.na}, floor ${floors.floors[t.suite]})`;
}

describe('cel-spec conformance', () => {
  it('prints the pass count per suite', () => {
    const core = tallies.filter((t) => floors.core.suites.includes(t.suite));
    const pass = core.reduce((n, t) => n + t.pass, 0);
    const applicable = core.reduce((n, t) => n + t.pass + t.fail, 0);
    const report = [
      ...tallies.map(line),
      `core total     ${pass}/${applicable} ${((100 * pass) / applicable).toFixed(1)}%`,
    ].join('\n');
    process.stdout.write(`${report}\n`);
    assert.ok(tallies.length === suites.length);
  });

  for (const t of tallies) {
    it(`${t.suite} stays at or above its floor`, () => {
      const floor = floors.floors[t.suite] ?? 0;
      const failures = cases
        .filter((c) => c.suite === t.suite && c.outcome === 'fail')
        .slice(0, 20)
        .map((c) => `  ${c.name}: ${c.expr} -- ${c.detail ?? ''}`)
        .join('\n');
      assert.ok(t.pass >= floor, `${t.suite}: ${t.pass} passes, floor ${floor}\n${failures}`);
    });
  }

  it('core suites together stay at or above the recorded ratio', () => {
    const core = tallies.filter((t) => floors.core.suites.includes(t.suite));
    const pass = core.reduce((n, t) => n + t.pass, 0);
    const applicable = core.reduce((n, t) => n + t.pass + t.fail, 0);
    assert.ok(pass / applicable >= floors.core.minRatio, `core ${pass}/${applicable}`);
  });
});
