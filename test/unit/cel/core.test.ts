import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { toCelError } from '../../../src/cel/errors.ts';
import {
  baseEnvironment,
  CelCode,
  check,
  compile,
  evaluate,
  evaluateSource,
  formatWithCaret,
  listReferences,
  parse,
  referencedRoots,
  toJson,
} from '../../../src/cel/index.ts';

const env = baseEnvironment().extend({ variables: { a: 'dyn', n: 'int', s: 'string' } });

function refsOf(source: string) {
  const parsed = parse(source, env);
  assert.ok(parsed.ok, 'parses');
  return listReferences(parsed.value);
}

describe('CEL facade: environments', () => {
  it('builds one base environment per process', () => {
    assert.equal(baseEnvironment(), baseEnvironment());
  });

  it('declares variables in children and keeps the parent unchanged', () => {
    assert.equal(env.isDeclared('n'), true);
    assert.equal(baseEnvironment().isDeclared('n'), false);
    const child = env.extend({ variables: { extra: 'bool' } });
    assert.equal(child.isDeclared('extra'), true);
    assert.equal(env.isDeclared('extra'), false);
    assert.equal(child.variables.get('n'), 'int');
  });

  it('a dyn environment accepts undeclared identifiers', () => {
    const dyn = baseEnvironment().extend({ undeclaredAreDyn: true });
    const r = evaluateSource('foo.bar + 1', dyn, { foo: { bar: 1n } });
    assert.deepEqual(r, { ok: true, value: { value: 2n, type: 'int' } });
  });
});

describe('CEL facade: check', () => {
  it('returns the result type', () => {
    assert.deepEqual(check('n + 1', env), { ok: true, value: 'int' });
    assert.deepEqual(check('[1, 2]', env), { ok: true, value: 'list<int>' });
    assert.deepEqual(check('s.size() > 0', env), { ok: true, value: 'bool' });
  });

  it('reports a type error with code and position', () => {
    const r = check('1 + n + "x"', env);
    assert.equal(r.ok, false);
    if (r.ok) return;
    assert.equal(r.error.code, CelCode.Type);
    assert.equal(r.error.kind, 'type');
    assert.match(r.error.message, /no such overload/);
    assert.equal(r.error.position, 0);
  });

  it('reports an unknown identifier', () => {
    const r = check('n + missing', env);
    assert.equal(r.ok, false);
    if (r.ok) return;
    assert.equal(r.error.code, CelCode.UnknownIdentifier);
    assert.equal(r.error.position, 4);
  });

  it('reports a syntax error with its position', () => {
    const r = check('n + (1', env);
    assert.equal(r.ok, false);
    if (r.ok) return;
    assert.equal(r.error.code, CelCode.Syntax);
    assert.equal(r.error.kind, 'syntax');
    assert.equal(r.error.position, 6);
  });
});

describe('CEL facade: evaluate', () => {
  it('evaluates a compiled program repeatedly', () => {
    const program = compile('a.items.map(x, x * n)', env);
    assert.ok(program.ok);
    assert.equal(program.value.type, 'list<int>');
    assert.deepEqual(evaluate(program.value, { a: { items: [1n, 2n] }, n: 3n }), {
      ok: true,
      value: [3n, 6n],
    });
    assert.deepEqual(evaluate(program.value, { a: { items: [] }, n: 3n }), { ok: true, value: [] });
  });

  it('accepts plain JSON: numbers are doubles', () => {
    const r = evaluateSource('a.x * 2.0', env, { a: { x: 1.5 } });
    assert.deepEqual(r, { ok: true, value: { value: 3, type: 'double' } });
  });

  it('accepts a Map of variables', () => {
    const r = evaluateSource('n * 2', env, new Map([['n', 21n]]));
    assert.deepEqual(r, { ok: true, value: { value: 42n, type: 'int' } });
  });

  const pending: Array<[string, Record<string, unknown>]> = [
    ['a.missing', { a: {} }],
    ['a.b.c', { a: { b: {} } }],
    ['a["k"]', { a: {} }],
    ['a.list[5]', { a: { list: [1n] } }],
    ['n + 1', {}],
  ];
  for (const [source, vars] of pending) {
    it(`classifies ${source} with missing data as pending`, () => {
      const r = evaluateSource(source, env, vars);
      assert.equal(r.ok, false);
      if (r.ok) return;
      assert.equal(r.error.kind, 'pending');
      assert.equal(r.error.code, CelCode.DataPending);
    });
  }

  const hard: Array<[string, Record<string, unknown>, string]> = [
    ['n / 0', { n: 1n }, CelCode.DivisionByZero],
    ['n + 9223372036854775807', { n: 1n }, CelCode.Overflow],
    ['int("abc")', {}, CelCode.Conversion],
    ['a.x + 1', { a: { x: 'str' } }, CelCode.NoSuchOverload],
  ];
  for (const [source, vars, code] of hard) {
    it(`classifies ${source} as a hard error ${code}`, () => {
      const r = evaluateSource(source, env, vars);
      assert.equal(r.ok, false);
      if (r.ok) return;
      assert.notEqual(r.error.kind, 'pending');
      assert.equal(r.error.code, code);
    });
  }

  it('points a runtime error at the failing node', () => {
    const r = evaluateSource('n + a.missing', env, { n: 1n, a: {} });
    assert.equal(r.ok, false);
    if (r.ok) return;
    assert.equal(r.error.position, 6);
  });

  it('formats an error with a caret under its position', () => {
    const r = check('n + missing', env);
    assert.equal(r.ok, false);
    if (r.ok) return;
    const text = formatWithCaret('n + missing', r.error);
    assert.equal(text.split('\n')[2], `      ${'^'.repeat(7)}`);
  });
});

describe('CEL facade: references', () => {
  it('lists root, literal path and optional access', () => {
    const refs = refsOf('a.b[0].?c[n].d');
    assert.deepEqual(
      refs.map((r) => [
        r.root,
        r.path.map((p) => (p.kind === 'field' ? p.name : String(p.index))),
        r.optional,
      ]),
      [
        ['a', ['b', '0', 'c'], true],
        ['n', [], false],
      ],
    );
    assert.equal(refs[0]?.position, 0);
    assert.equal(refs[0]?.end, 9);
  });

  it('does not report comprehension and bind variables', () => {
    const roots = referencedRoots(
      parse('a.items.map(x, x.name + s).filter(y, y != "") + [cel.bind(q, a.z, q + s)]', env).ok
        ? (
            parse('a.items.map(x, x.name + s).filter(y, y != "") + [cel.bind(q, a.z, q + s)]', env) as {
              value: Parameters<typeof referencedRoots>[0];
            }
          ).value
        : (() => assert.fail('parse'))(),
    );
    assert.deepEqual(roots.sort(), ['a', 's']);
  });

  it('keeps a reference that shadows nothing outside the macro', () => {
    const refs = refsOf('a.all(k, v, v > 0) && k.x == 1');
    assert.deepEqual(
      refs.map((r) => r.root),
      ['a', 'k'],
    );
  });

  it('does not report namespaces and type names', () => {
    const refs = refsOf('optional.of(n).orValue(0) + int(s) + cel.bind(z, 1, z)');
    assert.deepEqual(
      refs.map((r) => r.root),
      ['n', 's'],
    );
  });

  it('reports has() targets', () => {
    const refs = refsOf('has(a.spec.x)');
    assert.deepEqual(refs[0]?.path, [
      { kind: 'field', name: 'spec', optional: false },
      { kind: 'field', name: 'x', optional: false },
    ]);
  });
});

describe('CEL facade: error classification', () => {
  it('treats library errors whose message says a key/attribute/field/index is missing as pending', () => {
    for (const message of [
      'no such key: x',
      'no such attribute: y',
      'No such field z',
      'index out of bounds: 4',
    ]) {
      const e = toCelError(new Error(message), 'evaluate');
      assert.equal(e.kind, 'pending', message);
      assert.equal(e.code, CelCode.DataPending);
    }
    assert.equal(toCelError(new Error('bad quantity'), 'evaluate').kind, 'evaluation');
  });

  it('a missing field at check time is a type error, not pending', () => {
    const typed = baseEnvironment().extend({ variables: { m: 'map<string, int>' } });
    const r = check('m.a + "x"', typed);
    assert.equal(r.ok, false);
    if (!r.ok) assert.equal(r.error.kind, 'type');
  });
});

describe('CEL facade: JSON rendering', () => {
  it('follows the kgraph cel -o json rules', () => {
    const r = evaluateSource(
      '[9007199254740993, -9007199254740993, 42, 1u, b"hi", timestamp("2020-01-01T00:00:00.5Z"), duration("90s"), optional.none(), optional.of(1), {"k": [true]}]',
      env,
    );
    assert.ok(r.ok);
    assert.deepEqual(toJson(r.value.value), [
      '9007199254740993',
      '-9007199254740993',
      42,
      1,
      'aGk=',
      '2020-01-01T00:00:00.5Z',
      '90s',
      null,
      1,
      { k: [true] },
    ]);
    assert.deepEqual(toJson([Number.NaN, Number.POSITIVE_INFINITY]), ['NaN', 'Infinity']);
  });
});

describe('CEL facade: typed objects', () => {
  const typed = baseEnvironment().extend({
    setup: (e) => e.registerType({ name: 'Bee', schema: { name: 'string', tags: 'map<string, string>' } }),
    variables: { b: 'Bee' },
  });

  it('rejects an undeclared field, also behind optional access (cel-go), with cel-go wording', () => {
    for (const source of ['b.nam', 'b.?nam.orValue("x")', 'b[?"nam"]']) {
      const r = check(source, typed);
      assert.equal(r.ok, false, source);
      if (!r.ok) assert.equal(r.error.message, "undefined field 'nam'");
    }
  });

  it('types optional access to a declared field and evaluates it', () => {
    assert.deepEqual(check('b.?name.orValue("x")', typed), { ok: true, value: 'string' });
    assert.deepEqual(check('b.tags.?any.orValue("")', typed), { ok: true, value: 'string' });
    const r = evaluateSource('b.?name.orValue("x")', typed, { b: {} });
    assert.deepEqual(r, { ok: true, value: { value: 'x', type: 'string' } });
  });
});

describe('CEL facade: map literal validation', () => {
  it('rejects unsupported and repeated literal keys at check time', () => {
    for (const [source, message] of [
      ['{1.5: 1}', /unsupported map key type: double/],
      ['{null: 1}', /unsupported map key type: null/],
      ['{true: 1, false: 2, true: 3}', /repeated map key/],
      ['{0: 1, 0u: 2}', /repeated map key/],
    ] as const) {
      const r = check(source, env);
      assert.equal(r.ok, false, source);
      if (!r.ok) assert.match(r.error.message, message);
    }
    assert.deepEqual(check('{"a": 1, "b": {"a": 2}}', env), { ok: true, value: 'map<string, dyn>' });
  });
});

describe('CEL facade: references through our macros and rewrites', () => {
  it('scopes the variables of two-variable comprehensions, sortBy and optMap', () => {
    const roots = (source: string) => refsOf(source).map((r) => r.root);
    assert.deepEqual(roots('a.transformMap(k, v, v + n + k.size())'), ['a', 'n']);
    assert.deepEqual(roots('a.transformList(i, v, i > n, v)'), ['a', 'n']);
    assert.deepEqual(roots('a.items.sortBy(x, x.p + n)'), ['a', 'n']);
    assert.deepEqual(roots('a.?b.optMap(x, x + n).orValue(0)'), ['a', 'n']);
    assert.deepEqual(roots('a.?b.optFlatMap(x, optional.of(x + n))'), ['a', 'n']);
  });

  it('does not report the rewrite namespace', () => {
    assert.deepEqual(
      refsOf('[?a.?b, n] + [has(a.`c-d`)]').map((r) => r.root),
      ['a', 'n', 'a'],
    );
  });
});
