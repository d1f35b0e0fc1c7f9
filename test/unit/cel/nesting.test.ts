import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { baseEnvironment, CelCode, evaluateSource, parse } from '../../../src/cel/index.ts';
import { listReferences } from '../../../src/cel/references.ts';

const env = baseEnvironment().extend({ undeclaredAreDyn: true });

/** Inputs that used to overflow the stack in the rewrite, the reference walker or the engine. */
const tooDeep: Record<string, string> = {
  'a 5,000-term sum': Array(5000).fill('1').join(' + '),
  '5,000 leading minus signs': `${'-'.repeat(5000)}1`,
  '5,000 negations': `${'!'.repeat(5000)}true`,
  '2,000 nested [': '['.repeat(2000),
  '2,000 balanced [ ]': `${'['.repeat(2000)}${']'.repeat(2000)}`,
  '5,000 nested (': `${'('.repeat(5000)}1${')'.repeat(5000)}`,
  '3,000 nested {': '{'.repeat(3000),
  'a 5,000-term && chain': Array(5000).fill('true').join(' && '),
  '3,000 nested calls': `${'size('.repeat(3000)}${')'.repeat(3000)}`,
  '3,000 optional list entries': '[?'.repeat(3000),
};

describe('nesting limits', () => {
  for (const [name, source] of Object.entries(tooDeep)) {
    it(`${name}: a located parse-limit error, no exception`, () => {
      const parsed = parse(source, env);
      assert.equal(parsed.ok, false);
      if (parsed.ok) return;
      assert.equal(parsed.error.code, CelCode.ParseLimit);
      assert.ok(
        parsed.error.position >= 0 && parsed.error.position < source.length,
        `${parsed.error.position}`,
      );
      assert.ok(parsed.error.end > parsed.error.position);
    });
  }

  it('brackets inside string literals do not count', () => {
    const result = evaluateSource(`size("${'['.repeat(1000)}") + size(r'${'('.repeat(1000)}\\d')`, env);
    assert.ok(result.ok, result.ok ? '' : result.error.message);
    assert.equal(result.value.value, 2002n);
  });

  it('expressions just under the limit parse, walk, check and evaluate', () => {
    const cases: [string, unknown][] = [
      [`${'('.repeat(240)}1${')'.repeat(240)}`, 1n],
      [Array(240).fill('1').join(' + '), 240n],
      [`${'-'.repeat(240)}1`, 1n],
      [`size(${'['.repeat(200)}${']'.repeat(200)})`, 1n],
    ];
    for (const [source, want] of cases) {
      const parsed = parse(source, env);
      assert.ok(parsed.ok, source.slice(0, 20));
      listReferences(parsed.value);
      const result = evaluateSource(source, env);
      assert.ok(result.ok, result.ok ? '' : result.error.message);
      assert.equal(result.value.value, want);
    }
  });
});
