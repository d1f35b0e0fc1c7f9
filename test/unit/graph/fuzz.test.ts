/**
 * A seeded fuzz of `kgraph validate` and `kgraph cel` in the unit suite: mutated
 * example Graphs and hostile expressions never crash. Every run exits 0 or 1 with JSON on stdout, and
 * every error carries a code and a location. Bounded in count so the file stays fast; the long run is
 * scripts/fuzz-validate.ts (same mutator and checks, test/support/validateFuzz.ts).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { mulberry32 } from '../../support/prng.ts';
import { celProblems, mutator, NASTY, validateProblems } from '../../support/validateFuzz.ts';

const SEED = 20261202;
const DOCUMENTS = 30;

describe('seeded fuzz of validate and cel', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kgraph-unit-fuzz-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const examples = join(import.meta.dirname, '../../../examples/graphs');
  const seeds = readdirSync(examples)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => readFileSync(join(examples, f), 'utf8'));

  it(`${DOCUMENTS} mutated documents (seed ${SEED}): exit 0/1, JSON, every error coded and located`, async () => {
    const rnd = mulberry32(SEED);
    const mutate = mutator(rnd);
    const crashes: string[] = [];
    for (let i = 0; i < DOCUMENTS; i++) {
      const text = mutate(seeds[Math.floor(rnd() * seeds.length)]!);
      for (const p of await validateProblems(join(dir, `d${i}.yaml`), text)) crashes.push(`#${i}: ${p}`);
    }
    assert.deepEqual(crashes, []);
  });

  it('every hostile expression of the corpus: a value or a coded, positioned error', () => {
    const crashes = NASTY.flatMap((raw) =>
      celProblems(raw.replace(/^"?\$\{|\}"?$/g, '')).map((p) => `${raw.slice(0, 40)}: ${p}`),
    );
    assert.deepEqual(crashes, []);
  });
});
