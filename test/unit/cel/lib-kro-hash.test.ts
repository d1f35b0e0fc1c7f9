import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertCheckFails, celEval, hex } from './lib-support.ts';

// kro pkg/cel/library/hash.go: digests of the string's UTF-8 bytes, returned as bytes. kro's
// hash_test.go compares against Go's crypto/fnv output; these digests are the standard test vectors.
describe('kro hash library', () => {
  it('fnv64a returns the 8-byte big-endian FNV-1a digest', () => {
    assert.equal(hex(celEval('hash.fnv64a("hello world")')), '779a65e7023cd2e7');
    assert.equal(hex(celEval('hash.fnv64a("")')), 'cbf29ce484222325');
    assert.equal(hex(celEval('hash.fnv64a("héllo")')), 'a35ff71f960240e0');
  });

  it('sha256 and md5 return raw digests', () => {
    assert.equal(
      hex(celEval('hash.sha256("hello world")')),
      'b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9',
    );
    assert.equal(
      hex(celEval('hash.sha256("")')),
      'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    );
    assert.equal(hex(celEval('hash.md5("hello world")')), '5eb63bbbe01eeed093cb22bb8f5acdc3');
    assert.equal(hex(celEval('hash.md5("")')), 'd41d8cd98f00b204e9800998ecf8427e');
  });

  it('composes with base64 and format as in kro docs', () => {
    assert.equal(celEval('base64.encode(hash.fnv64a("hello world"))'), 'd5pl5wI80uc=');
    assert.equal(celEval('hash.md5("hello world").base64()'), 'XrY7u+Ae7tCTyyK7j1rNww==');
    assert.equal(
      celEval('"%x".format([hash.sha256("hello world")])'),
      'b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9',
    );
  });

  it('rejects non-string arguments at check time', () => {
    assertCheckFails('hash.fnv64a(123)');
    assertCheckFails('hash.sha256(123)');
    assertCheckFails('hash.md5(b"x")');
  });
});
