import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertCelError, celEval } from './lib-support.ts';

// k8s.io/apiserver/pkg/cel/library/regex.go over Go's regexp (RE2) semantics.
describe('regex library (RE2)', () => {
  it('find returns the first match or an empty string', () => {
    assert.equal(celEval('"abc 123".find("[0-9]+")'), '123');
    assert.equal(celEval('"abc".find("[0-9]+")'), '');
    assert.equal(celEval('"ABC".find("(?i)b")'), 'B');
  });

  it('findAll returns all matches, with an optional limit', () => {
    assert.deepEqual(celEval('"123 abc 456".findAll("[0-9]+")'), ['123', '456']);
    assert.deepEqual(celEval('"123 abc 456".findAll("[0-9]+", 1)'), ['123']);
    assert.deepEqual(celEval('"123 abc 456".findAll("[0-9]+", 0)'), []);
    assert.deepEqual(celEval('"123 abc 456".findAll("[0-9]+", -1)'), ['123', '456']);
    assert.deepEqual(celEval('"abc".findAll("x")'), []);
  });

  it('findAll drops an empty match right after a match, as Go does', () => {
    assert.deepEqual(celEval('"baaa".findAll("a*")'), ['', 'aaa']);
    assert.deepEqual(celEval('"ab".findAll("")'), ['', '', '']);
    assert.deepEqual(celEval('"😀😀".findAll("")'), ['', '', '']);
  });

  it('matches uses RE2: inline flags work, backreferences are rejected', () => {
    assert.equal(celEval('"ABC".matches("(?i)^abc$")'), true);
    assert.equal(celEval('"xaby".matches("ab")'), true);
    assert.equal(celEval('"a\\nb".matches("(?s)a.b")'), true);
    assert.equal(celEval('matches("abc", "^a")'), true);
    assertCelError('"aa".matches("(a)\\\\1")', 'invalid escape sequence');
    assertCelError('"a".find("(")', 'missing closing )');
    assertCelError('"a".findAll("[")', 'missing closing ]');
  });
});
