import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertCelError, assertCheckFails, celEval } from './lib-support.ts';

// cel-go ext/encoders.go
describe('base64 encoders', () => {
  it('encodes bytes with padding', () => {
    assert.equal(celEval('base64.encode(b"hello")'), 'aGVsbG8=');
    assert.equal(celEval('base64.encode(b"")'), '');
    assert.equal(celEval('base64.encode(b"\\xff\\xfe")'), '//4=');
  });

  it('decodes padded and unpadded input', () => {
    assert.equal(celEval('base64.decode("aGVsbG8=") == b"hello"'), true);
    assert.equal(celEval('base64.decode("aGVsbG8") == b"hello"'), true);
    assert.equal(celEval('string(base64.decode("aGk="))'), 'hi');
    assert.equal(celEval('base64.decode("aGVs\\nbG8=") == b"hello"'), true);
    assert.equal(celEval('base64.decode("aGVsbG9=") == b"hello"'), true);
    assertCelError('base64.decode("!!!")', 'illegal base64 data');
    assertCelError('base64.decode("aGVsbG8=x")', 'illegal base64 data');
    assertCelError('base64.decode("aGVsbG8==")', 'illegal base64 data');
    assertCheckFails('base64.encode("hello")');
  });
});
