/**
 * Reading V8 heap snapshots (`.heapsnapshot`, as `v8.writeHeapSnapshot` or `--heapsnapshot-signal`
 * write them) for the memory benchmarks: the largest constructors by self size, as a Markdown table.
 * Shared by memory.bench.ts (Graph controller) and rgd-memory.bench.ts (RGD controller).
 */
import { readFileSync } from 'node:fs';

const MiB = (b: number): string => (b / 2 ** 20).toFixed(1);

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
  nodes: number[];
  strings: string[];
}

/** The largest constructors of a heap snapshot by self size (no retainers: the snapshot has them). */
export function topConstructors(path: string, n: number): string[] {
  const snap = JSON.parse(readFileSync(path, 'utf8')) as Snapshot;
  const fields = snap.snapshot.meta.node_fields;
  const types = snap.snapshot.meta.node_types[0];
  const width = fields.length;
  const [iType, iName, iSize] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f)) as [
    number,
    number,
    number,
  ];
  const by = new Map<string, { size: number; count: number }>();
  let total = 0;
  for (let i = 0; i < snap.nodes.length; i += width) {
    const type = types[snap.nodes[i + iType] as number] ?? '?';
    const size = snap.nodes[i + iSize] as number;
    total += size;
    const name =
      type === 'object' || type === 'closure'
        ? (snap.strings[snap.nodes[i + iName] as number] ?? '?')
        : `(${type})`;
    const e = by.get(name) ?? { size: 0, count: 0 };
    e.size += size;
    e.count += 1;
    by.set(name, e);
  }
  const rows = [...by].sort((a, b) => b[1].size - a[1].size).slice(0, n);
  return [
    `Heap snapshot ${MiB(total)} MiB (self sizes):`,
    '',
    '| constructor | self size | count | share |',
    '|---|---|---|---|',
    ...rows.map(
      ([k, v]) =>
        `| \`${k.replace(/\|/g, '\\|').slice(0, 60)}\` | ${MiB(v.size)} MiB | ${v.count} | ${((100 * v.size) / total).toFixed(1)}% |`,
    ),
  ];
}
