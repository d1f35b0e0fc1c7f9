import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseMarkers } from '../../../src/schema/simpleschema/markers.ts';

function ok(text: string) {
  const r = parseMarkers(text);
  assert.equal(r.ok, true, r.ok ? '' : r.message);
  return r.ok ? r.markers.map((m) => [m.key, m.value]) : [];
}

function fail(text: string) {
  const r = parseMarkers(text);
  assert.equal(r.ok, false);
  return r.ok ? { kind: '', message: '' } : r;
}

describe('SimpleSchema marker tokenizer', () => {
  it('splits whitespace-separated key=value pairs', () => {
    assert.deepEqual(ok(' required=true  default=5 '), [
      ['required', 'true'],
      ['default', '5'],
    ]);
  });

  it('unquotes double-quoted values with \\" and \\\\ escapes and keeps other backslashes', () => {
    assert.deepEqual(ok('description="say \\"hi\\" to a\\\\b"'), [['description', 'say "hi" to a\\b']]);
    assert.deepEqual(ok('pattern="^\\d+$"'), [['pattern', '^\\d+$']]);
  });

  it('keeps spaces inside quotes, brackets and braces', () => {
    assert.deepEqual(ok('default=[80, 443] description="a b"'), [
      ['default', '[80, 443]'],
      ['description', 'a b'],
    ]);
    assert.deepEqual(ok('default={"a": "x } y", "b": [1, 2]}'), [['default', '{"a": "x } y", "b": [1, 2]}']]);
  });

  it('allows repeated listMapKey markers', () => {
    assert.deepEqual(ok('listType=map listMapKey=name listMapKey=port'), [
      ['listType', 'map'],
      ['listMapKey', 'name'],
      ['listMapKey', 'port'],
    ]);
  });

  it('rejects unknown markers', () => {
    const r = fail('required=true colour=blue');
    assert.equal(r.kind, 'unknown-marker');
    assert.match(r.message, /unknown marker 'colour'/);
  });

  it('rejects a trailing key without a value', () => {
    assert.match(fail('required=true immutable').message, /marker key 'immutable' without a value/);
  });

  it('rejects unclosed quotes and brackets, and unmatched closers', () => {
    assert.match(fail('description="abc').message, /unclosed quote/);
    assert.match(fail('default=[1, 2').message, /unclosed bracket/);
    assert.match(fail('default=1]').message, /unmatched '\]'/);
    assert.match(fail('=1').message, /empty marker key/);
  });
});
