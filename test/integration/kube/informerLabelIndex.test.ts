/**
 * The informer's label index (`indexLabels`, `listByLabel`) against the real server: after the first
 * list, through watch events that add, relabel (value changed, label removed, label added), touch
 * without a label change and delete, and through a relist that diffs the cache (objects deleted,
 * relabelled and created while the informer was stopped). At every step the index must answer exactly
 * what a scan of the whole cache answers. Then a WatchSet with `indexLabels` lists by the same
 * selector as one without (the index is a superset the full selector still filters).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { newInterest, WatchSet } from '../../../src/controller/core/watches.ts';
import { Informer } from '../../../src/kube/informer.ts';
import type { RestClient } from '../../../src/kube/rest.ts';
import type { KubeObject } from '../../../src/kube/types.ts';
import type { LabelSelector } from '../../../src/runtime/selector.ts';
import { configMap, eventually, testClient, testNamespace } from '../../support/kube.ts';

const PART_OF = 'applyset.kubernetes.io/part-of';
const RUN = 'kgraph-test/index-run';

let client: RestClient;
let ns1: string;
let ns2: string;
before(async () => {
  client = await testClient();
  ns1 = await testNamespace('idx-a');
  ns2 = await testNamespace('idx-b');
});
after(() => client.close());

const cmRef = (namespace: string, name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', namespace, name });

/** `namespace/name` of objects, sorted. */
const ids = (os: readonly KubeObject[] | undefined) =>
  (os ?? []).map((o) => `${o.metadata.namespace}/${o.metadata.name}`).sort();

describe('informer label index', () => {
  it('answers like a scan of the cache through adds, relabels, deletes and a relist', async () => {
    const run = ns1; // unique per run: the informer sees only this test's objects
    const labelled = (part?: string) => ({ [RUN]: run, ...(part ? { [PART_OF]: part } : {}) });
    await client.create(configMap(ns1, 'a1', { v: '1' }, labelled('A')));
    await client.create(configMap(ns1, 'a2', { v: '1' }, labelled('A')));
    await client.create(configMap(ns2, 'a3', { v: '1' }, labelled('A')));
    await client.create(configMap(ns1, 'b1', { v: '1' }, labelled('B')));
    await client.create(configMap(ns1, 'n1', { v: '1' }, labelled()));

    const inf = new Informer(client, {
      target: { apiVersion: 'v1', kind: 'ConfigMap' },
      labelSelector: { [RUN]: run },
      indexLabels: [PART_OF],
    });
    /** The index's answer for every value (and per namespace) must equal a filtered scan. */
    const assertConsistent = (values: readonly string[]) => {
      for (const v of values) {
        for (const namespace of [undefined, ns1, ns2]) {
          const scan = inf
            .list(namespace)
            .filter((o) => o.metadata.labels?.[PART_OF] === v)
            .map((o) => `${o.metadata.namespace}/${o.metadata.name}`)
            .sort();
          assert.deepEqual(ids(inf.listByLabel(PART_OF, v, namespace)), scan, `${v} in ${namespace ?? '*'}`);
        }
      }
    };
    const waitFor = (what: string, value: string, expected: string[]) =>
      eventually(
        what,
        async () =>
          JSON.stringify(ids(inf.listByLabel(PART_OF, value))) === JSON.stringify(expected)
            ? true
            : undefined,
        20_000,
        20,
      );
    inf.start();
    try {
      await inf.waitForSync(20_000);
      assert.equal(inf.indexesLabel(PART_OF), true);
      assert.equal(inf.indexesLabel(RUN), false);
      assert.equal(inf.listByLabel(RUN, run), undefined, 'a key not indexed is not answered');
      assert.deepEqual(ids(inf.listByLabel(PART_OF, 'A')), [`${ns1}/a1`, `${ns1}/a2`, `${ns2}/a3`]);
      assert.deepEqual(ids(inf.listByLabel(PART_OF, 'A', ns2)), [`${ns2}/a3`]);
      assert.deepEqual(ids(inf.listByLabel(PART_OF, 'B')), [`${ns1}/b1`]);
      assert.deepEqual(ids(inf.listByLabel(PART_OF, 'C')), []);
      assertConsistent(['A', 'B', 'C']);

      // Value changed: a2 moves from A to B.
      await client.patch(cmRef(ns1, 'a2'), { metadata: { labels: { [PART_OF]: 'B' } } });
      await waitFor('a2 under B', 'B', [`${ns1}/a2`, `${ns1}/b1`]);
      assert.deepEqual(ids(inf.listByLabel(PART_OF, 'A')), [`${ns1}/a1`, `${ns2}/a3`]);
      assertConsistent(['A', 'B']);

      // Label removed from a1; label added to n1; a3 touched without a label change.
      await client.patch(cmRef(ns1, 'a1'), { metadata: { labels: { [PART_OF]: null } } });
      await client.patch(cmRef(ns1, 'n1'), { metadata: { labels: { [PART_OF]: 'A' } } });
      await client.patch(cmRef(ns2, 'a3'), { data: { v: '2' } });
      await waitFor('a1 out of A, n1 in', 'A', [`${ns1}/n1`, `${ns2}/a3`]);
      await eventually('a3 touched', async () =>
        (inf.get(ns2, 'a3')?.data as Record<string, string> | undefined)?.v === '2' ? true : undefined,
      );
      assert.deepEqual(ids(inf.listByLabel(PART_OF, 'A')), [`${ns1}/n1`, `${ns2}/a3`]);
      assertConsistent(['A', 'B']);

      // Delete: the last object of a value leaves no entry behind.
      await client.delete(cmRef(ns1, 'b1'));
      await client.delete(cmRef(ns1, 'a2'));
      await waitFor('B emptied', 'B', []);
      assertConsistent(['A', 'B']);

      // Relist: changes made while the informer is stopped reach the index through the list's diff.
      await inf.stop();
      const rvStopped = inf.resourceVersion;
      await client.delete(cmRef(ns2, 'a3'));
      await client.patch(cmRef(ns1, 'n1'), { metadata: { labels: { [PART_OF]: 'B' } } });
      await client.create(configMap(ns2, 'c1', { v: '1' }, labelled('A')));
      await client.create(configMap(ns1, 'c2', { v: '1' }, labelled('C')));
      assert.deepEqual(ids(inf.listByLabel(PART_OF, 'A')), [`${ns1}/n1`, `${ns2}/a3`], 'stopped: unchanged');
      inf.start();
      // The relist's diff is applied with the list's resourceVersion (newer than the writes above).
      await eventually(
        'relisted',
        async () => (inf.resourceVersion !== rvStopped ? true : undefined),
        20_000,
        20,
      );
      assert.equal(inf.stats.lists, 2);
      assert.deepEqual(ids(inf.listByLabel(PART_OF, 'A')), [`${ns2}/c1`]);
      assert.deepEqual(ids(inf.listByLabel(PART_OF, 'B')), [`${ns1}/n1`]);
      assert.deepEqual(ids(inf.listByLabel(PART_OF, 'C')), [`${ns1}/c2`]);
      assertConsistent(['A', 'B', 'C']);
    } finally {
      await inf.stop();
    }
  });

  it('a WatchSet with the index lists by selector exactly as one without', async () => {
    const ns = await testNamespace('idx-ws');
    for (const [name, part, tier] of [
      ['x1', 'X', 'web'],
      ['x2', 'X', 'db'],
      ['x3', 'X', undefined],
      ['y1', 'Y', 'web'],
      ['z1', undefined, 'web'],
    ] as const) {
      const labels: Record<string, string> = {};
      if (part) labels[PART_OF] = part;
      if (tier) labels.tier = tier;
      await client.create(configMap(ns, name, {}, labels));
    }
    const indexed = new WatchSet(client, { onEvent: () => undefined, indexLabels: [PART_OF] });
    const plain = new WatchSet(client, { onEvent: () => undefined });
    try {
      await indexed.prepare('v1', 'ConfigMap', [ns]);
      await plain.prepare('v1', 'ConfigMap', [ns]);
      const selectors: LabelSelector[] = [
        { matchLabels: { [PART_OF]: 'X' } },
        { matchLabels: { [PART_OF]: 'X', tier: 'web' } },
        { matchLabels: { tier: 'web', [PART_OF]: 'X' } },
        { matchLabels: { [PART_OF]: 'X' }, matchExpressions: [{ key: 'tier', operator: 'Exists' }] },
        { matchLabels: { [PART_OF]: 'none' } },
        { matchLabels: { tier: 'web' } },
        { matchExpressions: [{ key: PART_OF, operator: 'DoesNotExist' }] },
      ];
      // The root-CA publisher writes its ConfigMap at its own time: left out of the comparison.
      const expected = [['x1', 'x2', 'x3'], ['x1'], ['x1'], ['x1', 'x2'], [], ['x1', 'y1', 'z1'], ['z1']];
      const names = (os: readonly unknown[]) =>
        os.map((o) => (o as KubeObject).metadata.name).filter((n) => n !== 'kube-root-ca.crt');
      for (const [i, sel] of selectors.entries()) {
        const a = names(indexed.view(newInterest()).list('v1', 'ConfigMap', ns, sel));
        const b = names(plain.view(newInterest()).list('v1', 'ConfigMap', ns, sel));
        assert.deepEqual(a, b, JSON.stringify(sel));
        assert.deepEqual(a, expected[i], JSON.stringify(sel));
      }
    } finally {
      await indexed.stop();
      await plain.stop();
    }
  });
});
