import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertCelError, celEval } from './lib-support.ts';

// Expected strings follow cel-go ext/formatting_v2.go; fixed/scientific values round the exact
// binary value half to even, like Go's fmt (checked against Python's % operator, which does the same).
describe('string.format', () => {
  it('formats %s for scalars, lists and maps', () => {
    assert.equal(celEval('"%s, %s, %s".format(["a", 1, true])'), 'a, 1, true');
    assert.equal(celEval('"%s".format([[1, "a", 2.5, null]])'), '[1, a, 2.5, null]');
    assert.equal(celEval('"%s".format([{"b": 1, "a": [2]}])'), '{a: [2], b: 1}');
    assert.equal(celEval('"%s".format([b"hi"])'), 'hi');
    assert.equal(celEval('"%s".format([1e21])'), '1000000000000000000000');
    assert.equal(celEval('"%s".format([duration("90m")])'), '5400s');
    assert.equal(celEval('"%s".format([timestamp("2020-01-02T03:04:05Z")])'), '2020-01-02T03:04:05Z');
    assert.equal(celEval('"%s".format([3u])'), '3');
    assert.equal(celEval('"%s".format([[type(1), type(null)]])'), '[int, null_type]');
  });

  it('formats %d, %f, %e with Go rounding', () => {
    assert.equal(celEval('"%d".format([-42])'), '-42');
    assert.equal(celEval('"%d".format([2.5])'), '2.5');
    assert.equal(celEval('"%f".format([1.0])'), '1.000000');
    assert.equal(celEval('"%.2f".format([0.125])'), '0.12');
    assert.equal(celEval('"%.0f".format([2.5])'), '2');
    assert.equal(celEval('"%.3f".format([3])'), '3.000');
    assert.equal(celEval('"%.2s|%.1d".format(["abc", 7])'), 'abc|7');
    assert.equal(celEval('"%.3e".format([1234.5678])'), '1.235e+03');
    assert.equal(celEval('"%e".format([0.0])'), '0.000000e+00');
    assert.equal(celEval('"%.1e".format([-0.00012])'), '-1.2e-04');
    assert.equal(celEval('"%f".format([double("NaN")])'), 'NaN');
    assert.equal(celEval('"%e".format([double("-Infinity")])'), '-Infinity');
  });

  it('formats %b, %o, %x, %X', () => {
    assert.equal(celEval('"%b %b %b".format([5, true, -5])'), '101 1 -101');
    assert.equal(celEval('"%o".format([8])'), '10');
    assert.equal(celEval('"%x %X".format([255, 255])'), 'ff FF');
    assert.equal(celEval('"%x".format(["hi"])'), '6869');
    assert.equal(celEval('"%X".format([b"\\x01\\xab"])'), '01AB');
    assert.equal(celEval('"%x".format([-255])'), '-ff');
  });

  it('supports %% and reports bad clauses and missing arguments', () => {
    assert.equal(celEval('"100%% %s".format(["done"])'), '100% done');
    assertCelError('"%s %s".format(["x"])', 'index 1 out of range');
    assertCelError('"%z".format([1])', 'unrecognized formatting clause "z"');
    assertCelError(
      '"%d".format(["x"])',
      'error during formatting: decimal clause can only be used on ints, uints, and doubles, was given string',
    );
    assertCelError('"%f".format(["x"])', 'fixed-point clause can only be used on ints, uints, and doubles');
    assertCelError(
      '"%x".format([1.5])',
      'only ints, uints, bytes, and strings can be formatted as hex, was given double',
    );
    assertCelError('"%o".format([true])', 'octal clause can only be used on ints and uints, was given bool');
    assertCelError('"abc%".format([])', 'index 0 out of range');
    assertCelError('"abc%".format([1])', 'unexpected end of string');
    assertCelError('"%.".format([1])', 'could not find end of precision specifier');
    assertCelError('"%.f".format([1])', 'error while converting precision to integer');
    assertCelError('"%.1000f".format([1])', 'exceeds maximum allowed precision');
  });
});
