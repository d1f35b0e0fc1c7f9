// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are kgraph ${…} expressions, not JS templates
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ExprCodes } from '../../../src/expr/codes.ts';
import { type ScannedValue, scanValue } from '../../../src/expr/scan.ts';

function ok(value: string): ScannedValue {
  const r = scanValue(value);
  if (!r.ok) assert.fail(`expected ${JSON.stringify(value)} to scan, got ${r.diagnostic.message}`);
  return r.value;
}

function sources(value: string): string[] {
  const v = ok(value);
  if (v.kind === 'literal') return [];
  if (v.kind === 'standalone') return [v.expression.source];
  return v.expressions.map((e) => e.source);
}

function err(value: string): { code: string; offset: number | undefined; message: string } {
  const r = scanValue(value);
  if (r.ok) assert.fail(`expected ${JSON.stringify(value)} to fail, got ${r.value.kind}`);
  return { code: r.diagnostic.code, offset: r.diagnostic.location?.offset, message: r.diagnostic.message };
}

describe('scanValue: classification', () => {
  it('a value without ${ is literal', () => {
    assert.deepEqual(ok('plain text'), { kind: 'literal', value: 'plain text' });
    assert.deepEqual(ok(''), { kind: 'literal', value: '' });
  });

  it('$ not followed by { is literal text', () => {
    assert.equal(ok('cost: $5 and $ {x} and $').kind, 'literal');
  });

  it('a lone } or { outside expressions is literal text', () => {
    assert.equal(ok('a } b { c').kind, 'literal');
  });

  it('the whole value being one expression is standalone', () => {
    const v = ok('${schema.spec.replicas}');
    assert.equal(v.kind, 'standalone');
    assert.equal(v.kind === 'standalone' && v.expression.source, 'schema.spec.replicas');
    assert.deepEqual(v.kind === 'standalone' && v.expression, {
      source: 'schema.spec.replicas',
      offset: 0,
      sourceOffset: 2,
      end: 23,
    });
  });

  it('inner whitespace stays in the source and keeps it standalone', () => {
    const v = ok('${  a + 1  }');
    assert.equal(v.kind, 'standalone');
    assert.equal(v.kind === 'standalone' && v.expression.source, '  a + 1  ');
  });

  it('surrounding whitespace or a trailing newline makes it a template', () => {
    assert.equal(ok(' ${a}').kind, 'template');
    assert.equal(ok('${a} ').kind, 'template');
    assert.equal(ok('${a}\n').kind, 'template');
  });

  it('two adjacent expressions are a template, not standalone', () => {
    const v = ok('${a}${b}');
    assert.equal(v.kind, 'template');
    assert.deepEqual(sources('${a}${b}'), ['a', 'b']);
  });

  it('template parts alternate literal and expression with offsets', () => {
    const v = ok('prefix-${a}-${b}');
    assert.equal(v.kind, 'template');
    if (v.kind !== 'template') return;
    assert.deepEqual(v.parts, [
      { kind: 'literal', text: 'prefix-', offset: 0 },
      { kind: 'expression', expression: { source: 'a', offset: 7, sourceOffset: 9, end: 11 } },
      { kind: 'literal', text: '-', offset: 11 },
      { kind: 'expression', expression: { source: 'b', offset: 12, sourceOffset: 14, end: 16 } },
    ]);
  });

  it('a multi-line block scalar with several expressions is one template', () => {
    const block = 'line1 ${a}\nline2 ${b.c}\n';
    const v = ok(block);
    assert.equal(v.kind, 'template');
    if (v.kind !== 'template') return;
    assert.deepEqual(
      v.expressions.map((e) => [e.source, e.offset]),
      [
        ['a', 6],
        ['b.c', 17],
      ],
    );
    assert.equal(v.parts.at(-1)?.kind, 'literal');
  });

  it('$${x} is a literal $ followed by an expression', () => {
    const v = ok('$${x}');
    assert.equal(v.kind, 'template');
    if (v.kind !== 'template') return;
    assert.deepEqual(v.parts[0], { kind: 'literal', text: '$', offset: 0 });
    assert.equal(v.expressions[0]?.offset, 1);
  });

  it('offsets are UTF-16 indices of the value', () => {
    const v = ok('é😀-${x}');
    assert.equal(v.kind, 'template');
    if (v.kind !== 'template') return;
    assert.equal(v.expressions[0]?.offset, 4);
    assert.equal('é😀-${x}'.slice(v.expressions[0]!.sourceOffset, v.expressions[0]!.end - 1), 'x');
  });
});

describe('scanValue: braces and string literals', () => {
  it('counts braces so map literals work', () => {
    assert.deepEqual(sources("${ {'a': 1}['a'] }"), [" {'a': 1}['a'] "]);
    assert.deepEqual(sources('${ {"a": {"b": 2}}.a.b }-x'), [' {"a": {"b": 2}}.a.b ']);
  });

  it('braces inside single- and double-quoted strings are text', () => {
    assert.deepEqual(sources("${'}'}"), ["'}'"]);
    assert.deepEqual(sources('${"{"}'), ['"{"']);
    assert.deepEqual(sources("${ {'a': '}'}['a'] }"), [" {'a': '}'}['a'] "]);
  });

  it('honours backslash escapes of the quote in normal strings', () => {
    assert.deepEqual(sources("${'it\\'s }'}"), ["'it\\'s }'"]);
    assert.deepEqual(sources('${"say \\"}\\""}'), ['"say \\"}\\""']);
    assert.deepEqual(sources("${'a\\\\'}-${b}"), ["'a\\\\'", 'b']);
  });

  it('a double quote inside a single-quoted string (and vice versa) is text', () => {
    assert.deepEqual(sources("${'\"}'}"), ["'\"}'"]);
    assert.deepEqual(sources('${"\'}"}'), ['"\'}"']);
  });

  it('skips triple-quoted strings, including quotes and braces inside', () => {
    assert.deepEqual(sources('${"""a } " "" b"""}'), ['"""a } " "" b"""']);
    assert.deepEqual(sources("${'''x\n}\ny'''}"), ["'''x\n}\ny'''"]);
  });

  it('raw strings do not treat backslash as an escape', () => {
    // r'\' is a complete raw literal holding one backslash.
    assert.deepEqual(sources("${r'\\'}"), ["r'\\'"]);
    assert.deepEqual(sources('${R"\\d+}"}-x'), ['R"\\d+}"']);
    assert.deepEqual(sources("${rb'\\'}"), ["rb'\\'"]);
    assert.deepEqual(sources("${BR'\\'}"), ["BR'\\'"]);
  });

  it('bytes prefixes keep escapes', () => {
    assert.deepEqual(sources("${b'\\'}'}"), ["b'\\'}'"]);
  });

  it('an identifier ending in r before a quote is not a raw prefix', () => {
    // `var'…'` is not CEL, but the scanner must not mistake `var` for a prefix: `\'` escapes.
    assert.deepEqual(sources("${var'\\'}'}"), ["var'\\'}'"]);
  });

  it('${ inside a string literal is text (quoting layers, design/graph.md §14.4)', () => {
    assert.deepEqual(sources("${'${quota.metadata.name}'}-copy"), ["'${quota.metadata.name}'"]);
    assert.deepEqual(sources('${"${VAR}"}'), ['"${VAR}"']);
    assert.deepEqual(sources('${"${\'${x}\'}"}'), ['"${\'${x}\'}"']);
  });
});

describe('scanValue: errors', () => {
  it('unterminated ${ is an error at its offset', () => {
    const e = err('abc ${foo');
    assert.equal(e.code, ExprCodes.unterminated);
    assert.equal(e.offset, 4);
    assert.match(e.message, /unterminated expression/);
    assert.match(e.message, /offset 4/);
  });

  it('unbalanced braces leave the expression unterminated', () => {
    const e = err('${ {"a": 1 }');
    assert.equal(e.code, ExprCodes.unterminated);
    assert.equal(e.offset, 0);
  });

  it('an unclosed string literal leaves the expression unterminated and says so', () => {
    const e = err("x-${'abc}");
    assert.equal(e.code, ExprCodes.unterminated);
    assert.equal(e.offset, 2);
    assert.match(e.message, /string literal at offset 4/);
  });

  it('an unclosed triple-quoted literal is unterminated', () => {
    assert.equal(err('${"""abc"}').code, ExprCodes.unterminated);
  });

  it('a trailing backslash escape at the end is unterminated', () => {
    assert.equal(err("${'\\").code, ExprCodes.unterminated);
  });

  it('an error after a valid expression still reports the failing offset', () => {
    const e = err('${a}-${b');
    assert.equal(e.offset, 5);
  });

  it('a nested ${ outside a string literal is an error at the inner offset', () => {
    const e = err('${outer(${inner})}');
    assert.equal(e.code, ExprCodes.nested);
    assert.equal(e.offset, 8);
    assert.match(e.message, /nested expression/);
  });

  it('a nested ${ after a string literal is still an error', () => {
    const e = err("${'a' + ${b}}");
    assert.equal(e.code, ExprCodes.nested);
    assert.equal(e.offset, 8);
  });

  it('an empty expression is an error', () => {
    assert.equal(err('${}').code, ExprCodes.empty);
    const e = err('a ${  }');
    assert.equal(e.code, ExprCodes.empty);
    assert.equal(e.offset, 2);
  });

  it('diagnostics are errors with a location length', () => {
    const r = scanValue('${outer(${inner})}');
    assert.equal(r.ok, false);
    if (r.ok) return;
    assert.equal(r.diagnostic.severity, 'error');
    assert.deepEqual(r.diagnostic.location, { offset: 8, length: 2 });
  });
});
