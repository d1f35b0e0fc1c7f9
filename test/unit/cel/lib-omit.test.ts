import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isOmit, OMIT } from '../../../src/cel/lib/index.ts';
import { assertCelError, celEval } from './lib-support.ts';

// kro pkg/cel/library/omit.go: omit() returns a sentinel that the renderer uses to drop a field.
describe('omit()', () => {
  it('returns the recognisable sentinel', () => {
    const value = celEval('omit()');
    assert.equal(value, OMIT);
    assert.equal(isOmit(value), true);
  });

  it('can be chosen conditionally, and is not confused with ordinary values', () => {
    assert.equal(isOmit(celEval('x != "" ? x : omit()', { x: '' })), true);
    assert.equal(celEval('x != "" ? x : omit()', { x: 'v' }), 'v');
    for (const v of [null, undefined, {}, [], '', 0, 'omit()']) assert.equal(isOmit(v), false);
  });

  it('cannot be compared, as in kro', () => {
    assertCelError('omit() == 1', 'omit() is a field-removal sentinel and cannot be compared');
    assertCelError('"a" != omit()', 'omit() is a field-removal sentinel and cannot be compared');
    assertCelError('omit() == omit()', /overlaps|cannot be compared/);
    assert.equal(celEval('x == 1', { x: 1n }), true);
  });

  it('is typed as kro.omit', () => {
    assert.equal((celEval('type(omit())') as { name: string }).name, 'kro.omit');
  });
});
