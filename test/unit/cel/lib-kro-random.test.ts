import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertCelError, assertCheckFails, celEval } from './lib-support.ts';

// kro pkg/cel/library/random.go (kubernetes-sigs/kro). Goldens were derived by applying kro's
// algorithm by hand (an independent Python transcription: SHA-256 of the seed, 4-byte big-endian
// windows mod 36 for strings, first 8 bytes big-endian mod (max-min) for ints); kro's own
// random_test.go only checks length, alphabet and determinism, which we check too.
describe('kro random library', () => {
  it('seededString matches kro for known seeds', () => {
    assert.equal(celEval('random.seededString(10, "test-seed")'), '5czheg3o5c');
    assert.equal(celEval('random.seededString(5, "héllo")'), 'dxvmh');
    assert.equal(celEval('random.seededString(16, "different-seed")'), 'molvf9mxmolvf9mx');
  });

  it('seededString repeats every 8 characters, as kro does', () => {
    const s = celEval('random.seededString(20, "test-seed")');
    assert.equal(s, '5czheg3o5czheg3o5czh');
  });

  it('seededString uses the lowercase alphanumeric alphabet and is deterministic', () => {
    const a = celEval('random.seededString(32, "x")') as string;
    assert.match(a, /^[0-9a-z]{32}$/);
    assert.equal(celEval('random.seededString(32, "x")'), a);
    assert.notEqual(celEval('random.seededString(32, "y")'), a);
  });

  it('seededString rejects non-positive lengths and wrong types', () => {
    assertCelError('random.seededString(0, "test-seed")', 'random.seededString length must be positive');
    assertCelError('random.seededString(-1, "test-seed")', 'random.seededString length must be positive');
    assertCheckFails('random.seededString("10", "test-seed")');
    assertCheckFails('random.seededString(10, 123)');
    assertCheckFails('random.seededString(10)');
  });

  it('seededInt matches kro for known seeds', () => {
    assert.equal(celEval('random.seededInt(30000, 32768, "my-service")'), 31247n);
    assert.equal(celEval('random.seededInt(0, 100, "test-seed")'), 56n);
    assert.equal(celEval('random.seededInt(-100, -50, "seed")'), -58n);
    assert.equal(celEval('random.seededInt(0, 1000000, "seed-a")'), 616453n);
    assert.equal(celEval('random.seededInt(0, 1000000, "seed-b")'), 11447n);
    assert.equal(celEval('random.seededInt(5, 6, "seed")'), 5n);
  });

  it('seededInt wraps like Go int64 arithmetic on the full range', () => {
    assert.equal(
      celEval('random.seededInt(-9223372036854775807 - 1, 9223372036854775807, "x")'),
      -5948949156983295932n,
    );
  });

  it('seededInt requires min < max', () => {
    assertCelError('random.seededInt(5, 5, "seed")', 'random.seededInt min must be less than max');
    assertCelError('random.seededInt(10, 5, "seed")', 'random.seededInt min must be less than max');
    assertCheckFails('random.seededInt("a", 10, "seed")');
    assertCheckFails('random.seededInt(0, 10, 123)');
    assertCheckFails('random.seededInt(0, 10)');
  });
});
