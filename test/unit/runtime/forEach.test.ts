import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { canonicalKey } from '../../../src/runtime/canonical.ts';
import { type Dimension, expandForEach } from '../../../src/runtime/forEach.ts';
import { mulberry32 } from '../../support/prng.ts';

function randomDims(rand: () => number): Dimension[] {
  const n = 1 + Math.floor(rand() * 4);
  const dims: Dimension[] = [];
  for (let d = 0; d < n; d++) {
    const len = Math.floor(rand() * 5); // 0..4, so empty dimensions occur
    const values: unknown[] = [];
    for (let i = 0; i < len; i++) {
      const pick = Math.floor(rand() * 3);
      values.push(pick === 0 ? `v${d}-${i}` : pick === 1 ? BigInt(i * 10 + d) : { name: `o${d}-${i}` });
    }
    dims.push({ name: `it${d}`, values });
  }
  return dims;
}

describe('forEach expansion', () => {
  it('is the cartesian product with the first iterator outermost (region × tier)', () => {
    const r = expandForEach([
      { name: 'region', values: ['us-east', 'us-west'] },
      { name: 'tier', values: ['web', 'api'] },
    ]);
    assert.ok(r.ok);
    assert.deepEqual(
      r.items.map((i) => [i.bindings.region, i.bindings.tier]),
      [
        ['us-east', 'web'],
        ['us-east', 'api'],
        ['us-west', 'web'],
        ['us-west', 'api'],
      ],
    );
    assert.deepEqual(
      r.items.map((i) => i.index),
      [0, 1, 2, 3],
    );
  });

  it('gives no items when any dimension is empty', () => {
    const r = expandForEach([
      { name: 'a', values: ['x', 'y'] },
      { name: 'b', values: [] },
    ]);
    assert.ok(r.ok);
    assert.equal(r.items.length, 0);
  });

  it('rejects more items than the limit with the count, before building anything', () => {
    const big = Array.from({ length: 1001 }, (_, i) => i);
    const r = expandForEach([{ name: 'i', values: big }]);
    assert.deepEqual(r, { ok: false, reason: 'tooLarge', count: 1001, limit: 1000 });
    const huge = Array.from({ length: 100000 }, (_, i) => i);
    const r2 = expandForEach([
      { name: 'a', values: huge },
      { name: 'b', values: huge },
    ]);
    assert.equal(r2.ok, false);
    assert.ok(expandForEach([{ name: 'i', values: big.slice(0, 1000) }]).ok);
  });

  it('keeps item keys stable when values are added or removed around them', () => {
    const before = expandForEach([{ name: 'ns', values: ['a', 'b', 'c'] }]);
    const after = expandForEach([{ name: 'ns', values: ['0', 'a', 'c', 'd'] }]);
    assert.ok(before.ok && after.ok);
    const keyOf = (items: typeof before.items, v: string) => items.find((i) => i.bindings.ns === v)?.key;
    assert.equal(keyOf(before.items, 'a'), keyOf(after.items, 'a'));
    assert.equal(keyOf(before.items, 'c'), keyOf(after.items, 'c'));
    assert.notEqual(keyOf(after.items, 'a'), keyOf(after.items, 'c'));
  });

  it('keeps keys unique for repeated values', () => {
    const r = expandForEach([{ name: 'x', values: ['a', 'a'] }]);
    assert.ok(r.ok);
    assert.notEqual(r.items[0]!.key, r.items[1]!.key);
  });

  it('property: size, order, bindings and key stability hold for random dimensions (seeded)', () => {
    const rand = mulberry32(20261129);
    for (let run = 0; run < 300; run++) {
      const dims = randomDims(rand);
      const r = expandForEach(dims);
      assert.ok(r.ok);
      const expected = dims.reduce((n, d) => n * d.values.length, 1);
      assert.equal(r.items.length, expected, `run ${run}: size`);
      for (const item of r.items) {
        // Decode the index as a mixed-radix number, first dimension most significant.
        let rest = item.index;
        const idx: number[] = [];
        for (let d = dims.length - 1; d >= 0; d--) {
          const len = dims[d]!.values.length;
          idx[d] = rest % len;
          rest = Math.floor(rest / len);
        }
        dims.forEach((d, k) => {
          assert.equal(item.bindings[d.name], d.values[idx[k]!], `run ${run}: binding ${d.name}`);
        });
      }
      const keys = new Set(r.items.map((i) => i.key));
      assert.equal(keys.size, r.items.length, `run ${run}: unique keys`);
      // Re-expanding with the outermost dimension reversed permutes items but keeps each item's key.
      const reversed = dims.map((d, k) => (k === 0 ? { ...d, values: [...d.values].reverse() } : d));
      const r2 = expandForEach(reversed);
      assert.ok(r2.ok);
      const byKey = new Map(r.items.map((i) => [i.key, canonicalKey(i.bindings)]));
      for (const item of r2.items) {
        assert.equal(byKey.get(item.key), canonicalKey(item.bindings), `run ${run}: key stability`);
      }
    }
  });

  it('property: the limit is exact for random sizes (seeded)', () => {
    const rand = mulberry32(7);
    for (let run = 0; run < 200; run++) {
      const a = 1 + Math.floor(rand() * 60);
      const b = 1 + Math.floor(rand() * 60);
      const limit = 1 + Math.floor(rand() * 2000);
      const r = expandForEach(
        [
          { name: 'a', values: Array.from({ length: a }, (_, i) => i) },
          { name: 'b', values: Array.from({ length: b }, (_, i) => i) },
        ],
        limit,
      );
      assert.equal(r.ok, a * b <= limit, `run ${run}`);
      if (!r.ok) assert.equal(r.count, a * b);
    }
  });
});
