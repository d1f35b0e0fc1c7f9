/**
 * The dependency DAG of one frame: cycle detection (each cycle named), topological order with
 * declaration-order tie-breaking, and apply layers (design/graph.md §7.3).
 */

export interface DagInput {
  /** Node ids in declaration order. */
  ids: readonly string[];
  /** deps[i] = indices of the nodes node i depends on (reads). */
  deps: readonly (readonly number[])[];
  /** True for `def` nodes: they do not add an apply layer. */
  isDef: readonly boolean[];
}

export interface DagResult {
  /** Topological order as indices (only when acyclic). */
  order: number[];
  /** Apply layer per node index (only meaningful when acyclic). */
  layer: number[];
  /** Each cycle as a closed id path: ['a', 'b', 'a']. Empty when acyclic. */
  cycles: string[][];
}

/** A binary min-heap of indices; the declaration index is the priority. */
class MinHeap {
  private readonly a: number[] = [];
  get size(): number {
    return this.a.length;
  }
  push(v: number): void {
    const a = this.a;
    a.push(v);
    let i = a.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (a[p]! <= v) break;
      a[i] = a[p]!;
      i = p;
    }
    a[i] = v;
  }
  pop(): number {
    const a = this.a;
    const top = a[0]!;
    const last = a.pop()!;
    if (a.length > 0) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= a.length) break;
        const r = l + 1;
        const c = r < a.length && a[r]! < a[l]! ? r : l;
        if (a[c]! >= last) break;
        a[i] = a[c]!;
        i = c;
      }
      a[i] = last;
    }
    return top;
  }
}

export function analyseDag(input: DagInput): DagResult {
  const n = input.ids.length;
  const dependents: number[][] = Array.from({ length: n }, () => []);
  const indegree = new Array<number>(n).fill(0);
  for (let i = 0; i < n; i++) {
    for (const d of input.deps[i]!) {
      dependents[d]!.push(i);
      indegree[i]!++;
    }
  }
  // Kahn's algorithm; the heap yields the ready node declared first.
  const heap = new MinHeap();
  for (let i = 0; i < n; i++) if (indegree[i] === 0) heap.push(i);
  const order: number[] = [];
  while (heap.size > 0) {
    const i = heap.pop();
    order.push(i);
    for (const j of dependents[i]!) {
      indegree[j]!--;
      if (indegree[j] === 0) heap.push(j);
    }
  }
  if (order.length < n) {
    return { order: [], layer: [], cycles: findCycles(input) };
  }
  const layer = new Array<number>(n).fill(0);
  for (const i of order) {
    let max = 0;
    for (const d of input.deps[i]!) if (layer[d]! > max) max = layer[d]!;
    layer[i] = input.isDef[i] ? max : max + 1;
  }
  return { order, layer, cycles: [] };
}

/**
 * Names one cycle per strongly connected component (Tarjan), starting at the component's node
 * declared first and following dependencies in declaration order. Self-loops are cycles of one.
 */
function findCycles(input: DagInput): string[][] {
  const n = input.ids.length;
  const index = new Array<number>(n).fill(-1);
  const low = new Array<number>(n).fill(0);
  const onStack = new Array<boolean>(n).fill(false);
  const stack: number[] = [];
  const components: number[][] = [];
  let counter = 0;

  // Iterative Tarjan to stay safe on deep graphs.
  for (let s = 0; s < n; s++) {
    if (index[s] !== -1) continue;
    const work: { v: number; next: number }[] = [{ v: s, next: 0 }];
    index[s] = low[s] = counter++;
    stack.push(s);
    onStack[s] = true;
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const deps = input.deps[frame.v]!;
      if (frame.next < deps.length) {
        const w = deps[frame.next++]!;
        if (index[w] === -1) {
          index[w] = low[w] = counter++;
          stack.push(w);
          onStack[w] = true;
          work.push({ v: w, next: 0 });
        } else if (onStack[w]) {
          low[frame.v] = Math.min(low[frame.v]!, index[w]!);
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low[parent.v] = Math.min(low[parent.v]!, low[frame.v]!);
      if (low[frame.v] === index[frame.v]) {
        const comp: number[] = [];
        for (;;) {
          const w = stack.pop()!;
          onStack[w] = false;
          comp.push(w);
          if (w === frame.v) break;
        }
        components.push(comp);
      }
    }
  }

  const cycles: string[][] = [];
  for (const comp of components) {
    const members = new Set(comp);
    const start = Math.min(...comp);
    if (comp.length === 1 && !input.deps[start]!.includes(start)) continue;
    // Path from start back to start inside the component (BFS for the shortest such cycle).
    const prev = new Map<number, number>();
    const queue: number[] = [start];
    let found = false;
    while (queue.length > 0 && !found) {
      const v = queue.shift()!;
      for (const w of [...input.deps[v]!].sort((a, b) => a - b)) {
        if (!members.has(w)) continue;
        if (w === start) {
          prev.set(-1, v);
          found = true;
          break;
        }
        if (!prev.has(w)) {
          prev.set(w, v);
          queue.push(w);
        }
      }
    }
    // Walk back: start ← … ← last; deps point from reader to read, so the path reads "a needs b needs … a".
    const path: number[] = [start];
    let v = prev.get(-1)!;
    const back: number[] = [];
    while (v !== start) {
      back.push(v);
      v = prev.get(v)!;
    }
    path.push(...back.reverse(), start);
    cycles.push(path.map((i) => input.ids[i]!));
  }
  cycles.sort((a, b) => input.ids.indexOf(a[0]!) - input.ids.indexOf(b[0]!));
  return cycles;
}
