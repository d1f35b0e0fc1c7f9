/**
 * kro parity fixtures, one file per item under ./compat/, written in the style of the kro
 * manifests where kgraph was seen to differ. Each document carries its verdicts in comments:
 *
 *   # kro: accepted|rejected        what kro's graph builder says
 *   # kgraph: accepted|rejected     what kgraph says with its defaults (kro compatibility on)
 *   # warn: CODE LINE:COL           a warning kgraph must report (any number)
 *   # error: CODE LINE:COL          an error kgraph must report (any number)
 *   # no-kro-compat: accepted       kgraph's verdict with --no-kro-compat (its documented extensions)
 *   # crd: crds/file.yaml           a CRD the file's documents read (passed as --crd)
 *
 * With the defaults, kgraph's verdict must equal kro's: a manifest kgraph accepts must work in kro.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { Diagnostic } from '../../../src/diag/diagnostic.ts';
import { validatePaths } from '../../../src/graph/validate.ts';

const dir = join(import.meta.dirname, 'compat');

interface Expect {
  kro: 'accepted' | 'rejected';
  kgraph: 'accepted' | 'rejected';
  extended?: 'accepted' | 'rejected';
  diagnostics: { severity: 'warning' | 'error'; code: string; at: string }[];
}

function expectations(text: string): Expect[] {
  return text.split(/^---$/m).map((doc) => {
    const header = (key: string): string | undefined =>
      doc.match(new RegExp(`^# ${key}: (.+)$`, 'm'))?.[1]?.trim();
    const kro = header('kro') ?? header('kgraph');
    const kgraph = header('kgraph') ?? kro;
    const diagnostics = [...doc.matchAll(/^# (warn|error): (KG\d+) (\d+:\d+)$/gm)].map((m) => ({
      severity: (m[1] === 'warn' ? 'warning' : 'error') as 'warning' | 'error',
      code: m[2]!,
      at: m[3]!,
    }));
    assert.ok(kro === 'accepted' || kro === 'rejected', 'each document states kro: accepted|rejected');
    const extended = header('no-kro-compat') as Expect['extended'];
    return { kro, kgraph: kgraph as Expect['kgraph'], diagnostics, ...(extended ? { extended } : {}) };
  });
}

const show = (d: Diagnostic): string =>
  `${d.severity} ${d.code} ${d.location?.line}:${d.location?.column} ${d.message}`;

describe('kro parity fixtures', () => {
  for (const name of readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()) {
    test(name, () => {
      const file = join(dir, name);
      const text = readFileSync(file, 'utf8');
      const expected = expectations(text);
      const crdFiles = [
        ...new Set([...text.matchAll(/^# crd: (.+)$/gm)].map((m) => join(dir, m[1]!.trim()))),
      ];
      const result = validatePaths([file], { crdFiles });
      assert.equal(result.objects.length, expected.length, 'one object per document');
      const all = [...result.fileDiagnostics, ...result.objects.flatMap((o) => o.diagnostics)];
      result.objects.forEach((o, i) => {
        const e = expected[i]!;
        assert.equal(e.kgraph, e.kro, `${o.name}: with the defaults kgraph must give kro's verdict`);
        const verdict = o.accepted ? 'accepted' : 'rejected';
        assert.equal(verdict, e.kgraph, `${o.name}: ${o.diagnostics.map(show).join('\n')}`);
      });
      for (const want of expected.flatMap((e) => e.diagnostics)) {
        assert.ok(
          all.some(
            (d) =>
              d.severity === want.severity &&
              d.code === want.code &&
              `${d.location?.line}:${d.location?.column}` === want.at,
          ),
          `expected ${want.severity} ${want.code} at ${want.at}; got:\n${all.map(show).join('\n')}`,
        );
      }
      if (expected.some((e) => e.extended)) {
        const extended = validatePaths([file], { crdFiles, kroCompat: false });
        extended.objects.forEach((o, i) => {
          const e = expected[i]!;
          const verdict = o.accepted ? 'accepted' : 'rejected';
          assert.equal(verdict, e.extended ?? e.kgraph, `${o.name} with --no-kro-compat`);
        });
      }
      // Every error kgraph reports is one the fixture expects.
      for (const d of all.filter((x) => x.severity === 'error')) {
        assert.ok(
          expected.some((e) =>
            e.diagnostics.some(
              (w) => w.code === d.code && w.at === `${d.location?.line}:${d.location?.column}`,
            ),
          ),
          `unexpected ${show(d)}`,
        );
      }
    });
  }
});
