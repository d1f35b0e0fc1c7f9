import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertCelError, celEval } from './lib-support.ts';

// Expected values follow cel-go ext/strings.go semantics (code-point indices, Go strings functions).
describe('cel-go strings extension', () => {
  it('charAt counts code points and allows the end index', () => {
    assert.equal(celEval('"hello".charAt(1)'), 'e');
    assert.equal(celEval('"a😀b".charAt(1)'), '😀');
    assert.equal(celEval('"hello".charAt(5)'), '');
    assertCelError('"hello".charAt(6)', 'index out of range: 6');
    assertCelError('"hello".charAt(-1)', 'index out of range: -1');
  });

  it('indexOf and lastIndexOf use code points, with offsets', () => {
    assert.equal(celEval('"a😀b😀c".indexOf("b")'), 2n);
    assert.equal(celEval('"a😀b😀c".indexOf("😀", 2)'), 3n);
    assert.equal(celEval('"hello".indexOf("")'), 0n);
    assert.equal(celEval('"hello".indexOf("", 3)'), 3n);
    assert.equal(celEval('"hello".indexOf("z")'), -1n);
    assertCelError('"hello".indexOf("l", 5)', 'index out of range: 5');
    assertCelError('"hello".indexOf("l", -1)', 'index out of range: -1');
    assert.equal(celEval('"a😀b😀c".lastIndexOf("😀")'), 3n);
    assert.equal(celEval('"a😀b😀c".lastIndexOf("😀", 2)'), 1n);
    assert.equal(celEval('"hello".lastIndexOf("")'), 5n);
    assert.equal(celEval('"".lastIndexOf("@@")'), -1n);
    assert.equal(celEval('"hello".lastIndexOf("ll", 4)'), 2n);
    assertCelError('"hello".lastIndexOf("l", 5)', 'index out of range: 5');
  });

  it('lowerAscii and upperAscii leave non-ASCII letters alone', () => {
    assert.equal(celEval('"ÀbC".lowerAscii()'), 'Àbc');
    assert.equal(celEval('"àbc".upperAscii()'), 'àBC');
  });

  it('replace follows strings.Replace, including the limit and empty patterns', () => {
    assert.equal(celEval('"aaa".replace("a", "b")'), 'bbb');
    assert.equal(celEval('"aaa".replace("a", "b", 2)'), 'bba');
    assert.equal(celEval('"aaa".replace("a", "b", 0)'), 'aaa');
    assert.equal(celEval('"aaa".replace("a", "b", -1)'), 'bbb');
    assert.equal(celEval('"ab".replace("", "-")'), '-a-b-');
    assert.equal(celEval('"😀😀".replace("", "-", 2)'), '-😀-😀');
  });

  it('split follows strings.SplitN', () => {
    assert.deepEqual(celEval('"a,b,c".split(",")'), ['a', 'b', 'c']);
    assert.deepEqual(celEval('"a,b,c".split(",", 2)'), ['a', 'b,c']);
    assert.deepEqual(celEval('"a,b,c".split(",", 0)'), []);
    assert.deepEqual(celEval('"a,b,c".split(",", -1)'), ['a', 'b', 'c']);
    assert.deepEqual(celEval('"a😀".split("")'), ['a', '😀']);
    assert.deepEqual(celEval('"abc".split("", 2)'), ['a', 'bc']);
  });

  it('substring uses code points and reports bad ranges like cel-go', () => {
    assert.equal(celEval('"a😀b😀c".substring(2)'), 'b😀c');
    assert.equal(celEval('"a😀b😀c".substring(1, 3)'), '😀b');
    assert.equal(celEval('"abc".substring(3)'), '');
    assertCelError('"abc".substring(4)', 'index out of range: 4');
    assertCelError('"abc".substring(2, 1)', 'invalid substring range. start: 2, end: 1');
    assertCelError('"abc".substring(0, 4)', 'index out of range: 4');
  });

  it('trim strips Go unicode spaces only', () => {
    assert.equal(celEval('" \\t\\n x \\u00a0\\u2003".trim()'), 'x');
    assert.equal(celEval('"\\ufeffx".trim()'), '\ufeffx');
    assert.equal(celEval('"\\u0085x".trim()'), 'x');
  });

  it('reverse reverses code points', () => {
    assert.equal(celEval('"abc😀".reverse()'), '😀cba');
    assert.equal(celEval('"".reverse()'), '');
  });

  it('join concatenates a list of strings', () => {
    assert.equal(celEval('["a", "b"].join()'), 'ab');
    assert.equal(celEval('["a", "b"].join("-")'), 'a-b');
    assert.equal(celEval('[].join(",")'), '');
  });

  it('strings.quote escapes like cel-go', () => {
    assert.equal(celEval('strings.quote("a\\nb")'), '"a\\nb"');
    assert.equal(
      celEval('strings.quote("say \\"hi\\" \\\\ \\a\\b\\f\\r\\t\\v")'),
      '"say \\"hi\\" \\\\ \\a\\b\\f\\r\\t\\v"',
    );
    assert.equal(celEval('strings.quote("héllo 😀")'), '"héllo 😀"');
  });
});
