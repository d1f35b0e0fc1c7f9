import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Quantity } from '../../../src/cel/lib/quantity.ts';
import { assertCelError, assertCheckFails, celEval } from './lib-support.ts';

// k8s.io/apiserver/pkg/cel/library/quantity.go over resource.Quantity; examples from its docs.
describe('quantity library', () => {
  it('parses and validates quantities', () => {
    assert.equal(celEval('isQuantity("50k")'), true);
    assert.equal(celEval('isQuantity("1.5Gi")'), true);
    assert.equal(celEval('isQuantity("-12e-3")'), true);
    assert.equal(celEval('isQuantity("1.5XX")'), false);
    assert.equal(celEval('isQuantity("")'), false);
    assert.equal(celEval('isQuantity("abc")'), false);
    assertCelError('quantity("5ki")', "unable to parse quantity's suffix");
    assertCelError('quantity("5X")', 'quantities must match the regular expression');
    assertCelError('quantity("x5")', 'quantities must match the regular expression');
  });

  it('isInteger, asInteger, asApproximateFloat, sign', () => {
    assert.equal(celEval('quantity("50k").isInteger()'), true);
    assert.equal(celEval('quantity("50.703m").isInteger()'), false);
    assert.equal(celEval('quantity("9999999999999999999999999999999999999G").isInteger()'), false);
    assert.equal(celEval('quantity("50k").asInteger()'), 50000n);
    assert.equal(celEval('quantity("1Gi").asInteger()'), 1073741824n);
    assert.equal(celEval('quantity("007").asInteger()'), 7n);
    // AsInt64() is false for inf.Dec values and negative scales, even when the value is integral.
    assert.equal(celEval('quantity("1.5Gi").isInteger()'), false);
    assert.equal(celEval('quantity("1000m").isInteger()'), false);
    assert.equal(celEval('quantity("500m").add(quantity("500m")).isInteger()'), false);
    assert.equal(celEval('quantity("1k").sub(1).asInteger()'), 999n);
    assertCelError('quantity("1.5Gi").asInteger()', 'cannot convert value to integer');
    assertCelError('quantity("50.703m").asInteger()', 'cannot convert value to integer');
    assertCelError('quantity("9223372036854775808").asInteger()', 'cannot convert value to integer');
    assert.equal(celEval('quantity("50.703m").asApproximateFloat()'), 0.050703);
    assert.equal(celEval('quantity("-50k").sign()'), -1n);
    assert.equal(celEval('sign(quantity("-50k"))'), -1n);
    assert.equal(celEval('quantity("1.5Gi").asApproximateFloat()'), 1610612736);
    assert.equal(celEval('quantity("0.1").asApproximateFloat()'), 0.1);
    assert.equal(celEval('quantity("0").sign()'), 0n);
    assert.equal(celEval('quantity("1m").sign()'), 1n);
  });

  it('adds and subtracts quantities and ints exactly', () => {
    assert.equal(celEval('quantity("50k").add(quantity("20k")) == quantity("70k")'), true);
    assert.equal(celEval('quantity("50k").add(20) == quantity("50020")'), true);
    assert.equal(celEval('quantity("50k").sub(quantity("20k")) == quantity("30k")'), true);
    assert.equal(celEval('quantity("50k").sub(20) == quantity("49980")'), true);
    assert.equal(celEval('quantity("0.1").add(quantity("0.2")) == quantity("300m")'), true);
    assert.equal(celEval('quantity("1Ki").sub(24).asInteger()'), 1000n);
    assert.equal(
      celEval('quantity("9223372036854775807").add(1).isGreaterThan(quantity("9223372036854775807"))'),
      true,
    );
    assert.equal(celEval('quantity("9223372036854775807").add(1).isInteger()'), false);
  });

  it('compares quantities', () => {
    assert.equal(celEval('quantity("200M").isGreaterThan(quantity("100M"))'), true);
    assert.equal(celEval('quantity("50M").isLessThan(quantity("100M"))'), true);
    assert.equal(celEval('quantity("1Gi").isGreaterThan(quantity("1G"))'), true);
    assert.equal(celEval('quantity("200M").compareTo(quantity("0.2G"))'), 0n);
    assert.equal(celEval('quantity("50M").compareTo(quantity("100M"))'), -1n);
    assert.equal(celEval('quantity("1k") == quantity("1000")'), true);
    assert.equal(celEval('quantity("1k") != quantity("1001")'), true);
    assertCheckFails('quantity("1").isGreaterThan("x")');
    assertCheckFails('quantity("1").add("x")');
    assert.equal((celEval('type(quantity("1"))') as { name: string }).name, 'kubernetes.Quantity');
  });

  it('renders canonical forms like resource.Quantity.String()', () => {
    const canonical = (s: string): string => Quantity.parse(s).toString();
    assert.equal(canonical('1.5Gi'), '1536Mi');
    assert.equal(canonical('1024Ki'), '1Mi');
    assert.equal(canonical('100Ki'), '100Ki');
    assert.equal(canonical('0.5Ki'), '512');
    assert.equal(canonical('1.1Ki'), '1126400m');
    assert.equal(canonical('0.1'), '100m');
    assert.equal(canonical('1000'), '1k');
    assert.equal(canonical('1500'), '1500');
    assert.equal(canonical('1e3'), '1e3');
    assert.equal(canonical('12e-3'), '12e-3');
    assert.equal(canonical('0'), '0');
    assert.equal(canonical('0.0000000001'), '1n');
    assert.equal(canonical('-0.0000000001'), '-1n');
    assert.equal(canonical('+'), '0');
    assert.equal(canonical('.5'), '500m');
    assert.equal(canonical('1.G'), '1G');
    assert.equal(canonical('0.5Ki'), '512');
    assert.equal(Quantity.parse('0').add(Quantity.parse('1Ki')).toString(), '1Ki');
    assert.equal(Quantity.parse('1Ki').add(Quantity.parse('1k')).toString(), '2024');
  });
});
