/** Buckets (design/sharding.md §2): the hash, the label's validation and the stamps that copy it. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BUCKET_COUNT, bucketLabel, bucketOf, LABEL_BUCKET } from '../../../../src/controller/core/bucket.ts';
import type { TemplateItem } from '../../../../src/controller/core/desired.ts';
import { stampTemplate } from '../../../../src/controller/graph/stamp.ts';
import { type InstanceIdentity, stampChild } from '../../../../src/controller/rgd/stamp.ts';

describe('buckets', () => {
  it('hashes a UID to a stable bucket in range, spread evenly', () => {
    assert.equal(
      bucketOf('0f3c2a9e-1111-4b7e-9a55-2d2f1c0e7a10'),
      bucketOf('0f3c2a9e-1111-4b7e-9a55-2d2f1c0e7a10'),
    );
    const counts = new Array<number>(BUCKET_COUNT).fill(0);
    const n = 200_000;
    for (let i = 0; i < n; i++) {
      const b = bucketOf(`${(i * 2654435761).toString(16)}-uid-${i}`);
      assert.ok(b >= 0 && b < BUCKET_COUNT && Number.isInteger(b));
      counts[b] = (counts[b] ?? 0) + 1;
    }
    const mean = n / BUCKET_COUNT;
    assert.ok(
      Math.max(...counts) < mean * 1.5 && Math.min(...counts) > mean * 0.5,
      `${Math.min(...counts)}..${Math.max(...counts)}`,
    );
  });

  it('accepts only bucket labels in range', () => {
    assert.equal(bucketLabel({ [LABEL_BUCKET]: '17' }), '17');
    assert.equal(bucketLabel({ [LABEL_BUCKET]: '1024' }), undefined);
    assert.equal(bucketLabel({ [LABEL_BUCKET]: 'x' }), undefined);
    assert.equal(bucketLabel({}), undefined);
  });

  it('the stamps copy the owner bucket onto children (and leave it out without one)', () => {
    const g = stampTemplate(
      { metadata: { name: 'a' } },
      { nodePath: 'cm', applyLayer: 1, graphUid: 'u', bucket: '7' },
    );
    assert.equal((g.metadata as { labels: Record<string, string> }).labels[LABEL_BUCKET], '7');
    const none = stampTemplate({ metadata: { name: 'a' } }, { nodePath: 'cm', applyLayer: 1, graphUid: 'u' });
    assert.equal((none.metadata as { labels: Record<string, string> }).labels[LABEL_BUCKET], undefined);
    const inst: InstanceIdentity = {
      uid: 'u',
      name: 'i',
      namespace: 'ns',
      group: 'g.example.com',
      version: 'v1',
      kind: 'K',
      applySetId: 'applyset-x',
      bucket: '900',
    };
    const item = { node: { path: 'cm', applyLayer: 1 } } as unknown as TemplateItem;
    const c = stampChild({ metadata: { name: 'c' } }, item, inst);
    assert.equal((c.metadata as { labels: Record<string, string> }).labels[LABEL_BUCKET], '900');
  });
});
