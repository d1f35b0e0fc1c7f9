/**
 * The cost of every CEL function and operator, charged BEFORE the call runs.
 *
 * One unit is about one evaluation step (one AST node, ≈ 0.2–0.6 µs), so the default budget of
 * 1,000,000 units bounds an evaluation to well under a second of CPU whatever it calls. A formula
 * reads only O(1) facts about the arguments (a string's length, a list's length, a map's size), so
 * charging is cheap; work a formula cannot see up front (nested comparisons, flattening, JSON of
 * nested values) is charged by the library as it goes (`chargeCost` per element, see lib/*.ts).
 * After the call, what it produced is charged too (`producedCost`) and size-checked.
 *
 * The table is keyed by function name (all overloads; the receiver, if any, is the first argument)
 * and by operator. `test/unit/cel/costs.test.ts` fails when a function of the environment has no
 * entry, and docs/cel.md lists every formula (`costTable()` prints it).
 */

/** Characters a native string scan (indexOf, ===, concatenation, hashing) handles per unit. */
export const NATIVE_CHARS_PER_UNIT = 64;
/** Characters a code-point or regex-driven operation (runes, RE2, parsers) handles per unit. */
export const SLOW_CHARS_PER_UNIT = 8;

export interface CostRule {
  /** The formula as written in the docs (`n` = length/size of the receiver or first argument, …). */
  readonly formula: string;
  /** Units to charge for a call with these arguments (receiver first). */
  readonly cost: (args: readonly unknown[]) => number;
}

/** Length of a string/bytes/list, entry count of a map; 0 for scalars. O(1) except for plain-object maps. */
export function sizeOf(v: unknown): number {
  if (typeof v === 'string') return v.length;
  if (v instanceof Uint8Array || Array.isArray(v)) return v.length;
  if (v instanceof Map || v instanceof Set) return v.size;
  if (isPlainObject(v)) {
    let n = 0;
    for (const _ in v as object) n++;
    return n;
  }
  return 0;
}

function isPlainObject(v: unknown): boolean {
  if (v === null || typeof v !== 'object') return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

const native = (n: number): number => Math.ceil(n / NATIVE_CHARS_PER_UNIT);
const slow = (n: number): number => Math.ceil(n / SLOW_CHARS_PER_UNIT);
const arg = (args: readonly unknown[], i: number): number => sizeOf(args[i]);
/** Strings and bytes scanned natively (64 per unit); lists and maps one unit per element. */
export const scanCost = (v: unknown): number => {
  if (typeof v === 'string') return native(v.length);
  // Scalars (ints are BigInts, doubles numbers, bools) cost nothing to scan.
  if (typeof v !== 'object' || v === null) return 0;
  return v instanceof Uint8Array ? native(v.length) : sizeOf(v);
};
const scan = scanCost;

const constant = (units: number, formula = String(units)): CostRule => ({ formula, cost: () => units });
const perElement: CostRule = { formula: '1 + n', cost: (a) => 1 + arg(a, 0) };
const nativeScan: CostRule = { formula: '1 + ⌈(n + m)/64⌉', cost: (a) => 1 + native(arg(a, 0) + arg(a, 1)) };
/** Parsers of short strings (quantity, semver, url, ip, duration…): code-point speed. */
const parse: CostRule = { formula: '1 + ⌈n/8⌉', cost: (a) => 1 + slow(arg(a, 0)) };
/** Namespaced functions get the namespace object as first argument. */
const parseArg1: CostRule = { formula: '1 + ⌈n/8⌉', cost: (a) => 1 + slow(arg(a, 1)) };
const runes: CostRule = { formula: '1 + ⌈(n + m)/8⌉', cost: (a) => 1 + slow(arg(a, 0) + arg(a, 1)) };

/** `s` receiver (n chars), pattern `p` (m chars): RE2 simulation is linear in n per pattern state. */
const regex = (receiverIndex: number): CostRule => ({
  formula: '1 + m + ⌈n·(1 + ⌈m/16⌉)/8⌉',
  cost: (a) => {
    const n = arg(a, receiverIndex);
    const m = arg(a, receiverIndex + 1);
    return 1 + m + slow(n * (1 + Math.ceil(m / 16)));
  },
});

/** Conversions whose cost depends on the argument type (string → parse; scalars → 1). */
const conversion: CostRule = {
  formula: '1, or 1 + ⌈n/8⌉ from a string/bytes',
  cost: (a) => {
    const v = a[0];
    return typeof v === 'string' || v instanceof Uint8Array ? 1 + slow(sizeOf(v)) : 1;
  },
};

export const FUNCTION_COSTS: Readonly<Record<string, CostRule>> = {
  // ── O(1) ────────────────────────────────────────────────────────────────
  // The engine counts a plain-object map's keys on every size() call.
  size: {
    formula: '1; maps 1 + ⌈n/16⌉',
    cost: (a) => (isPlainObject(a[0]) ? 1 + Math.ceil(sizeOf(a[0]) / 16) : 1),
  },
  type: constant(1),
  dyn: constant(1),
  omit: constant(1),
  none: constant(1),
  of: constant(1),
  ofNonZeroValue: constant(1),
  hasValue: constant(1),
  value: constant(1),
  hasField: constant(1),
  at: constant(1),
  getDate: constant(2, '2 (+ ⌈z/8⌉ with a time zone z)'),
  getDayOfMonth: constant(2, '2 (+ ⌈z/8⌉ with a time zone z)'),
  getDayOfWeek: constant(2, '2 (+ ⌈z/8⌉ with a time zone z)'),
  getDayOfYear: constant(2, '2 (+ ⌈z/8⌉ with a time zone z)'),
  getFullYear: constant(2, '2 (+ ⌈z/8⌉ with a time zone z)'),
  getHours: constant(2, '2 (+ ⌈z/8⌉ with a time zone z)'),
  getMilliseconds: constant(2, '2 (+ ⌈z/8⌉ with a time zone z)'),
  getMinutes: constant(2, '2 (+ ⌈z/8⌉ with a time zone z)'),
  getMonth: constant(2, '2 (+ ⌈z/8⌉ with a time zone z)'),
  getSeconds: constant(2, '2 (+ ⌈z/8⌉ with a time zone z)'),
  // quantity / semver / net methods: fixed-size decimal or address arithmetic
  add: constant(5),
  sub: constant(5),
  asApproximateFloat: constant(5),
  asInteger: constant(5),
  compareTo: constant(5),
  isGreaterThan: constant(5),
  isLessThan: constant(5),
  isInteger: constant(5),
  sign: constant(5),
  major: constant(1),
  minor: constant(1),
  patch: constant(1),
  family: constant(1),
  isGlobalUnicast: constant(5),
  isLinkLocalMulticast: constant(5),
  isLinkLocalUnicast: constant(5),
  isLoopback: constant(5),
  isUnspecified: constant(5),
  ip: {
    formula: '1, or 1 + ⌈n/8⌉ from a string',
    cost: (a) => (typeof a[0] === 'string' ? 1 + slow(arg(a, 0)) : 5),
  },
  masked: constant(5),
  prefixLength: constant(1),
  containsIP: { formula: '5 + ⌈m/8⌉', cost: (a) => 5 + slow(typeof a[1] === 'string' ? arg(a, 1) : 0) },
  containsCIDR: { formula: '5 + ⌈m/8⌉', cost: (a) => 5 + slow(typeof a[1] === 'string' ? arg(a, 1) : 0) },
  condition: {
    formula: '1 + size(v) + ⌈s/64⌉ (runtime.condition(v, s))',
    cost: (a) => 1 + scanCost(a[1]) + native(arg(a, 2)),
  },
  seededInt: { formula: '2 + ⌈s/64⌉ (seed s)', cost: (a) => 2 + native(arg(a, 3)) },

  // ── conversions and parsers ─────────────────────────────────────────────
  bool: conversion,
  int: conversion,
  uint: conversion,
  double: conversion,
  string: {
    formula: '1, or 1 + ⌈n/64⌉ from bytes/string',
    cost: (a) => (typeof a[0] === 'string' || a[0] instanceof Uint8Array ? 1 + native(arg(a, 0)) : 1),
  },
  bytes: { formula: '1 + ⌈n/64⌉', cost: (a) => 1 + native(arg(a, 0)) },
  timestamp: conversion,
  duration: conversion,
  quantity: parse,
  isQuantity: parse,
  semver: parse,
  isSemver: parse,
  url: parse,
  isURL: parse,
  cidr: parse,
  isCIDR: parse,
  isIP: parse,
  isCanonical: parseArg1,
  getScheme: parse,
  getHost: parse,
  getHostname: parse,
  getPort: parse,
  getEscapedPath: parse,
  getQuery: parse,

  // ── strings ─────────────────────────────────────────────────────────────
  startsWith: nativeScan,
  endsWith: nativeScan,
  contains: nativeScan,
  lowerAscii: nativeScan,
  upperAscii: nativeScan,
  trim: nativeScan,
  hex: nativeScan,
  base64: nativeScan,
  charAt: runes,
  indexOf: {
    formula: 'strings: 1 + ⌈(n + m)/8⌉; lists: 1 + n',
    cost: (a) => (typeof a[0] === 'string' ? 1 + slow(arg(a, 0) + arg(a, 1)) : 1 + arg(a, 0)),
  },
  lastIndexOf: {
    formula: 'strings: 1 + ⌈(n + m)/8⌉; lists: 1 + n',
    cost: (a) => (typeof a[0] === 'string' ? 1 + slow(arg(a, 0) + arg(a, 1)) : 1 + arg(a, 0)),
  },
  substring: runes,
  reverse: {
    formula: 'strings: 1 + ⌈n/8⌉; lists: 1 + n',
    cost: (a) => (typeof a[0] === 'string' ? 1 + slow(arg(a, 0)) : 1 + arg(a, 0)),
  },
  split: runes,
  // Output length is checked before the string is built (lib/strings.ts goReplace).
  replace: { formula: '1 + ⌈(n + m + r)/8⌉', cost: (a) => 1 + slow(arg(a, 0) + arg(a, 1) + arg(a, 2)) },
  quote: parseArg1,
  join: {
    formula: '1 + n + ⌈Σ len/64⌉',
    cost: (a) => {
      const list = a[0];
      if (!Array.isArray(list)) return 1;
      let chars = sizeOf(a[1]) * list.length;
      for (const s of list) chars += sizeOf(s);
      return 1 + list.length + native(chars);
    },
  },
  // Each clause's argument is charged by its size; lists and maps printed with %s recursively.
  format: {
    formula: '1 + ⌈n/8⌉ + Σ size(arg)',
    cost: (a) => {
      let units = 1 + slow(arg(a, 0));
      if (Array.isArray(a[1])) for (const x of a[1]) units += 1 + scan(x);
      return units;
    },
  },
  matches: {
    formula: '1 + m + ⌈n·(1 + ⌈m/16⌉)/8⌉ (n = string, m = pattern)',
    cost: (a) => regex(0).cost(a),
  },
  find: regex(0),
  findAll: regex(0),

  // ── encoders, hashes, JSON, random ──────────────────────────────────────
  encode: { formula: '1 + ⌈n/64⌉', cost: (a) => 1 + native(arg(a, 1)) },
  decode: parseArg1,
  sha256: { formula: '1 + ⌈n/64⌉', cost: (a) => 1 + native(arg(a, 1)) },
  md5: { formula: '1 + ⌈n/64⌉', cost: (a) => 1 + native(arg(a, 1)) },
  fnv64a: { formula: '1 + ⌈n/2⌉', cost: (a) => 1 + Math.ceil(arg(a, 1) / 2) },
  // Nested values are charged per element while they are walked (lib/kro-json.ts).
  marshal: { formula: '1 + size(v) + 1 per nested element', cost: (a) => 1 + scan(a[1]) },
  unmarshal: parseArg1,
  json: parse,
  seededString: {
    formula: '1 + ⌈n/8⌉ (n checked against the string limit first)',
    cost: (a) => 1 + slow(typeof a[1] === 'bigint' && a[1] > 0n ? Number(a[1]) : 0),
  },

  // ── lists ───────────────────────────────────────────────────────────────
  slice: perElement,
  // Nested lists are charged per element while flattening (lib/lists.ts).
  flatten: perElement,
  sort: {
    formula: '1 + n·⌈log₂(n + 1)⌉',
    cost: (a) => {
      const n = arg(a, 0);
      return 1 + n * Math.ceil(Math.log2(n + 1));
    },
  },
  // Elements that are not strings/numbers/bools are compared pairwise, 1 per comparison (lib/lists.ts).
  distinct: perElement,
  range: {
    formula: '1 + n (n checked against the list limit first)',
    cost: (a) => 1 + (typeof a[1] === 'bigint' && a[1] > 0n ? Number(a[1]) : 0),
  },
  isSorted: perElement,
  sum: perElement,
  min: perElement,
  max: perElement,
  includes: perElement,
  setAtIndex: { formula: '1 + n', cost: (a) => 1 + arg(a, 1) },
  insertAtIndex: { formula: '1 + n', cost: (a) => 1 + arg(a, 1) },
  removeAtIndex: { formula: '1 + n', cost: (a) => 1 + arg(a, 1) },
  optionalList: { formula: '1 + n', cost: (a) => 1 + arg(a, 1) },
  optionalMap: { formula: '1 + n', cost: (a) => 1 + arg(a, 1) },

  // ── maps ────────────────────────────────────────────────────────────────
  merge: { formula: '1 + n + m', cost: (a) => 1 + arg(a, 0) + arg(a, 1) },
  // Nested maps are charged per entry while merging (lib/kro-maps.ts).
  deepMerge: { formula: '1 + n + m + 1 per nested entry', cost: (a) => 1 + arg(a, 0) + arg(a, 1) },
};

/** Operators: `n`, `m` = sizes of the left and right operands (0 for scalars). */
export const OPERATOR_COSTS: Readonly<Record<string, CostRule>> = {
  '+': {
    formula: 'scalars 1; strings/bytes 1 + ⌈(n + m)/64⌉; lists 1 + n + m',
    cost: (a) => 1 + scan(a[0]) + scan(a[1]),
  },
  '==': {
    formula: 'scalars 1; strings/bytes 1 + ⌈min(n, m)/64⌉; lists/maps 1 + min(n, m) (nested: per level)',
    cost: (a) => 1 + Math.min(scan(a[0]), scan(a[1])),
  },
  '!=': {
    formula: 'as ==',
    cost: (a) => 1 + Math.min(scan(a[0]), scan(a[1])),
  },
  '<': {
    formula: 'scalars 1; strings/bytes 1 + ⌈min(n, m)/64⌉',
    cost: (a) => 1 + Math.min(scan(a[0]), scan(a[1])),
  },
  '<=': { formula: 'as <', cost: (a) => 1 + Math.min(scan(a[0]), scan(a[1])) },
  '>': { formula: 'as <', cost: (a) => 1 + Math.min(scan(a[0]), scan(a[1])) },
  '>=': { formula: 'as <', cost: (a) => 1 + Math.min(scan(a[0]), scan(a[1])) },
  in: {
    formula: 'list 1 + m; map 1',
    cost: (a) => (Array.isArray(a[1]) ? 1 + a[1].length : 1),
  },
  '-': constant(1),
  '*': constant(1),
  '/': constant(1),
  '%': constant(1),
  '!_': constant(1),
  '-_': constant(1),
};

/**
 * Units charged for a value a call produced: its size. A string a function produced is charged at the
 * rate of building one piece by piece (8 characters a unit), not of scanning one: the functions that
 * make long strings (`replace`, `format`, `join`, `json.marshal`, …) append a piece per match or
 * element, and the hostile fuzz found 300 × 300 `replace` chains that spent 0.5–1.1 s of CPU inside
 * 1,000,000 units when their output was charged at scan speed. An operator's string (`a + b`, one
 * native concatenation) stays at scan speed. Lists and maps: one unit per element or entry; bytes: native.
 */
export function producedCost(result: unknown, by: 'function' | 'operator'): number {
  if (typeof result === 'string') return by === 'function' ? slow(result.length) : native(result.length);
  return typeof result === 'object' ? scan(result) : 0;
}

/** `producedCost` for one kind of call, as a function of the result (built once per handler). */
export function producedCostOf(by: 'function' | 'operator'): (result: unknown) => number {
  return (result) => producedCost(result, by);
}

/** The cost table as Markdown rows (docs/cel.md embeds it; test/unit/cel/costs.test.ts keeps them equal). */
export function costTableMarkdown(): string {
  const rows = ['| function | cost (units, charged before the call) |', '|---|---|'];
  for (const [name, rule] of Object.entries(FUNCTION_COSTS).sort(([a], [b]) => a.localeCompare(b)))
    rows.push(`| \`${name}\` | ${rule.formula} |`);
  rows.push('', '| operator | cost |', '|---|---|');
  for (const [op, rule] of Object.entries(OPERATOR_COSTS))
    rows.push(`| \`${op.replace('_', '')}\` | ${rule.formula.replace(/\|/g, '\\|')} |`);
  return `${rows.join('\n')}\n`;
}
