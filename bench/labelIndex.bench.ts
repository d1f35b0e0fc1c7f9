/**
 * The cost of finding one RGD instance's children in the informer cache (what `listChildren` does per
 * instance, through WatchSet's selector list): a scan of every cached object of the kind with
 * `matchesSelector`, against the label index (`indexLabels`). N instances × 5 ConfigMaps in one
 * namespace are loaded into an informer by a scripted lister (no server: this measures the cache, not
 * the watch); every instance's children are then looked up once, both ways, alternating, 5 rounds.
 *
 * Run: node --import tsx bench/labelIndex.bench.ts [--instances N]   (prints; numbers in bench/README.md)
 */
import { Informer, type ListerWatcher } from '../src/kube/informer.ts';
import type { RestClient } from '../src/kube/rest.ts';
import type { KubeObject } from '../src/kube/types.ts';
import { matchesSelector } from '../src/runtime/selector.ts';
import { loadAverage, median } from './support.ts';

const PART_OF = 'applyset.kubernetes.io/part-of';
const i = process.argv.indexOf('--instances');
const N = i >= 0 ? Number(process.argv[i + 1]) : 1000;
const CHILDREN = 5;
const ROUNDS = 5;
const ns = 'bench';

const items: KubeObject[] = [];
for (let k = 0; k < N; k++) {
  for (let c = 0; c < CHILDREN; c++) {
    items.push({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: `app${k}-c${c}`,
        namespace: ns,
        resourceVersion: String(k * CHILDREN + c + 1),
        labels: { [PART_OF]: `applyset-app${k}`, 'kro.run/owned': 'true', 'kro.run/node-id': `c${c}` },
      },
      data: { v: String(c) },
    });
  }
}
const lw: ListerWatcher = {
  list: async () => ({ items, resourceVersion: String(items.length) }),
  watch: (_rv, signal) =>
    new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true })),
};
const inf = new Informer({} as RestClient, {
  target: { apiVersion: 'v1', plural: 'configmaps' },
  listerWatcher: lw,
  indexLabels: [PART_OF],
});
inf.start();
await inf.waitForSync(10_000);

const byName = (a: KubeObject, b: KubeObject) =>
  `${a.metadata.namespace ?? ''}/${a.metadata.name}`.localeCompare(
    `${b.metadata.namespace ?? ''}/${b.metadata.name}`,
  );
const selectorOf = (k: number) => ({ matchLabels: { [PART_OF]: `applyset-app${k}` } });
const scan = (k: number) => {
  const sel = selectorOf(k);
  return inf
    .list(ns)
    .filter((o) => matchesSelector(sel, o.metadata.labels ?? {}))
    .sort(byName);
};
const indexed = (k: number) => {
  const sel = selectorOf(k);
  return (inf.listByLabel(PART_OF, `applyset-app${k}`, ns) ?? [])
    .filter((o) => matchesSelector(sel, o.metadata.labels ?? {}))
    .sort(byName);
};

/** Microseconds per lookup over every instance once. */
function time(f: (k: number) => KubeObject[]): number {
  let found = 0;
  const t = performance.now();
  for (let k = 0; k < N; k++) found += f(k).length;
  const us = ((performance.now() - t) * 1000) / N;
  if (found !== N * CHILDREN) throw new Error(`found ${found} children, expected ${N * CHILDREN}`);
  return us;
}
time(scan);
time(indexed); // warm-up
const scans: number[] = [];
const indexes: number[] = [];
for (let r = 0; r < ROUNDS; r++) {
  scans.push(time(scan));
  indexes.push(time(indexed));
}
await inf.stop();
const s = median(scans);
const x = median(indexes);
process.stdout.write(
  `${N} instances × ${CHILDREN} children = ${items.length} cached ConfigMaps: one instance's children by scan ` +
    `${s.toFixed(1)} µs, by label index ${x.toFixed(2)} µs (${(s / x).toFixed(0)}×), median of ${ROUNDS} rounds; ` +
    `all instances once: ${((s * N) / 1000).toFixed(0)} ms vs ${((x * N) / 1000).toFixed(1)} ms; load average ${loadAverage()}\n`,
);
