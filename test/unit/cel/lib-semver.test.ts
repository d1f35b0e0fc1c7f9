import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertCelError, celEval } from './lib-support.ts';

// k8s.io/apiserver/pkg/cel/library/semverlib.go (blang/semver/v4 strict parse, normalizeAndParse).
describe('semver library', () => {
  it('parses strictly, or normalised on request', () => {
    assert.equal(celEval('isSemver("1.0.0")'), true);
    assert.equal(celEval('isSemver("1.0.0-rc.1+build.5")'), true);
    assert.equal(celEval('isSemver("hello")'), false);
    assert.equal(celEval('isSemver("v1.0")'), false);
    assert.equal(celEval('isSemver("01.2.3")'), false);
    assert.equal(celEval('isSemver("1.0.0-01")'), false);
    assert.equal(celEval('isSemver("v1.0", true)'), true);
    assert.equal(celEval('semver("v1.0", true) == semver("1.0.0")'), true);
    assert.equal(celEval('semver("01.01.01", true) == semver("1.1.1")'), true);
    assert.equal(celEval('semver("1", true).major()'), 1n);
    assert.equal(celEval('semver("1.2.03-alpha", true).patch()'), 3n);
    assertCelError('semver("1.0")', 'could not parse semver');
    assertCelError('semver("1.2-alpha", true)', 'short version cannot contain PreRelease/Build meta data');
  });

  it('major, minor, patch', () => {
    assert.equal(celEval('semver("1.2.3").major()'), 1n);
    assert.equal(celEval('semver("1.2.3").minor()'), 2n);
    assert.equal(celEval('semver("1.2.3").patch()'), 3n);
    assert.equal((celEval('type(semver("1.2.3"))') as { name: string }).name, 'kubernetes.Semver');
  });

  it('compares by SemVer precedence, ignoring build metadata', () => {
    assert.equal(celEval('semver("1.2.3").compareTo(semver("1.2.3"))'), 0n);
    assert.equal(celEval('semver("1.2.3").compareTo(semver("2.0.0"))'), -1n);
    assert.equal(celEval('semver("1.2.3").compareTo(semver("0.1.2"))'), 1n);
    assert.equal(celEval('semver("1.2.3").isGreaterThan(semver("1.2.2"))'), true);
    assert.equal(celEval('semver("1.2.3").isLessThan(semver("1.10.0"))'), true);
    assert.equal(celEval('semver("1.0.0+a") == semver("1.0.0+b")'), true);
    const ordered = [
      '1.0.0-alpha',
      '1.0.0-alpha.1',
      '1.0.0-alpha.beta',
      '1.0.0-beta',
      '1.0.0-beta.2',
      '1.0.0-beta.11',
      '1.0.0-rc.1',
      '1.0.0',
    ];
    for (let i = 1; i < ordered.length; i++) {
      assert.equal(celEval(`semver("${ordered[i - 1]}").isLessThan(semver("${ordered[i]}"))`), true);
    }
  });
});
