// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Environment, evaluate } from '@marcbachmann/cel-js';
import { scanValue, type TemplateValue } from '../../../src/expr/scan.ts';
import { quoteCelString } from '../../../src/expr/template.ts';

function template(value: string): TemplateValue {
  const r = scanValue(value);
  if (!r.ok || r.value.kind !== 'template') assert.fail(`not a template: ${value}`);
  return r.value;
}

describe('compileTemplate', () => {
  it('compiles to one concatenation with quoted literals and parenthesised expressions', () => {
    assert.equal(template('prefix-${a}-${b}').compiled.cel, '"prefix-" + (a) + "-" + (b)');
    assert.equal(template('${a}-x').compiled.cel, '(a) + "-x"');
    assert.equal(template('x-${a}').compiled.cel, '"x-" + (a)');
  });

  it('evaluates to the substituted string', () => {
    const t = template('prefix-${a}-${b.c}!');
    assert.equal(evaluate(t.compiled.cel, { a: 'A', b: { c: 'C' } }), 'prefix-A-C!');
  });

  it('starts with "" when two expressions lead, so ints never add up', () => {
    const t = template('${a}${b}');
    assert.equal(t.compiled.cel, '"" + (a) + (b)');
    assert.equal(evaluate(t.compiled.cel, { a: 'x', b: 'y' }), 'xy');
    assert.throws(() => evaluate(t.compiled.cel, { a: 1n, b: 2n }), /no such overload/);
  });

  it('type-checks every part as string (int part is an error)', () => {
    const env = new Environment().registerVariable('n', 'int').registerVariable('s', 'string');
    assert.equal(env.check(template('app-${s}').compiled.cel).type, 'string');
    assert.equal(env.check(template('app-${n}').compiled.cel).valid, false);
    assert.equal(env.check(template('app-${string(n)}').compiled.cel).valid, true);
  });

  it('quoting layers evaluate to the inner expression text', () => {
    const t = template("${'${quota.metadata.name}'}-copy");
    assert.equal(evaluate(t.compiled.cel), '${quota.metadata.name}-copy');
  });

  it('each quoting layer is peeled by one evaluation (parent → child → grandchild, design/graph.md §14.4)', () => {
    const evalValue = (value: string, vars: Record<string, unknown>): string => {
      const r = scanValue(value);
      if (!r.ok) assert.fail(r.diagnostic.message);
      if (r.value.kind === 'literal') return r.value.value;
      const cel = r.value.kind === 'standalone' ? r.value.expression.source : r.value.compiled.cel;
      return String(evaluate(cel, vars));
    };
    const parentValue = `\${"\${'\${name}'}"}-x`;
    const childValue = evalValue(parentValue, {});
    assert.equal(childValue, "${'${name}'}-x");
    const grandchildValue = evalValue(childValue, {});
    assert.equal(grandchildValue, '${name}-x');
    assert.equal(evalValue(grandchildValue, { name: 'quota' }), 'quota-x');
  });

  it('a // comment inside an expression does not swallow the closing parenthesis', () => {
    const t = template('${a // the name\n}-x');
    assert.equal(evaluate(t.compiled.cel, { a: 'A' }), 'A-x');
  });

  it('literal text with quotes, backslashes, newlines and control characters survives exactly', () => {
    const value = 'tab\t"q" \'s\' \\ ${a}\r\n\u0001\u007f é 😀 ${b}';
    const t = template(value);
    assert.equal(
      evaluate(t.compiled.cel, { a: 'A', b: 'B' }),
      value.replace('${a}', 'A').replace('${b}', 'B'),
    );
  });

  it('maps CEL offsets inside expressions back to value offsets exactly', () => {
    const value = 'name-${x.foo}-${y + z}';
    const t = template(value);
    const cel = t.compiled.cel;
    for (const needle of ['x.foo', 'foo', 'y + z', 'z']) {
      const celOffset = cel.indexOf(needle);
      assert.equal(value.slice(t.compiled.toValueOffset(celOffset)).startsWith(needle), true, needle);
    }
  });

  it('maps offsets inside literals and glue to the start of the part', () => {
    const t = template('name-${x}');
    assert.equal(t.compiled.toValueOffset(2), 0);
    const plus = t.compiled.cel.indexOf('+');
    assert.equal(t.compiled.toValueOffset(plus), 5);
  });

  it('maps a type error position back into the value', () => {
    const env = new Environment().registerVariable('n', 'int');
    const value = 'app-${n}';
    const r = env.check(template(value).compiled.cel);
    assert.equal(r.valid, false);
    const start = r.error?.range?.start;
    assert.equal(typeof start, 'number');
    const mapped = template(value).compiled.toValueOffset(start as number);
    assert.ok(mapped >= 0 && mapped <= value.length);
  });
});

describe('quoteCelString', () => {
  it('round-trips through the CEL parser', () => {
    for (const s of ['', 'plain', '"', "'", '\\', '\n\r\t', '\u0000\u001f', 'ünï©ødé 😀', '${x}']) {
      assert.equal(evaluate(quoteCelString(s)), s, JSON.stringify(s));
    }
  });
});
