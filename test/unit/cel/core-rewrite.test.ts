import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { baseEnvironment, CelCode, check, listReferences, parse } from '../../../src/cel/index.ts';
import { toJson } from '../../../src/cel/json.ts';
import { rewriteSource } from '../../../src/cel/rewrite.ts';
import { errorOf, evalValue, typeOf } from './core.helpers.ts';

const env = baseEnvironment().extend({ variables: { o: 'dyn' } });
const vars = { o: { a: 1n, 'b-c': 'x', m: {} } };
const v = (s: string) => toJson(evalValue(env, s, vars));

describe('source rewrites for syntax the engine lacks', () => {
  it('leaves ordinary expressions untouched', () => {
    for (const s of ['o.a + 1', 'o.m[?"x"].orValue(3)', '[1, 2][0]', 'a ? b : c', '"[?x]" + \'`\'']) {
      const r = rewriteSource(s);
      assert.equal(r.changed, false, s);
      assert.equal(r.source, s);
    }
  });

  it('optional entries in list literals', () => {
    assert.deepEqual(v('[?o.?a, 2, ?o.?zz]'), [1, 2]);
    assert.deepEqual(v('[?o.?a, ?o.?a.optMap(x, x + 1)].map(x, x * 2)'), [2, 4]);
    assert.deepEqual(v('true ? [?o.?zz] : [1]'), []);
  });

  it('optional entries in map literals', () => {
    assert.deepEqual(v('{"k": 1, ?"j": o.?a, ?"z": o.?zz}'), { k: 1, j: 1 });
    assert.equal(v('{?"a": optional.none()} == {}'), true);
    assert.deepEqual(v('{?"t": o.?a, "c": o.a > 0 ? "y" : "n"}'), { t: 1, c: 'y' });
  });

  it('an optional entry must be an optional value', () => {
    assert.equal(errorOf(env, '[?1]').kind, 'evaluation');
  });

  it('backtick-quoted field names, plain and optional, and in has()', () => {
    assert.equal(v('o.`b-c`'), 'x');
    assert.equal(v('o.?`b-c`.orValue("")'), 'x');
    assert.equal(v('o.?`nope`.orValue("d")'), 'd');
    assert.equal(v('has(o.`b-c`)'), true);
    assert.equal(v('has(o.`zz`)'), false);
  });

  it('has() on a map literal', () => {
    assert.equal(v("has({'a': 1}.a)"), true);
    assert.equal(v("has({'a': 1}.b)"), false);
  });

  it('raw bytes and non-ASCII bytes literals', () => {
    assert.equal(v("br'\\a'"), Buffer.from('\\a').toString('base64'));
    assert.equal(v("b'ÿ' == b'\\303\\277'"), true);
  });

  it('floats without a leading digit', () => {
    assert.equal(v('.5 + 0.5'), 1);
    assert.equal(v('[.25][0]'), 0.25);
  });

  it('empty literal receivers', () => {
    assert.equal(v('[].all(e, e > 0)'), true);
    assert.equal(v('[].exists(e, e == 2)'), false);
    assert.equal(v('{}.exists(k, k == "a")'), false);
  });

  it('maps error positions back to the original source', () => {
    const e = errorOf(env, '[1, ?o.?a].size() + o.`nope`', vars);
    assert.equal(e.code, CelCode.DataPending);
    assert.equal(e.position, 20);
    const t = check('[?o.?a] + 1', env);
    assert.equal(t.ok, false);
    if (!t.ok) assert.equal(t.error.position, 0);
  });

  it('references see through the rewrites with original positions', () => {
    const p = parse('[?o.?a, o.`b-c`]', env);
    assert.ok(p.ok);
    const refs = listReferences(p.value);
    assert.deepEqual(
      refs.map((r) => [
        r.root,
        r.path.map((s) => (s.kind === 'field' ? s.name : String(s.index))),
        r.position,
        r.end,
      ]),
      [
        ['o', ['a'], 2, 6],
        ['o', ['b-c'], 8, 15],
      ],
    );
  });

  it('types of rewritten literals', () => {
    assert.equal(typeOf(env, '[?o.?a]', vars), 'list<dyn>');
    assert.equal(typeOf(env, '{?"a": o.?a}', vars), 'map<dyn, dyn>');
  });

  it('keeps ternaries, strings, comments and optional selection intact around rewrites', () => {
    assert.deepEqual(v('[o.a > 0 ? "y" : "n", ?o.?zz]'), ['y']);
    assert.deepEqual(v('{?"t": o.a > 0 ? optional.of(1) : optional.none()}'), { t: 1 });
    assert.deepEqual(v('[?o.?a, "?x", \'`\'] // ?comment'), [1, '?x', '`']);
    assert.deepEqual(v('[1, 2].map(x, [?o.?a, x])'), [
      [1, 1],
      [1, 2],
    ]);
    assert.equal(v('o.?a.orValue(0) + [?o.?a][0]'), 2);
  });

  it('malformed input goes to the engine unchanged and fails there', () => {
    assert.equal(errorOf(env, '[?o.?a').code, CelCode.Syntax);
    assert.equal(errorOf(env, 'o.`unterminated').code, CelCode.Syntax);
  });
});
