import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Environment } from '@marcbachmann/cel-js';
import { allLibraries } from '../../../src/cel/lib/index.ts';

// src/cel/engineOverrides.ts (overrideBuiltin) patches engine internals; these tests fail loudly if an engine upgrade
// breaks the mechanism (built-ins would silently fall back to JavaScript RegExp / UTF-16 indices).
describe('built-in overrides', () => {
  const env = new Environment({ enableOptionalTypes: true });
  for (const library of allLibraries) library.install(env);

  it('apply to statically and dynamically dispatched calls', () => {
    assert.equal(env.evaluate('"ABC".matches("(?i)abc")'), true);
    assert.equal(env.evaluate('dyn("ABC").matches("(?i)abc")'), true);
    assert.equal(env.evaluate('"a😀b".indexOf("b")'), 2n);
    assert.equal(env.evaluate('dyn("a😀b").indexOf("b")'), 2n);
  });

  it('apply to children that register more functions', () => {
    const child = env.clone();
    child.registerFunction('kgraphTestFn(int): int', (x: bigint) => x);
    assert.equal(child.evaluate('"ABC".matches("(?i)abc")'), true);
    assert.equal(child.evaluate('"a😀b".substring(2)'), 'b');
  });

  it('apply to environments created without the libraries (the override is process-wide)', () => {
    const plain = new Environment();
    assert.equal(plain.evaluate('"ABC".matches("(?i)abc")'), true);
  });

  it('keep the type checker working', () => {
    assert.equal(env.check('"a".matches("b")').valid, true);
    assert.equal(env.check('"a".indexOf(1)').valid, false);
  });
});
