/**
 * Hostile CEL expressions: each must end quickly with a value or a located limit error.
 * Shared by test/unit/cel/hostile.test.ts and bench/hostile-cel.bench.ts.
 */
import { mulberry32 } from './prng.ts';

/** A string of 10^(k+1) characters built cheaply by repeated replace. */
export function bigString(k: number, ch = 'a'): string {
  let e = `'${ch.repeat(10)}'`;
  for (let i = 0; i < k; i++) e = `${e}.replace('${ch}', '${ch.repeat(10)}')`;
  return e;
}

const S6 = bigString(5); // 1,000,000 characters
const S4 = bigString(3); // 10,000 characters
const L = 'lists.range(100000)';
const M = `${L}.transformMap(i, v, string(v), v)`;

export const HOSTILE_EXPRESSIONS: readonly string[] = [
  `${L}.distinct().size()`,
  'lists.range(1000000)',
  'lists.range(1000000).size()',
  `${L}.map(x, [x]).distinct().size()`,
  `${L}.map(x, {'a': x}).distinct().size()`,
  `${L}.sort().size()`,
  `${L}.map(x, -x).sort().size()`,
  `${L}.map(x, string(x)).join(',').size()`,
  'lists.range(1000).map(i, lists.range(1000).map(j, i + j)).size()',
  `${L}.all(x, ${L}.exists(y, y == x))`,
  `cel.bind(s, ${S6}, s.replace('', s)).size()`,
  `cel.bind(s, ${S6}, s + s + s + s + s).size()`,
  `${S6}.split('').size()`,
  `${S6}.findAll('a').size()`,
  `${S6}.matches('(a|aa)*b')`,
  `${S6}.indexOf('${'a'.repeat(200)}b')`,
  `${S6}.lastIndexOf('b${'a'.repeat(200)}')`,
  `${S6}.reverse().size()`,
  `strings.quote(${S6}).size()`,
  `${S6}.upperAscii().lowerAscii().size()`,
  `${S6}.substring(1).charAt(5)`,
  `'%s %s'.format([${L}, ${L}]).size()`,
  `json.marshal(${L}.map(x, {'a': x, 'b': [x, x]})).size()`,
  `json.unmarshal('[' + ${L}.map(x, '1').join(',') + ']').size()`,
  `base64.decode(base64.encode(bytes(${S6}))).size()`,
  `hash.fnv64a(${S6}).size()`,
  `hash.sha256(${S6}).size()`,
  `quantity(${S4} + 'x')`,
  `duration(${S4} + 'x')`,
  `semver('1.0.0-' + ${S4} + '+')`,
  `url('http://' + ${S4} + '/?' + ${S4}).getQuery().size()`,
  `isIP(${S4})`,
  `isCIDR(${S4} + '/8')`,
  `timestamp(${S4})`,
  `random.seededString(1000000, 'x').size()`,
  `cel.bind(m, ${M}, m.merge(m).deepMerge(m).size())`,
  `cel.bind(m, ${M}, lists.range(1000).map(i, m.size()).size())`,
  `cel.bind(l, ${L}, lists.range(1000).map(i, lists.setAtIndex(l, 0, i)).size())`,
  `cel.bind(l, ${L}, lists.range(1000).map(i, l == l).size())`,
  `cel.bind(l, ${L}, lists.range(1000).map(i, 99999 in l).size())`,
  `cel.bind(l, ${L}, lists.range(1000).map(i, l + l).size())`,
  `cel.bind(l, ${L}, lists.range(1000).map(i, l.indexOf(-1)).size())`,
  `lists.range(1000).map(x, lists.range(1000)).flatten().size()`,
  `${L}.sortBy(x, -x).size()`,
  `${L}.map(x, x).filter(x, x % 2 == 0).map(x, [x, x]).flatten().distinct().size()`,
  `cel.bind(b, bytes(${S6}), (b + b + b + b + b).size())`,
];

/** Building blocks for the seeded fuzz: sources of large values and operations over them. */
const SOURCES = [
  L,
  'lists.range(3000)',
  S6,
  S4,
  M,
  `${L}.map(x, [x])`,
  `bytes(${S4})`,
  "'x'",
  '[1, 2, 3]',
  "{'a': 1}",
];
const OPS: ((x: string, y: string) => string)[] = [
  (x) => `${x}.size()`,
  (x) => `dyn(${x}).distinct()`,
  (x) => `dyn(${x}).sort()`,
  (x, y) => `dyn(${x}) + dyn(${y})`,
  (x, y) => `dyn(${x}) == dyn(${y})`,
  (x, y) => `dyn(${x}) in dyn(${y})`,
  (x) => `json.marshal(${x})`,
  (x) => `'%s'.format([${x}])`,
  (x) => `string(${x})`,
  (x) => `dyn(${x}).join(',')`,
  (x, y) => `dyn(${x}).replace('a', dyn(${y}))`,
  (x) => `dyn(${x}).split('')`,
  (x) => `dyn(${x}).flatten()`,
  (x) => `dyn(${x}).map(e, ${x})`,
  (x, y) => `lists.range(1000).map(i, dyn(${x}) + dyn(${y})).size()`,
  (x, y) => `dyn(${x}).merge(dyn(${y}))`,
  (x) => `dyn(${x}).reverse()`,
  (x) => `lists.range(300).map(i, lists.range(300).map(j, dyn(${x}))).size()`,
];

/** `count` random hostile expressions, reproducible from `seed`. */
export function fuzzHostileExpressions(seed: number, count: number): string[] {
  const rnd = mulberry32(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
  const gen = (depth: number): string => {
    if (depth === 0 || rnd() < 0.3) return pick(SOURCES);
    return pick(OPS)(gen(depth - 1), gen(depth - 1));
  };
  return Array.from({ length: count }, () => gen(3));
}
