/**
 * Fixture-driven rule tests. Every file under test/fixtures/graph/invalid ends with the exact list of
 * diagnostics it must produce (`# expect: CODE NODE PATH LINE:COLUMN`, in order); every file under
 * valid/ and seeds/ must be accepted without errors. Messages are checked against the texts the design
 * quotes (docs/design/graph.md), per code.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { validatePaths } from '../../../src/graph/validate.ts';

const root = join(import.meta.dirname, '../../fixtures/graph');

/** Substrings the spec quotes for each rule; diagnostics with these codes must contain them. */
const QUOTED: Record<string, string> = {
  KG2006: 'at least one node',
  KG2012: 'naming convention violation',
  KG2013: 'id is reserved',
  KG2020: 'exactly one of',
  KG2022: 'not supported on',
  KG2023: 'cannot use externalRef with forEach',
  KG2033: 'cluster-scoped and must not set metadata.namespace',
  KG2034: 'CEL expressions in CRDs are only supported for metadata fields',
  KG2032: 'metadata.name',
  KG2061: 'only standalone expressions are allowed',
  KG2066: 'cannot reference other iterators',
  KG2071: 'only standalone expressions are allowed',
  KG2072: 'may only reference the node itself',
  KG2073: 'readyWhen: references unknown identifiers: [pods]',
  KG2080: 'self references are not allowed',
  KG2081: 'does not publish a value',
  KG2082: 'references unknown identifiers: [',
  KG2083: 'graph contains a cycle',
  KG2084: 'mixes node references from different graph scopes',
  KG2096: 'is not a valid KRO kind name',
  KG2098: 'status fields without expressions are not supported',
  KG3001: 'schema not found',
};

function fixtures(dir: string): string[] {
  return readdirSync(join(root, dir))
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => join(root, dir, f));
}

function expectations(file: string): string[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('# expect: '))
    .map((l) => l.slice('# expect: '.length).trim());
}

describe('invalid fixtures produce exactly their expected diagnostics', () => {
  for (const file of fixtures('invalid')) {
    test(file.slice(root.length + 1), () => {
      const expected = expectations(file);
      assert.ok(expected.length > 0, 'fixture declares its expected diagnostics');
      const result = validatePaths([file]);
      assert.deepEqual(result.fileDiagnostics, [], 'the fixture itself parses');
      const diags = result.objects.flatMap((o) => o.diagnostics);
      const actual = diags.map(
        (d) => `${d.code} ${d.node ?? '-'} ${d.path ?? '-'} ${d.location?.line}:${d.location?.column}`,
      );
      assert.deepEqual(actual, expected);
      for (const d of diags) {
        const quoted = QUOTED[d.code];
        if (quoted)
          assert.ok(d.message.includes(quoted), `${d.code} message "${d.message}" contains "${quoted}"`);
        assert.equal(d.location?.file, file);
      }
      assert.ok(result.objects.every((o) => !o.accepted));
    });
  }
});

describe('valid fixtures are accepted', () => {
  for (const file of fixtures('valid')) {
    test(file.slice(root.length + 1), () => {
      const result = validatePaths([file]);
      assert.deepEqual(result.fileDiagnostics, []);
      assert.equal(result.objects.length, 1);
      assert.deepEqual(result.objects[0]!.diagnostics, []);
      assert.equal(result.objects[0]!.accepted, true);
    });
  }
});

describe('the seed examples validate (with CRD fixtures for their custom kinds)', () => {
  const crds = readdirSync(join(root, 'seeds/crds')).map((f) => join(root, 'seeds/crds', f));
  for (const file of fixtures('seeds')) {
    test(file.slice(root.length + 1), () => {
      const result = validatePaths([file], { crdFiles: crds });
      // Only the documented leniency warning (unquoted ${…} in flow collections) is allowed.
      assert.ok(result.fileDiagnostics.every((d) => d.severity === 'warning' && d.code === 'KG2002'));
      assert.equal(result.objects.length, 1);
      assert.deepEqual(result.objects[0]!.diagnostics, []);
      assert.equal(result.objects[0]!.accepted, true);
    });
  }

  test('without the CRD fixtures, custom kinds are unknown (KG3001), never a crash', () => {
    const result = validatePaths([join(root, 'seeds/001-blueprint-cross-plane.yaml')]);
    const codes = result.objects[0]!.diagnostics.map((d) => `${d.code} ${d.node}`);
    assert.deepEqual(codes, ['KG3001 vpc', 'KG3001 peers', 'KG3001 vm']);
  });
});
