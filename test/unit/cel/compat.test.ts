import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { baseEnvironment, check, evaluateSource, toJson } from '../../../src/cel/index.ts';

/**
 * CEL cases where kgraph was observed to differ from kro, with kro's verdict: `value` is the
 * JSON result kro's environment gives, `rejects` the phase in which kro fails (check = type-check,
 * eval = evaluation). Every row asserts kgraph gives the same verdict.
 */
interface CompatCase {
  item: number;
  expr: string;
  kro: { value: unknown } | { rejects: 'check' | 'eval'; message?: string };
  /** Why kro answers so, when it is not obvious. */
  note?: string;
}

const CASES: CompatCase[] = [
  // 2: well-known protobuf types are nullable in cel-go; primitives and lists are not.
  { item: 2, expr: "timestamp('2024-01-01T00:00:00Z') != null", kro: { value: true } },
  { item: 2, expr: "timestamp('2024-01-01T00:00:00Z') == null", kro: { value: false } },
  { item: 2, expr: "null != duration('90s')", kro: { value: true } },
  { item: 2, expr: "'x' != null", kro: { rejects: 'check' } },
  { item: 2, expr: '1 != null', kro: { rejects: 'check' } },
  { item: 2, expr: '[1] != null', kro: { rejects: 'check' } },
  // 4: the runtime library.
  {
    item: 4,
    expr: "runtime.newCondition({type: 'Ready', status: 'True', reason: 'Up', message: 'all good'})",
    kro: { value: { type: 'Ready', status: 'True', reason: 'Up', message: 'all good' } },
  },
  { item: 4, expr: "runtime.newCondition({type: 'A', status: 'False'}).reason", kro: { value: '' } },
  {
    item: 4,
    expr: "runtime.newCondition({type: 'A', status: 'Yes'})",
    kro: { rejects: 'eval', message: 'status must be one of True, False, Unknown' },
  },
  {
    item: 4,
    expr: "runtime.newCondition({type: '', status: 'True'})",
    kro: { rejects: 'eval', message: 'type must not be empty' },
  },
  {
    item: 4,
    expr: "runtime.newCondition({status: 'True'})",
    kro: { rejects: 'check', message: "'type' is required" },
  },
  {
    item: 4,
    expr: "runtime.newCondition({'type': 'A', status: 'True'})",
    kro: { rejects: 'check', message: 'keys must be bare identifiers' },
  },
  {
    item: 4,
    expr: "runtime.newCondition({type: 'A', status: 'True', severity: 'x'})",
    kro: { rejects: 'check', message: 'unknown key "severity"' },
  },
  {
    item: 4,
    expr: "runtime.newCondition({type: 'A', type: 'B', status: 'True'})",
    kro: { rejects: 'check', message: 'duplicate key "type"' },
  },
  { item: 4, expr: "runtime.newCondition({type: 'A', status: 1})", kro: { rejects: 'check' } },
  {
    item: 4,
    expr: "runtime.condition({'status': {'conditions': [{'type': 'ResourcesReady', 'status': 'True', 'reason': 'AllReady'}]}}, 'ResourcesReady').reason",
    kro: { value: 'AllReady' },
  },
  {
    item: 4,
    expr: "runtime.condition({'metadata': {'name': 'x'}}, 'Ready')",
    kro: { value: { type: '', status: '', reason: '', message: '' } },
  },
  {
    item: 4,
    expr: "[runtime.newCondition({type: 'A', status: 'True'}), runtime.newCondition({type: 'B', status: 'Unknown'})].map(c, c.type)",
    kro: { value: ['A', 'B'] },
  },
  // 5: Go's time.ParseDuration accepts a bare zero.
  { item: 5, expr: "duration('0')", kro: { value: '0s' } },
  { item: 5, expr: "duration('-0') == duration('0s')", kro: { value: true } },
  { item: 5, expr: "duration('1')", kro: { rejects: 'eval' } },
  // 6: qualified type names of the IP and CIDR libraries.
  { item: 6, expr: "type(ip('1.2.3.4')) == net.IP", kro: { value: true } },
  { item: 6, expr: "type(cidr('10.0.0.0/8')) == net.CIDR", kro: { value: true } },
  { item: 6, expr: "type(ip('1.2.3.4')) == net.CIDR", kro: { value: false } },
  // 7: see the note.
  {
    item: 7,
    expr: 'quantity("100m").add(quantity("900m")).isInteger()',
    kro: { value: false },
    note:
      'Quantity.Add keeps the int64Amount {1000, scale -3}; AsInt64 returns false for any negative scale ' +
      '(k8s.io/apimachinery resource/amount.go, v0.36 as pinned by kro and v0.37), so kro answers false, not true',
  },
  {
    item: 7,
    expr: 'quantity("100m").add(quantity("900m")).compareTo(quantity("1")) == 0',
    kro: { value: true },
  },
  { item: 7, expr: 'quantity("1").add(quantity("2")).isInteger()', kro: { value: true } },
];

function kgraph(expr: string): { value: unknown } | { rejects: 'check' | 'eval'; message: string } {
  const env = baseEnvironment();
  const checked = check(expr, env);
  if (!checked.ok) return { rejects: 'check', message: checked.error.message };
  const r = evaluateSource(expr, env);
  if (!r.ok) return { rejects: 'eval', message: r.error.message };
  return { value: toJson(r.value.value) };
}

describe('CEL compatibility with kro', () => {
  for (const c of CASES) {
    it(`item ${c.item}: ${c.expr}`, () => {
      const got = kgraph(c.expr);
      if ('value' in c.kro) {
        assert.deepEqual(got, { value: c.kro.value }, c.note);
      } else {
        assert.ok(
          'rejects' in got,
          `kro rejects at ${c.kro.rejects}; kgraph returned ${JSON.stringify(got)}`,
        );
        assert.equal(got.rejects, c.kro.rejects, got.message);
        if (c.kro.message) assert.ok(got.message.includes(c.kro.message), got.message);
      }
    });
  }
});
